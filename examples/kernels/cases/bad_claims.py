"""A kernel whose claims have a misspelt key: lossfuzz refuses it by name (kernel_test.sh)."""
import torch.nn.functional as F


def cross_entropy(input, target, **options):
    return F.cross_entropy(input, target, **options)


cross_entropy.lossfuzz_claims = {"feature": ["weight"]}
