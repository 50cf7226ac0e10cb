"""The two differences of torch 2.15's chunked F.linear_cross_entropy
(`options=nn.LinearCrossEntropyOptions()`) from the same op's reference path
(`options=None`) that lossfuzz's generated scripts cannot show, written by
hand. Its other bugs are kept as minimized cases in findings/torch_chunked/,
each a standalone script by `lossfuzz export` (ci/exported-scripts-check.sh).
These two lossfuzz does not report, on purpose:

  own_errors            both paths refuse; lossfuzz holds a kernel to refusing,
                        not to PyTorch's words or exception class
  unbatched_one_target  the reference path's reading of a [1] target for [H]
                        hidden states is a PyTorch quirk lossfuzz's spec excuses
                        (the listed difference unbatched_target_1)

    .venv/bin/python3 examples/kernels/released/torch_chunked_bugs.py     (ci/setup.sh's .venv)

On the CPU. Prints each with both answers; exits 1 when one no longer
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


def own_errors():
    """a label of 100 with 100 classes: IndexError 'Target 100 is out of bounds' on the reference path, another
    class in another op's words on the chunked one (and so for an int64 class weight: index_select)"""
    x, w, t = torch.zeros(1, 4), torch.zeros(100, 4), torch.tensor([100])
    want, got = both(x, w, t)
    return want, got, lambda a, b: rejects(a) and rejects(b) and a.split(":")[0] != b.split(":")[0]


def unbatched_one_target():
    """hidden states [H] with a target [1]: the reference path reads it as the one row's label, the chunked refuses"""
    x, w, t = torch.zeros(4), torch.randn(2, 4, generator=torch.Generator().manual_seed(2)), torch.tensor([0])
    want, got = both(x, w, t)
    return want, got, lambda a, b: not rejects(a) and rejects(b)


BUGS = [own_errors, unbatched_one_target]


if __name__ == "__main__":
    sys.exit(report(BUGS, "chunked"))
