"""The bugs lossfuzz finds in torch 2.15's own chunked F.linear_cross_entropy
(`options=nn.LinearCrossEntropyOptions(...)`), each shown against the same
op's reference path (`options=None`) in plain torch: the known differences
chunked_* of harness/losses/lf_loss_linear.c, which `--torch` excuses, and
the entries of a campaign of examples/kernels/torch_chunked.py.

    .venv/bin/python3 examples/kernels/released/torch_chunked_bugs.py     (ci/setup.sh's .venv)

On the CPU. Prints each bug with both answers; exits 1 when one no longer
shows (fixed upstream, or this demonstration is wrong), 77 on a torch
without F.linear_cross_entropy (before 2.15)."""
import sys
import warnings

from plain_torch import answer, rejects, report
import torch
import torch.nn.functional as F

if not hasattr(F, "linear_cross_entropy"):
    print("SKIP: torch %s has no F.linear_cross_entropy (new in 2.15)" % torch.__version__)
    sys.exit(77)


def both(x, w, t, **kw):
    """The reference path's answer and the chunked path's (default options)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (answer(lambda: F.linear_cross_entropy(x, w, t, **kw)),
                answer(lambda: F.linear_cross_entropy(x, w, t, options=torch.nn.LinearCrossEntropyOptions(), **kw)))


def grads(x, w, t, upstream, **kw):
    """d input on each path, for the upstream given."""
    out = []
    for options in (None, torch.nn.LinearCrossEntropyOptions()):
        xg = x.clone().requires_grad_()
        F.linear_cross_entropy(xg, w, t, options=options, **kw).backward(upstream)
        out.append(xg.grad.tolist())
    return out


def zero_features():
    """hidden size 0: the reference path's loss is log(C); the chunked path divides by H choosing its chunk size"""
    x, w, t = torch.zeros(2, 0), torch.zeros(3, 0), torch.tensor([0, 1])
    want, got = both(x, w, t)
    return want, got, lambda a, b: not rejects(a) and b.startswith("ZeroDivisionError")


def own_errors():
    """a label of 100 with 100 classes: IndexError 'Target 100 is out of bounds' on the reference path, another
    class in another op's words on the chunked one (and so for an int64 class weight: index_select)"""
    x, w, t = torch.zeros(1, 4), torch.zeros(100, 4), torch.tensor([100])
    want, got = both(x, w, t)
    return want, got, lambda a, b: rejects(a) and rejects(b) and a.split(":")[0] != b.split(":")[0]


def weight_unchecked():
    """a class weight of 5 for 3 classes: the reference path refuses it, the chunked path computes"""
    x, w, t = torch.randn(2, 4, generator=torch.Generator().manual_seed(1)), torch.ones(3, 4), torch.tensor([0, 2])
    want, got = both(x, w, t, weight=torch.arange(1.0, 6.0))
    return want, got, lambda a, b: rejects(a) and not rejects(b)


def batch_size_unchecked():
    """a target of 6 labels for 1 row: the reference path refuses it, the chunked path computes"""
    x, w, t = torch.zeros(1, 1), torch.tensor([[0.02]]), torch.zeros(6, dtype=torch.long)
    want, got = both(x, w, t)
    return want, got, lambda a, b: rejects(a) and not rejects(b)


def target_shape_unchecked():
    """an empty int64 target [0, 1] for logits [0, 2]: the reference path refuses it, the chunked path computes"""
    x, w, t = torch.zeros(0, 1), torch.tensor([[0.1], [-0.2]]), torch.zeros(0, 1, dtype=torch.long)
    want, got = both(x, w, t)
    return want, got, lambda a, b: rejects(a) and not rejects(b)


def weight_dtype_unchecked():
    """an int64 class weight for float32 logits: the reference path refuses it, the chunked path computes"""
    x, w, t = torch.zeros(1, 1), torch.tensor([[0.1]]), torch.tensor([0])
    want, got = both(x, w, t, weight=torch.tensor([1]))
    return want, got, lambda a, b: rejects(a) and not rejects(b)


def infinite_class_weight():
    """class weights -inf and inf, the label's -inf: the reference path's sum is -inf, the chunked path's NaN"""
    x, w = torch.tensor([[16.0]]), torch.tensor([[-1.5681899], [1.0952549]])
    want, got = both(x, w, torch.tensor([0]), weight=torch.tensor([float("-inf"), float("inf")]), reduction="sum")
    return want, got, lambda a, b: a == float("-inf") and b != b


def unbatched_one_target():
    """hidden states [H] with a target [1]: the reference path reads it as the one row's label, the chunked refuses"""
    x, w, t = torch.zeros(4), torch.randn(2, 4, generator=torch.Generator().manual_seed(2)), torch.tensor([0])
    want, got = both(x, w, t)
    return want, got, lambda a, b: not rejects(a) and rejects(b)


def ignored_nonfinite():
    """an ignored row with a -inf hidden state: the reference path's sum leaves it out, the chunked path's is NaN"""
    x, w, t = torch.tensor([[float("-inf")], [1.0]]), torch.tensor([[0.5], [-0.5]]), torch.tensor([-100, 0])
    want, got = both(x, w, t, reduction="sum")
    return want, got, lambda a, b: a == a and b != b


def all_ignored_mean_grad():
    """a mean over ignored rows only, upstream 0: the reference path's d input is 0, the chunked path's NaN
    (its gradient, made in forward, divides by the total weight 0)"""
    x, w, t = torch.zeros(1, 1), torch.full((1, 1), -0.15), torch.tensor([-100])
    want, got = grads(x, w, t, torch.tensor(0.0))
    return want, got, lambda a, b: a == [[0.0]] and b[0][0] != b[0][0]


BUGS = [zero_features, own_errors, weight_unchecked, batch_size_unchecked, target_shape_unchecked,
        weight_dtype_unchecked, infinite_class_weight, unbatched_one_target, ignored_nonfinite, all_ignored_mean_grad]


if __name__ == "__main__":
    sys.exit(report(BUGS, "chunked"))
