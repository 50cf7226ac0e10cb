"""The real bugs lossfuzz finds in Megatron-LM's vocabulary-parallel
cross-entropy (megatron-core 0.16.1, `vocab_parallel_cross_entropy`), each
shown against F.cross_entropy in plain torch, on one gloo rank (every one of
them shows with the vocabulary whole; the campaign found them on 2):
docs/released-kernels.md says what each is.

    pip install --no-deps megatron-core==0.16.1
    .venv/bin/python3 examples/kernels/released/megatron_bugs.py

Prints each bug with both answers; exits 1 when one no longer shows (fixed
upstream, or this demonstration is wrong), 77 without megatron-core."""
import os
import socket
import sys
import warnings

import torch
import torch.distributed as dist
import torch.nn.functional as F

warnings.simplefilter("ignore")  # megatron-core warns that Transformer Engine and Apex are missing
try:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from megatron_vocab_parallel_ce import cross_entropy as megatron_ce
    from plain_torch import answer, rejects, report
except ImportError as e:
    print("SKIP: no megatron-core (pip install --no-deps megatron-core==0.16.1): %s" % e)
    sys.exit(77)


def megatron(x, target, label_smoothing=0.0):
    return megatron_ce(x, target, label_smoothing=label_smoothing, group=dist.group.WORLD)


def no_label_range_check():
    """a label past the vocabulary: PyTorch asserts on CUDA (raises on the CPU), Megatron returns the row's lse"""
    x, t = torch.zeros(1, 2), torch.tensor([3])
    return answer(lambda: F.cross_entropy(x, t, reduction="none")), answer(lambda: megatron(x.clone(), t)), \
        lambda a, b: rejects(a) and not rejects(b)


def no_target_shape_check():
    """a [N, 1] target: PyTorch raises, Megatron computes"""
    x, t = torch.zeros(2, 3), torch.zeros(2, 1, dtype=torch.long)
    return answer(lambda: F.cross_entropy(x, t, reduction="none")), answer(lambda: megatron(x.clone(), t)), \
        lambda a, b: rejects(a) and not rejects(b)


def no_batch_size_check():
    """a 0-d target for a batch of one row: PyTorch raises, Megatron computes"""
    x, t = torch.zeros(1, 2), torch.tensor(0)
    return answer(lambda: F.cross_entropy(x, t, reduction="none")), answer(lambda: megatron(x.clone(), t)), \
        lambda a, b: rejects(a) and not rejects(b)


def input_modified():
    """float32 logits: Megatron subtracts the row max and exponentiates in place, in the caller's tensor"""
    x, t = torch.tensor([[1.0, 2.0]]), torch.tensor([0])
    y = x.clone()
    megatron(y, t)
    return x.tolist(), y.tolist(), lambda a, b: a != b


def smoothing_one_class_shard():
    """label smoothing on a shard of one class: eps * K / (K - 1) divides by zero (PyTorch: a number)"""
    x, t = torch.zeros(1, 1), torch.tensor([0])
    return answer(lambda: F.cross_entropy(x, t, reduction="none", label_smoothing=0.1)), \
        answer(lambda: megatron(x.clone(), t, label_smoothing=0.1)), lambda a, b: not rejects(a) and rejects(b)


BUGS = [no_label_range_check, no_target_shape_check, no_batch_size_check, input_modified, smoothing_one_class_shard]


def main():
    torch.set_num_threads(1)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=0, world_size=1)
    try:
        return report(BUGS, "Megatron")
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
