#!/bin/sh
# Puts the released kernels that the adapters beside this script test into
# .released/ (git-ignored) at the repository root, pinned, from PyPI, and
# nothing into the Python environment: installs go to --target folders
# with --no-deps; packages whose import needs a GPU or a build are
# downloaded and only the files an adapter loads are taken out of them.
#
#   sh examples/kernels/released/install_released.sh     (PYTHON=... to choose the interpreter)
#
#   flash_attn-2.8.3/               flash-attn 2.8.3 sdist: ops/triton/cross_entropy.py, losses/cross_entropy.py
#   cut_cross_entropy-25.1.1/       cut-cross-entropy 25.1.1
#   torchtune-0.6.1/                torchtune 0.6.1 (ce_chunked_output_loss.py is loaded by its path)
#   transformers-5.23.0/            transformers 5.23.0 and what `import transformers.loss.loss_utils` needs
#   transformer_engine-2.20.2/      transformer-engine 2.20.2 wheel: its cross-entropy's three Python files
#   unsloth-2026.10.9/              unsloth 2026.10.9 wheel: kernels/cross_entropy_loss.py, utils.py, rope_embedding.py
#   megatron_core-0.16.1/           megatron-core 0.16.1 (Megatron-LM's vocab-parallel cross-entropy)
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python3}
OUT=$ROOT/.released
DL=$OUT/dl
mkdir -p "$DL"
pip() { "$PYTHON" -m pip --disable-pip-version-check "$@"; }
fresh() { rm -rf "${OUT:?}/$1"; mkdir -p "$OUT/$1"; }

# flash-attention: the sdist (its wheels are CUDA builds); two Python files and their empty __init__s
[ -f "$DL/flash_attn-2.8.3.tar.gz" ] || pip download --no-deps --no-binary :all: -d "$DL" flash-attn==2.8.3
fresh flash_attn-2.8.3
tar xzf "$DL/flash_attn-2.8.3.tar.gz" -C "$OUT/flash_attn-2.8.3" --strip-components=1 \
    flash_attn-2.8.3/LICENSE \
    flash_attn-2.8.3/flash_attn/ops/__init__.py \
    flash_attn-2.8.3/flash_attn/ops/triton/__init__.py \
    flash_attn-2.8.3/flash_attn/ops/triton/cross_entropy.py \
    flash_attn-2.8.3/flash_attn/losses/__init__.py \
    flash_attn-2.8.3/flash_attn/losses/cross_entropy.py

fresh cut_cross_entropy-25.1.1
pip install --no-deps --target "$OUT/cut_cross_entropy-25.1.1" cut-cross-entropy==25.1.1

fresh torchtune-0.6.1
pip install --no-deps --target "$OUT/torchtune-0.6.1" torchtune==0.6.1

# transformers: the import of transformers.loss.loss_utils needs these besides .venv's torch, numpy,
# packaging and filelock (its __init__ checks regex, huggingface-hub, safetensors, pyyaml, tqdm)
fresh transformers-5.23.0
pip install --no-deps --target "$OUT/transformers-5.23.0" transformers==5.23.0 \
    huggingface_hub==2.4.0 httpx2==2.16.2 httpcore2==2.16.2 h11==0.16.0 idna==3.20 truststore==0.10.5 \
    regex==2026.11.19 pyyaml==6.0.4 safetensors==0.8.0 tqdm==4.70.1

# TransformerEngine: the wheel of its Python files (its __init__s load the compiled core, not installed):
# the cross-entropy wrapper, its Triton launcher and kernels; no __init__ but common/triton's (a docstring)
[ -f "$DL/transformer_engine-2.20.2-py3-none-any.whl" ] ||
    pip download --no-deps --only-binary :all: -d "$DL" transformer-engine==2.20.2
fresh transformer_engine-2.20.2
(cd "$OUT/transformer_engine-2.20.2" && "$PYTHON" -m zipfile -e "$DL/transformer_engine-2.20.2-py3-none-any.whl" x &&
    mkdir -p transformer_engine/pytorch/triton transformer_engine/common/triton &&
    for f in pytorch/cross_entropy.py pytorch/triton/cross_entropy.py common/triton/cross_entropy.py \
             common/triton/__init__.py; do cp "x/transformer_engine/$f" "transformer_engine/$f"; done &&
    cp -r x/transformer_engine-2.20.2.dist-info . && rm -rf x)

# unsloth: the wheel (`import unsloth` needs a GPU); the cross-entropy file and the two it takes definitions from
[ -f "$DL/unsloth-2026.10.9-py3-none-any.whl" ] ||
    pip download --no-deps --only-binary :all: -d "$DL" unsloth==2026.10.9
fresh unsloth-2026.10.9
(cd "$OUT/unsloth-2026.10.9" && "$PYTHON" -m zipfile -e "$DL/unsloth-2026.10.9-py3-none-any.whl" x &&
    mkdir -p unsloth/kernels &&
    for f in cross_entropy_loss.py utils.py rope_embedding.py; do cp "x/unsloth/kernels/$f" unsloth/kernels/; done &&
    cp -r x/unsloth-2026.10.9.dist-info . && rm -rf x)

# Megatron-LM's megatron-core: pure Python, its vocab-parallel cross-entropy imported as a package
fresh megatron_core-0.16.1
pip install --no-deps --target "$OUT/megatron_core-0.16.1" megatron-core==0.16.1


# The adapters timm_ce.py, smp_soft_ce.py, fla_ce.py and fla_fused_linear_ce.py (issue 57):
#   timm-1.0.31/                    timm 1.0.31 wheel: loss/cross_entropy.py (loaded by its path: `import timm` needs torchvision)
#   segmentation_models_pytorch-0.6.0/  its wheel: losses/soft_ce.py and losses/_functional.py (loaded by their paths)
#   fla_core-0.6.0/                 fla-core 0.6.0, the package `fla` that flash-linear-attention 0.6.0 pins
#                                   (fla.modules' fused CE and fused linear CE are in it), and einops 0.8.2, which
#                                   `import fla.modules` needs
[ -f "$DL/timm-1.0.31-py3-none-any.whl" ] || pip download --no-deps --only-binary :all: -d "$DL" timm==1.0.31
fresh timm-1.0.31
(cd "$OUT/timm-1.0.31" && "$PYTHON" -m zipfile -e "$DL/timm-1.0.31-py3-none-any.whl" x &&
    mkdir -p timm/loss && cp x/timm/loss/cross_entropy.py timm/loss/ &&
    cp -r x/timm-1.0.31.dist-info . && rm -rf x)

[ -f "$DL/segmentation_models_pytorch-0.6.0-py3-none-any.whl" ] ||
    pip download --no-deps --only-binary :all: -d "$DL" segmentation-models-pytorch==0.6.0
fresh segmentation_models_pytorch-0.6.0
(cd "$OUT/segmentation_models_pytorch-0.6.0" &&
    "$PYTHON" -m zipfile -e "$DL/segmentation_models_pytorch-0.6.0-py3-none-any.whl" x &&
    mkdir -p segmentation_models_pytorch/losses &&
    cp x/segmentation_models_pytorch/losses/soft_ce.py x/segmentation_models_pytorch/losses/_functional.py \
        segmentation_models_pytorch/losses/ &&
    cp -r x/segmentation_models_pytorch-0.6.0.dist-info . && rm -rf x)

fresh fla_core-0.6.0
pip install --no-deps --target "$OUT/fla_core-0.6.0" fla-core==0.6.0 einops==0.8.2

echo "released kernels in $OUT"
