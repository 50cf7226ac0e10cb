#!/bin/bash
# ci/bench-gpu.sh [--iters N] [--backend cuda|sim] - the loss kernels' speed
# against the device's copy bandwidth and PyTorch's F.cross_entropy, on
# float32 [4096, 32000], bfloat16 [8192, 128256], float32 [16, 21, 512, 512]
# and float32 [64, 1000] (build/bench_gpu; PyTorch through ci/bench/torch_ce.py
# where a python3 with CUDA torch is found). Prints a table and the issue's
# goals. A benchmark that prints figures, not a test. Without a GPU it says so
# and exits 0; `--backend sim` runs small shapes on the CPU simulation (its
# figures say nothing about a GPU: a smoke run of the benchmark itself).
set -uo pipefail
cd "$(dirname "$0")/.."
iters=20 backend=cuda
while [ $# -gt 0 ]; do
    case $1 in
    --iters) iters=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    *) echo "usage: ci/bench-gpu.sh [--iters N] [--backend cuda|sim]" >&2; exit 2 ;;
    esac
done
shapes=(4096x32000:float32 8192x128256:bfloat16 16x21x512x512:float32 64x1000:float32)
[ "$backend" = sim ] && shapes=(64x1000:float32 32x5000:bfloat16 2x21x64x64:float32 4x3000:float64)
cmake -S . -B build >/dev/null && cmake --build build -j"$(nproc)" --target bench_gpu >/dev/null || {
    echo "bench-gpu: the build failed" >&2
    exit 2
}
tmp=$(mktemp -d /tmp/bench-gpu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
args=()
for s in "${shapes[@]}"; do args+=(--shape "$s"); done
build/bench_gpu --backend "$backend" --iters "$iters" "${args[@]}" | tee "$tmp/lossfuzz.tsv"
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 77 ]; then
    echo "bench-gpu: skipped: no GPU here (the figures are owed to a GPU run)"
    exit 0
fi
[ "$rc" -eq 0 ] || { echo "bench-gpu: bench_gpu failed ($rc)" >&2; exit 1; }
py=$(ci/find-python.sh torch 2>/dev/null) || py=""
if [ "$backend" = cuda ] && [ -n "$py" ]; then
    "$py" ci/bench/torch_ce.py --iters "$iters" "${shapes[@]}" | tee "$tmp/torch.tsv"
    [ "${PIPESTATUS[0]}" -eq 0 ] || : >"$tmp/torch.tsv"
else
    why="no python3 with torch"
    [ "$backend" = sim ] && why="the simulation backend"
    echo "bench-gpu: no PyTorch comparison ($why)"
    : >"$tmp/torch.tsv"
fi
echo
python3 ci/bench/table.py "$tmp/lossfuzz.tsv" "$tmp/torch.tsv"
