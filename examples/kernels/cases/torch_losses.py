"""PyTorch's own nll_loss and binary_cross_entropy_with_logits as kernels under
test: the spec's forward and backward checked against real PyTorch on every
case the fuzzer makes (the cross_entropy one is ce_python.py:wrapper)."""
import torch.nn.functional as F


def nll_loss(input, target, **options):
    return F.nll_loss(input, target, **options)


def bce_with_logits(input, target, **options):
    return F.binary_cross_entropy_with_logits(input, target, **options)


nll_loss.lossfuzz_claims = {"name": "F.nll_loss", "losses": ["nll_loss"]}
bce_with_logits.lossfuzz_claims = {"name": "F.binary_cross_entropy_with_logits",
                                   "losses": ["binary_cross_entropy_with_logits"]}
