#!/bin/bash
# recorder_test.sh SRC - ci/conformance/record_cuda.py's worker protocol, run
# on torch's CPU build: every case gets a line, in order; a case that asserts
# (simulated: the worker prints CUDA's assertion line and exits, as after a
# real device-side assert) is recorded with the kernel and assertion read from
# the worker's stderr, and a fresh worker takes the next case; ok outcomes
# agree with what PyTorch 2.11 recorded on an H100; without CUDA, the recorder
# says its workers cannot start and exits 1. Skips (77) without torch.
set -u
src=$1
py=$("$src/ci/find-python.sh" torch 2>&1) || { echo "SKIP: $py"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
set_dir=$src/conformance/torch-2.11-cuda
mkdir -p "$dir/cases"
for n in 0000 0001 0002 0101 0352 0998 1025 0428; do cp "$set_dir/cases/cuda-$n.json" "$dir/cases/"; done
out=$(LOSSFUZZ_RECORDER_ASSERT_ON=cuda-0001.json "$py" "$src/ci/conformance/record_cuda.py" "$dir/cases" "$dir/out.jsonl" --device cpu 2>&1)
echo "$out"
# Where workers cannot start (no CUDA here), the recorder says so and exits 1, no traceback of its own.
no_start=ok
if ! "$py" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    err=$("$py" "$src/ci/conformance/record_cuda.py" "$dir/cases" "$dir/none.jsonl" --device cuda 2>&1)
    [ $? -eq 1 ] && grep -q "workers in a row failed to start" <<<"$err" || no_start="without CUDA: $(tail -1 <<<"$err")"
fi
"$py" - "$dir/out.jsonl" "$set_dir/expected.jsonl" "$out" "$src/ci/conformance" "$no_start" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
import compare
got = [json.loads(l) for l in open(sys.argv[1])]
want = {json.loads(l)["file"]: json.loads(l) for l in open(sys.argv[2])}
problems = [] if sys.argv[5] == "ok" else ["the recorder " + sys.argv[5]]
names = sorted(["cuda-%s.json" % n for n in "0000 0001 0002 0101 0352 0998 1025 0428".split()])
if [g["file"] for g in got] != names:
    problems.append("files %s, want %s" % ([g["file"] for g in got], names))
by = {g["file"]: g for g in got}
a = by.get("cuda-0001.json", {})
if (a.get("outcome"), a.get("kernel"), a.get("assertion")) != ("device_assert", "nll_loss_forward_reduce_cuda_kernel_2d", "t >= 0 && t < n_classes"):
    problems.append("the simulated assert was recorded as %s" % a)
if "2 worker start(s)" not in sys.argv[3]:
    problems.append("no fresh worker after the assert: %s" % sys.argv[3])
for name, g in by.items():
    w = want[name]
    if name == "cuda-0001.json" or g["outcome"] != "ok":
        if name != "cuda-0001.json" and g["outcome"] != w["outcome"]:
            problems.append("%s: %s, the H100 recorded %s" % (name, g["outcome"], w["outcome"]))
        continue
    if w["outcome"] != "ok" or not compare.values_close(w["value"], g["value"], compare.TORCH_TESTING["float32"]):
        problems.append("%s: %s, the H100 recorded %s" % (name, g, w))
print("\n".join("FAIL " + p for p in problems))
print("%d passed, %d failed" % (0 if problems else 1, len(problems)))
sys.exit(1 if problems else 0)
PY
