#!/bin/sh
# ci/setup.sh - installs what lossfuzz needs from Debian's packages (idempotent:
# quick when everything is there). Needs root or sudo for apt-get.
#   build:  cmake, gcc, pkg-config, jansson (JSON), zlib (.npz), cmocka (unit tests),
#           DLPack (the tensors of the kernel interface, include/lossfuzz/kernel.h)
#   checks: python3-torch + python3-numpy (the PyTorch conformance run, CPU)
#   Triton kernels on the CPU: the project's own Python, .venv (Debian's python3
#           and its torch, plus a pinned triton from PyPI, --no-deps: no GPU
#           packages), whose interpreter runs them (--kernel py:...)
#   fuzzing: clang + libclang-rt-14-dev (libFuzzer, sanitizers), afl++; zip, unzip and
#           g++ for the OSS-Fuzz build (.clusterfuzzlite/build.sh: seed corpus zips)
#   style: clang-format-14 (.clang-format; docs_test checks every C file keeps it)
# CUDA (nvcc) is not a Debian package here: it is used from /usr/local/cuda when present.
set -eu
packages="cmake make gcc g++ pkg-config libjansson-dev libcmocka-dev zlib1g-dev libdlpack-dev python3 python3-venv python3-setuptools python3-torch python3-numpy clang libclang-rt-14-dev clang-format-14 afl++ zip unzip"
triton=3.6.0
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
if .venv/bin/python3 -c "import torch, triton; assert triton.__version__ == '$triton'" 2>/dev/null; then
    echo "setup: .venv has torch and triton $triton"
else
    start=$(date +%s)
    /usr/bin/python3 -m venv --system-site-packages .venv &&
        .venv/bin/pip install -q --disable-pip-version-check --no-deps "triton==$triton" &&
        echo "setup: .venv: triton $triton installed in $(($(date +%s) - start)) s ($(du -sm .venv | cut -f1) MB)" ||
        echo "setup: could not install triton $triton into .venv (no PyPI?): Triton kernels will not run on the CPU" >&2
fi
