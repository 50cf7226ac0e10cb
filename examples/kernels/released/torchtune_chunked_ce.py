"""torchtune 0.6.1's `CEWithChunkedOutputLoss`
(`torchtune/modules/loss/ce_chunked_output_loss.py`, from PyPI, installed
into .released/) under lossfuzz. Only that file is loaded, by its path: it
imports nothing but torch, while `import torchtune` needs torchao,
datasets, huggingface_hub and the tokenizers (its __init__ imports them all).

Its claims are written from its docstrings and code: logits (batch_size,
num_tokens, vocab_size), the vocabulary last, chunked along the tokens by
the caller (its example: `h.chunk(num_chunks, dim=1)`, done here on the
logits with its default num_output_chunks=8) and labels (batch_size,
num_tokens), chunked the same way and viewed as [-1] (`reshape(-1)`: any
target shape of one label per row, unchecked); each chunk "upcast to fp32"
(`logits.float()`): a float32 loss for bfloat16 / float16 logits, and
float64 logits computed in float32, so not claimed; ignore_index; one
reduction, the mean over the labels that are not ignore_index; no class
weight, no label smoothing. Logits [N, V] are given to it as [N, 1, V], one
token each; a 1-D call is outside its API.

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --target fuzz_llm --seconds 60 \\
        --kernel py:examples/kernels/released/torchtune_chunked_ce.py:cross_entropy"""
import importlib.util
import os

import released_package

# the package's folder, without running its __init__ (it imports torchao and more)
PACKAGE = released_package.package_folder("torchtune", "torchtune-0.6.1", "torchtune==0.6.1")
PATH = os.path.join(PACKAGE, "modules", "loss", "ce_chunked_output_loss.py")
_spec = importlib.util.spec_from_file_location("torchtune_ce_chunked_output_loss", PATH)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
CEWithChunkedOutputLoss = _module.CEWithChunkedOutputLoss
NUM_OUTPUT_CHUNKS = 8  # its default


def cross_entropy(input, target, ignore_index=-100, reduction="mean"):
    assert reduction == "mean"  # its claims: the only reduction it has
    if input.dim() == 2:  # [N, V]: N sequences of one token
        input, target = input.unsqueeze(1), target.unsqueeze(-1)  # a 2-D target stays a mismatch
    loss_fn = CEWithChunkedOutputLoss(num_output_chunks=NUM_OUTPUT_CHUNKS, ignore_index=ignore_index)
    return loss_fn(list(input.chunk(NUM_OUTPUT_CHUNKS, dim=1)), target)


cross_entropy.lossfuzz_claims = {
    "name": "torchtune 0.6.1 CEWithChunkedOutputLoss", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "bfloat16", "float16"], "target_dtypes": ["int64"], "reductions": ["mean"],
    "features": ["ignore_index"], "max_spatial_dims": 1, "vocab_last": True,
    "float32_result": True,  # compute_cross_entropy: logits.float()
    "targets_flattened": True,  # labels chunked, then reshape(-1), never checked against the logits' shape
    "accept": {"false-alarm/kernel[*1-D": "the API takes (batch_size, num_tokens, vocab_size) logits only"},
}
