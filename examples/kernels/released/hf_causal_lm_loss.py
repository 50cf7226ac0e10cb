"""Hugging Face transformers 5.23.0's causal-LM loss
(`transformers.loss.loss_utils.ForCausalLMLoss`, over its
`fixed_cross_entropy`), from PyPI, installed with its import's dependencies
into .released/ (--no-deps: huggingface_hub, regex, pyyaml, safetensors,
tqdm, httpx2 and theirs; torch, numpy, packaging, filelock are .venv's).
Its claims are written from its code: logits [..., vocab_size] upcast
(`logits.float()`: a float32 loss for bfloat16 / float16, and float64
computed in float32, so not claimed), the vocabulary last, viewed as
[-1, vocab_size] with the labels viewed as [-1] (any target shape of one
label per row, unchecked); ignore_index; the mean, or, given
num_items_in_batch, the sum divided by it (lossfuzz's n_items); the extra
kwargs (weight, label_smoothing) are dropped by fixed_cross_entropy, so not
claimed. The adapter passes the labels as `shift_labels`, the documented
way to give labels already shifted, so that the loss is F.cross_entropy's
on the same rows (without it, it shifts them by one token itself).

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --target fuzz_llm --seconds 60 \\
        --kernel py:examples/kernels/released/hf_causal_lm_loss.py:cross_entropy"""

import released_package

released_package.pinned_first("transformers-5.23.0")  # else the environment's own

import transformers  # noqa: E402
from transformers.loss.loss_utils import ForCausalLMLoss  # noqa: E402

assert transformers.__version__ == "5.23.0", transformers.__version__


def cross_entropy(input, target, ignore_index=-100, reduction="mean", num_items_in_batch=0.0):
    assert reduction == "mean"  # its claims: mean, or sum / num_items_in_batch
    return ForCausalLMLoss(input, target, vocab_size=input.shape[-1],
                           num_items_in_batch=num_items_in_batch if num_items_in_batch else None,
                           ignore_index=ignore_index, shift_labels=target)


cross_entropy.lossfuzz_claims = {
    "name": "transformers 5.23.0 ForCausalLMLoss", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "bfloat16", "float16"], "target_dtypes": ["int64"], "reductions": ["mean"],
    "features": ["ignore_index"], "vocab_last": True,
    "options": {"n_items": "num_items_in_batch"},
    "float32_result": True,  # logits.float()
    "targets_flattened": True,  # shift_labels.view(-1)
}
