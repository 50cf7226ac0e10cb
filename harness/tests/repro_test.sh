#!/bin/bash
# repro_test.sh LOSSFUZZ - end to end: dumps written by real PyTorch and NumPy
# (Debian's python3-torch / python3-numpy, found by ci/find-python.sh) with the README's
# one-liners are reproduced, diagnosed with the right hint, and saved as
# regressions that pass `lossfuzz check`. Skips (77) without numpy.
set -u
lf=$1
py=$("$(dirname "$0")/../../ci/find-python.sh" numpy 2>&1) || { echo "SKIP: $py"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$py" - "$dir" <<'PY' || exit 1
import json, os, struct, sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(0)
x = rng.standard_normal((2, 5, 4, 4)).astype(np.float32)
mask = rng.integers(0, 5, size=(2, 4, 4))
void = mask.copy(); void[1, 2, 3] = 255
np.savez(f"{d}/void.npz", input=x, target=void)                                  # README one-liner (NumPy)
np.savez(f"{d}/typo.npz", input=x, target=void, ignore_idx=255)                   # misspelt option
np.savez(f"{d}/twoidx.npz", input=x, target=void, ignore_index=np.array([255, 0]))  # option of the wrong shape
np.savez(f"{d}/bce_ignore.npz", input=x, target=np.zeros_like(x), loss="binary_cross_entropy_with_logits", ignore_index=255)  # not BCE's option
# target's bytes inside input's: the safetensors format forbids overlaps
hb = json.dumps({"input": {"dtype": "F32", "shape": list(x.shape), "data_offsets": [0, x.nbytes]},
                 "target": {"dtype": "I64", "shape": list(void.shape), "data_offsets": [128, 128 + void.nbytes]}}).encode()
open(f"{d}/overlap.safetensors", "wb").write(struct.pack("<Q", len(hb)) + hb + x.tobytes())
os.makedirs(f"{d}/onebased"); np.save(f"{d}/onebased/input.npy", x); np.save(f"{d}/onebased/target.npy", mask + 1)
try:
    import torch, torch.nn.functional as F
    m = torch.from_numpy(mask).float()[:, None]
    resized = F.interpolate(m, size=(8, 8), mode="bilinear", align_corners=False)[:, 0]
    logits = torch.randn(2, 5, 8, 8)
    # README one-liner (PyTorch, no safetensors package): header, then raw bytes
    t = {"input": logits, "target": resized}; o = 0; h = {"__metadata__": {"loss": "cross_entropy"}}
    for k, v in t.items(): n = v.numel() * v.element_size(); h[k] = {"dtype": {torch.float32: "F32", torch.int64: "I64"}[v.dtype], "shape": list(v.shape), "data_offsets": [o, o + n]}; o += n
    hb = json.dumps(h).encode(); open(f"{d}/bilinear.safetensors", "wb").write(struct.pack("<Q", len(hb)) + hb + b"".join(v.contiguous().numpy().tobytes() for v in t.values()))
except ImportError:
    print("note: torch not installed; the safetensors case is skipped")
PY
passed=0 failed=0
check() { # FILE JQ-LIKE-NEEDLES...
    local file=$1 out
    shift
    out=$("$lf" repro --json "$file" 2>&1)
    for needle in "$@"; do
        if ! grep -qF -- "$needle" <<<"$out"; then
            echo "FAIL $file: no $needle in: $out"
            failed=$((failed + 1))
            return
        fi
    done
    passed=$((passed + 1))
}
check "$dir/void.npz" '"outcome":"device_assert"' '"kernel":"nll_loss2d_forward_kernel"' '"hint_id":"void_255"' '"verdict":"pass"'
check "$dir/onebased" '"outcome":"device_assert"' '"hint_id":"one_based_labels"'
[ -f "$dir/bilinear.safetensors" ] && check "$dir/bilinear.safetensors" '"error":"target_dtype"' '"hint_id":"interpolated_mask"'
mkdir -p "$dir/saved"
if "$lf" repro --save --out "$dir/saved" "$dir/void.npz" >/dev/null && saved=$(ls "$dir"/saved/*.json) &&
    "$lf" check "$saved" >/dev/null; then passed=$((passed + 1)); else echo "FAIL: --save did not write a passing regression"; failed=$((failed + 1)); fi
"$lf" repro "$dir/missing.npz" >/dev/null 2>&1; [ $? -eq 2 ] && passed=$((passed + 1)) || { echo "FAIL: missing file not exit 2"; failed=$((failed + 1)); }
head -c 100 "$dir/void.npz" >"$dir/truncated.npz"
out=$("$lf" repro "$dir/truncated.npz" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "truncated.npz" <<<"$out" && passed=$((passed + 1)) || { echo "FAIL: truncated npz: $rc $out"; failed=$((failed + 1)); }
refused() { # FILE NEEDLE: unusable input (exit 2), the message names the file and the problem
    local out rc
    out=$("$lf" repro "$1" 2>&1); rc=$?
    [ $rc -eq 2 ] && grep -qF -- "$(basename "$1")" <<<"$out" && grep -qF -- "$2" <<<"$out" && passed=$((passed + 1)) ||
        { echo "FAIL $1: wanted exit 2 and \"$2\", got $rc: $out"; failed=$((failed + 1)); }
}
refused "$dir/typo.npz" "ignore_idx: unknown array; did you mean ignore_index?"
refused "$dir/twoidx.npz" "ignore_index"
refused "$dir/twoidx.npz" "[2]"
refused "$dir/bce_ignore.npz" "ignore_index: binary_cross_entropy_with_logits takes no ignore_index"
refused "$dir/overlap.safetensors" "target: data_offsets [128, 384] overlap input's [0, 640]"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
