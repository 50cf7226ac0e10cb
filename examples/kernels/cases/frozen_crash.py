"""A kernel that only works when its input requires grad (Liger-Kernel issue
930's UnboundLocalError): kernel_test.sh expects a false alarm on a frozen input."""
import torch.nn.functional as F


def cross_entropy(input, target, reduction="mean"):
    if input.requires_grad:
        scale = 1.0
    return F.cross_entropy(input, target, reduction=reduction) * scale  # noqa: F821 - the bug


cross_entropy.lossfuzz_claims = {"losses": ["cross_entropy"], "input_dtypes": ["float32"], "target_dtypes": ["int64"],
                                 "features": [], "max_spatial_dims": 0}
