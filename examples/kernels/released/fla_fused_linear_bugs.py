"""The real bugs lossfuzz finds in flash-linear-attention's Triton fused linear +
cross-entropy (fla-core 0.6.0, `fla.modules.fused_linear_cross_entropy`:
fused_linear_cross_entropy_loss, fla_fused_linear_ce.py), each shown against
torch 2.15's F.linear_cross_entropy in plain torch: the entries of a 90 s
campaign of fla_fused_linear_ce.py:fused_linear_cross_entropy on fuzz_linear.

    sh examples/kernels/released/install_released.sh
    .venv/bin/python3 examples/kernels/released/fla_fused_linear_bugs.py

Runs on the CPU in Triton's interpreter. Prints each bug with both answers;
exits 1 when one no longer shows (fixed upstream, or this demonstration is
wrong), 77 without the installed package or F.linear_cross_entropy."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
import lossfuzz_triton_compat  # noqa: E402

lossfuzz_triton_compat.enable_interpreter()  # before triton is imported
sys.path.insert(0, HERE)
from plain_torch import answer, rejects, report  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

try:
    from fla_fused_linear_ce import fused_linear_cross_entropy as fla
    F.linear_cross_entropy
except (ImportError, AttributeError) as e:
    print("SKIP: needs fla-core 0.6.0 in .released/ and torch 2.15: %s" % e)
    sys.exit(77)


def both(x, w, t):
    return answer(lambda: F.linear_cross_entropy(x, w, t)), answer(lambda: fla(x, w, t))


def target_length_unchecked():
    """2 labels for 1 row: PyTorch raises; fla computes the row's loss and divides the mean by 2 (the labels' count)"""
    x, w = torch.tensor([[1.0, 2.0]]), torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    want, got = both(x, w, torch.tensor([0, 0]))
    one = fla(x, w, torch.tensor([0])).item()
    return want, [got, one], lambda a, b: rejects(a) and not rejects(b[0]) and abs(2 * b[0] - b[1]) < 1e-6


def empty_dim_zero_division():
    """vocabulary 0 (row ignored), hidden size 0, empty batch: PyTorch NaN, log(3), NaN; fla ZeroDivisionError"""
    calls = [(torch.zeros(1, 1), torch.zeros(0, 1), torch.tensor([-100])),
             (torch.zeros(2, 0), torch.zeros(3, 0), torch.tensor([0, 1])),
             (torch.zeros(0, 2), torch.zeros(3, 2), torch.zeros(0, dtype=torch.long))]
    want = [answer(lambda: F.linear_cross_entropy(*c)) for c in calls]
    got = [answer(lambda: fla(*c)) for c in calls]
    return want, got, lambda a, b: not any(map(rejects, a)) and all(map(rejects, b))


BUGS = [target_length_unchecked, empty_dim_zero_division]

if __name__ == "__main__":
    sys.exit(report(BUGS, "fla"))
