"""The real bugs lossfuzz finds in flash-linear-attention's Triton cross-entropy
(fla-core 0.6.0, `fla.modules.fused_cross_entropy`: cross_entropy_loss reduced as
FusedCrossEntropyLoss.forward reduces, fla_ce.py), each shown against
F.cross_entropy in plain torch: the entries of 90 s campaigns of
fla_ce.py:cross_entropy (fuzz_class) and fla_ce.py:cross_entropy_llm (fuzz_llm).

    sh examples/kernels/released/install_released.sh
    .venv/bin/python3 examples/kernels/released/fla_bugs.py

Runs on the CPU in Triton's interpreter. Prints each bug with both answers;
exits 1 when one no longer shows (fixed upstream, or this demonstration is
wrong), 77 without the installed package."""
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
    from fla_ce import cross_entropy as fla
except ImportError as e:
    print("SKIP: %s" % e)
    sys.exit(77)


def labels_unchecked():
    """a label of 2 with 1 class: PyTorch raises (CUDA: asserts), fla computes (the label's logit taken as 0)"""
    x, t = torch.zeros(1, 1), torch.tensor([2])
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: fla(x, t)), lambda a, b: rejects(a) and not rejects(b)


def smoothing_range_unchecked():
    """label smoothing 1.5: PyTorch raises, fla computes"""
    x, t = torch.tensor([[1.0, 2.0]]), torch.tensor([0])
    return answer(lambda: F.cross_entropy(x, t, label_smoothing=1.5)), \
        answer(lambda: fla(x, t, label_smoothing=1.5)), lambda a, b: rejects(a) and not rejects(b)


def lse_rounded_first():
    """[1e4, 1e4], target 0 (smoothing 0.1: [-107610624, -107607648]): float32 lse minus raw logits, digits lost"""
    x, t = torch.tensor([[1e4, 1e4]]), torch.tensor([0])
    xs = torch.tensor([[-107610624.0, -107607648.0]])
    want = [answer(lambda: F.cross_entropy(x, t)), answer(lambda: F.cross_entropy(xs, t, label_smoothing=0.1))]
    got = [answer(lambda: fla(x, t)), answer(lambda: fla(xs, t, label_smoothing=0.1))]
    return want, got, lambda a, b: abs(a[0] - b[0]) > 1e-4 and abs(a[1] - b[1]) > 1


def grad_lse_rounded_first():
    """logits [0, 1e4, 1e4 + 1], target 0: backward's exp(x - lse) takes the float32 lse: d x[2] 0.7309, PyTorch 0.7311"""
    x = torch.tensor([[0.0, 10000.0, 10001.0]])

    def grad(f):
        y = x.clone().requires_grad_()
        f(y, torch.tensor([0])).backward()
        return y.grad[0].tolist()
    return grad(F.cross_entropy), grad(fla), lambda a, b: abs(a[2] - b[2]) > 1e-4


def no_classes_fails():
    """logits with no classes ([0, 0], or [1, 0] with the row ignored): PyTorch NaN, fla ZeroDivisionError"""
    want = [answer(lambda: F.cross_entropy(torch.zeros(0, 0), torch.zeros(0, dtype=torch.long))),
            answer(lambda: F.cross_entropy(torch.zeros(1, 0), torch.tensor([-100])))]
    got = [answer(lambda: fla(torch.zeros(0, 0), torch.zeros(0, dtype=torch.long))),
           answer(lambda: fla(torch.zeros(1, 0), torch.tensor([-100])))]
    return want, got, lambda a, b: not any(map(rejects, a)) and all(map(rejects, b))


BUGS = [labels_unchecked, smoothing_range_unchecked, lse_rounded_first, grad_lse_rounded_first, no_classes_fails]

if __name__ == "__main__":
    sys.exit(report(BUGS, "fla"))
