"""Megatron-LM's vocabulary-parallel cross-entropy (megatron-core 0.16.1 from
PyPI, `megatron/core/tensor_parallel/cross_entropy.py`:
`vocab_parallel_cross_entropy`) under lossfuzz on W ranks, its claims written
from its documented API: logits [s, b, V / W] (here [N, V / W]) and targets
[s, b], a loss per token (reduction none), label smoothing; the split its
code computes, rank * V / W (`vocab_range_from_per_partition_vocab_size`):
V a multiple of W, no empty shard. Megatron's tensor-parallel group is read
from its parallel_state; the adapter hands it the group lossfuzz gives.

    sh examples/kernels/released/install_released.sh   (or pip install --no-deps megatron-core==0.16.1)
    lossfuzz fuzz --target fuzz_llm --world-size 2 --seconds 120 \\
        --kernel py:examples/kernels/released/megatron_vocab_parallel_ce.py:cross_entropy

Known, documented deviations, accepted below with their reasons: its label
smoothing is NeMo's, eps * K / (K - 1) over the local shard, not PyTorch's
(docs/llm-cross-entropy.md, "Where public kernels disagree" 2); it has no
ignore_index (Megatron masks tokens with its loss_mask); its loss is float32
for any logits."""
import released_package

released_package.pinned_first("megatron_core-0.16.1")  # else the environment's own megatron-core
import megatron.core.tensor_parallel.cross_entropy as megatron_ce  # noqa: E402
import torch.distributed as dist  # noqa: E402


def cross_entropy(input, target, reduction="none", label_smoothing=0.0, group=None):
    assert reduction == "none"  # its claims: a loss per token, which the caller reduces
    # Megatron asks its parallel_state for the group, rank and size: the group lossfuzz made
    megatron_ce.get_tensor_model_parallel_group = lambda: group
    megatron_ce.get_tensor_model_parallel_rank = lambda: dist.get_rank(group)
    megatron_ce.get_tensor_model_parallel_world_size = lambda: dist.get_world_size(group)
    return megatron_ce.vocab_parallel_cross_entropy(input, target, label_smoothing)


cross_entropy.lossfuzz_claims = {
    "name": "Megatron-LM (megatron-core 0.16.1) vocab_parallel_cross_entropy", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "bfloat16", "float16"], "target_dtypes": ["int64"], "reductions": ["none"],
    "features": ["label_smoothing"], "max_spatial_dims": 0,
    "vocab_parallel": {"group": "group", "split": "divisible", "empty_shards": False},
    # its loss is float32 whatever the logits' dtype (forward's .float(), on purpose)
    "float32_result": True,
    "accept": {"value-mismatch/kernel[*smoothing": "NeMo's label smoothing, eps * K / (K - 1) over the local shard",
               "grad-mismatch/kernel[*smoothing": "NeMo's label smoothing, eps * K / (K - 1) over the local shard",
               # Megatron masks tokens with its loss_mask, not a label: -100 is a label outside its range
               "value-mismatch/kernel[*ignored": "no ignore_index: a label of -100 is not skipped (loss_mask does it)",
               "grad-mismatch/kernel[*ignored": "no ignore_index: a label of -100 is not skipped (loss_mask does it)"},
}
