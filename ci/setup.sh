#!/bin/sh
# ci/setup.sh - installs what lossfuzz needs from Debian's packages (idempotent:
# quick when everything is there). Needs root or sudo for apt-get.
#   build:  cmake, gcc, pkg-config, jansson (JSON), zlib (.npz), cmocka (unit tests),
#           DLPack (the tensors of the kernel interface, include/lossfuzz/kernel.h)
#   PyTorch: the project's own Python, .venv, has today's torch from PyPI, pinned
#           ($torch, with its triton and CUDA libraries: 5.4 GB, about 1.5 min; runs on
#           the CPU), numpy, pytest, a released kernel CI fuzzes (Liger-Kernel) and
#           expecttest (torch's own test inputs import it: ci/conformance/opinfo_cases.py). The
#           worker, --torch, the conformance run and the Python tests use it.
#   the older peer: .venv-debian, Debian's python3-torch 1.13 + python3-numpy plus a
#           pinned triton 3.6 (--no-deps), which CI runs the version-dependent tests under
#   Triton kernels on the CPU: either venv's triton, whose interpreter runs them
#   fuzzing: clang + libclang-rt-14-dev (libFuzzer, sanitizers), afl++; zip, unzip and
#           g++ for the OSS-Fuzz build (.clusterfuzzlite/build.sh: seed corpus zips)
#   style: clang-format-14 (.clang-format; docs_test checks every C file keeps it)
# CUDA (nvcc) is not a Debian package here: it is used from /usr/local/cuda when present.
set -eu
packages="cmake make gcc g++ pkg-config libjansson-dev libcmocka-dev zlib1g-dev libdlpack-dev python3 python3-venv python3-setuptools python3-torch python3-numpy clang libclang-rt-14-dev clang-format-14 afl++ ninja-build zip unzip"
# Pinned: what CI tests (README, "Tested versions"). torch brings its triton (3.9.0).
torch=2.15.0 numpy=2.4.6 pytest=9.2.0 liger=0.8.5 packaging=26.4 debian_triton=3.6.0 expecttest=0.3.0
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "setup: all packages present"
else
    echo "setup: installing$missing"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
    echo "setup: done"
fi
cd "$(dirname "$0")/.."
# A venv's set-up failing (no PyPI) leaves it out, saying so: the tests that need it skip.
venv_ready() { [ -x "$1/bin/python3" ] && "$1/bin/python3" -c "$2" 2>/dev/null; }
if venv_ready .venv "import torch, numpy, pytest, liger_kernel; assert torch.__version__.split('+')[0] == '$torch'"; then
    echo "setup: .venv has torch $torch"
else
    start=$(date +%s)
    rm -rf .venv # an older .venv (Debian's torch) is replaced, not patched
    /usr/bin/python3 -m venv .venv &&
        .venv/bin/pip install -q --disable-pip-version-check "torch==$torch" "numpy==$numpy" "pytest==$pytest" \
            "packaging==$packaging" &&
        .venv/bin/pip install -q --disable-pip-version-check --no-deps "liger-kernel==$liger" &&
        echo "setup: .venv: torch $torch installed in $(($(date +%s) - start)) s ($(du -sm .venv | cut -f1) MB)" ||
        echo "setup: could not install torch $torch into .venv (no PyPI?): the tests that need it skip" >&2
fi
# PyTorch's own test inputs (ci/conformance/opinfo_cases.py) import torch.testing._internal, which needs expecttest
if [ -x .venv/bin/python3 ] && ! venv_ready .venv "import expecttest"; then
    .venv/bin/pip install -q --disable-pip-version-check "expecttest==$expecttest" &&
        echo "setup: .venv: expecttest $expecttest installed" ||
        echo "setup: could not install expecttest into .venv: conformance/opinfo skips" >&2
fi
if venv_ready .venv-debian "import torch, triton; assert triton.__version__ == '$debian_triton'"; then
    echo "setup: .venv-debian has Debian's torch and triton $debian_triton"
else
    start=$(date +%s)
    rm -rf .venv-debian
    /usr/bin/python3 -m venv --system-site-packages .venv-debian &&
        .venv-debian/bin/pip install -q --disable-pip-version-check --no-deps "triton==$debian_triton" &&
        echo "setup: .venv-debian: triton $debian_triton installed in $(($(date +%s) - start)) s" ||
        echo "setup: could not install triton $debian_triton into .venv-debian (no PyPI?)" >&2
fi
