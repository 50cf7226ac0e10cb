"""Runs a case through PyTorch on the CPU and names its outcome the way the
spec does: ok with the values, host_error with the spec's error class (from
the message, lossfuzz_torch.ERROR_TABLE), or device_assert for the IndexError
the CPU raises where CUDA's kernels assert. The CUDA runner is record_cuda.py."""
import os
import sys
import warnings

# The error table and the classification are the product's (python/lossfuzz_torch.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from lossfuzz_torch import classify_error  # noqa: E402
from torch_cases import dtype_name  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except Exception:  # torch_cases reports the import error
    torch = F = None


def run_torch(case):
    """Run the torch function for the case; return its outcome dict."""
    loss_fn = getattr(F, case.loss)  # a loss's name is its torch.nn.functional's
    kwargs = {k: v for k, v in case.tensors.items() if k in ("weight", "pos_weight")}
    kwargs.update(case.options)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = loss_fn(case.tensors["input"], case.tensors["target"], **kwargs)
    except Exception as exc:  # torch raises RuntimeError, ValueError, IndexError, ...
        return classify_error(case, exc)
    return {"outcome": "ok", "error": None, "exception": None, "message": None,
            "value": result.double().flatten().tolist(), "dtype": dtype_name(result)}


def run_torch_backward(case, upstream):
    """d input of the case's loss by autograd, given the upstream gradient
    (a flat list, the result's values): a flat list of floats, or None where
    torch raises in backward."""
    loss_fn = getattr(F, case.loss)  # a loss's name is its torch.nn.functional's
    kwargs = {k: v for k, v in case.tensors.items() if k in ("weight", "pos_weight")}
    kwargs.update(case.options)
    x = case.tensors["input"].detach().clone().requires_grad_()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = loss_fn(x, case.tensors["target"], **kwargs)
            up = torch.tensor(upstream, dtype=torch.float64).to(result.dtype).reshape(result.shape)
            result.backward(up)
    except Exception:  # noqa: BLE001 - a backward that raises has no gradient to compare
        return None
    return x.grad.double().flatten().tolist()
