"""What the hand-written demonstrations left (megatron_bugs.py,
torch_chunked_bugs.py: the bugs `lossfuzz export` cannot write a script for)
share: a call's answer as plain data, and the report of each bug against
F.cross_entropy."""
import torch


def answer(f):
    """f()'s value as a list, or its exception's class and message."""
    try:
        v = f()
        return v.tolist() if isinstance(v, torch.Tensor) else v
    except Exception as e:  # the rejection is the answer
        return "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:70])


def rejects(a):
    return isinstance(a, str)


def report(bugs, kernel):
    """Runs each bug (a function returning PyTorch's answer, the kernel's, and whether they show it), prints
    both answers; 0 when every one shows, 1 when one no longer does (fixed upstream, or the demonstration is
    wrong). One thread: the interpreted kernels' answers do not depend on torch's thread count then."""
    torch.set_num_threads(1)
    shown = 0
    for bug in bugs:
        want, got, shows = bug()
        ok = bool(shows(want, got))
        shown += ok
        print("%-5s %-28s %s\n      PyTorch: %s\n      %-8s %s" % ("BUG" if ok else "GONE", bug.__name__, bug.__doc__,
                                                                  want, kernel + ":", got))
    print("%d of %d bugs show" % (shown, len(bugs)))
    return 0 if shown == len(bugs) else 1
