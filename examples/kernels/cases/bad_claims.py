"""Kernels whose claims are wrong: a misspelt key, a deviation flag that is not a
boolean; lossfuzz refuses each by name (kernel_test.sh)."""
import torch.nn.functional as F


def cross_entropy(input, target, **options):
    return F.cross_entropy(input, target, **options)


cross_entropy.lossfuzz_claims = {"feature": ["weight"]}


def in_place_not_bool(input, target, **options):
    return F.cross_entropy(input, target, **options)


in_place_not_bool.lossfuzz_claims = {"grad_in_place": "yes"}
