#!/bin/bash
# repro_save_test.sh LOSSFUZZ - `repro --save` and `minimize` on a user's dump
# keep what was diagnosed: the saved regression has the batch's outcome, error
# class and hint (even where one position of the batch shows another hint), the
# input's rank and classes, and no empty dim; it records the hint in
# `expect_hint` and passes `lossfuzz check`. A
# batch PyTorch accepts is not saved (exit 2, nothing written). Dumps are
# written with NumPy (Debian's python3-numpy, found by ci/find-python.sh); skips (77)
# without it.
set -u
lf=$1
py=$("$(dirname "$0")/../../ci/find-python.sh" numpy 2>&1) || { echo "SKIP: $py"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$py" - "$dir" <<'PY' || exit 1
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(1)
x = rng.standard_normal((2, 5, 4, 4)).astype(np.float32)
mask = rng.integers(0, 5, size=(2, 4, 4))
# A float mask after a bilinear resize: position 0 holds a whole class id, later ones do not.
interp = mask.astype(np.float32); interp[0, 0, 0] = 2.0; interp[1, 2, 2] = 1.5
np.savez(f"{d}/interp_float.npz", input=x, target=interp)
# A void-255 mask resized bilinearly, then cast: blended labels (63, 191) beside 255; the first bad one is 63.
void = mask.copy(); void[0, 1, 1] = 63; void[0, 1, 2] = 255; void[1, 3, 3] = 191; void[1, 3, 2] = 255
np.savez(f"{d}/bilinear_void.npz", input=x, target=void)
# int32 labels for 2-D logits: a host error that an empty batch shows too.
np.savez(f"{d}/int32.npz", input=rng.standard_normal((4, 3)).astype(np.float32), target=np.array([0, 2, 1, 0], dtype=np.int32))
np.savez(f"{d}/fine.npz", input=x, target=mask)
PY
passed=0 failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
diagnosis() { # FILE: outcome/error/hint as repro --json prints them for the whole batch
    "$lf" repro --json "$1" 2>/dev/null | "$py" -c 'import json,sys
r = json.loads(sys.stdin.readline()); s, g = r["spec"], r["guard"]
print("%s/%s%s" % (s["outcome"], s["error"] or "none", "/" + g["hint_id"] if g.get("hint_id") else ""))'
}
# SAVED INPUT: the saved case keeps the signature, rank and classes, no dim is empty, and it passes.
check_saved() {
    local saved=$1 input=$2 want=$3
    "$py" - "$saved" "$input" "$want" <<'PY' || return 1
import json, sys
import numpy as np
case = json.load(open(sys.argv[1])); x = np.load(sys.argv[2])["input"]; want = sys.argv[3]
shape = case["input"]["shape"]
problems = []
if not case["note"].endswith("signature " + want): problems.append("note %r, want signature %s" % (case["note"], want))
hint = want.split("/")[2] if want.count("/") == 2 else None
if case.get("expect_hint") != hint: problems.append("expect_hint %r, want %r" % (case.get("expect_hint"), hint))
if len(shape) != x.ndim or shape[1] != x.shape[1]: problems.append("input %s, batch %s: rank or classes changed" % (shape, list(x.shape)))
if 0 in shape or 0 in case["target"]["shape"]: problems.append("an empty dim: %s, %s" % (shape, case["target"]["shape"]))
if problems: sys.exit("; ".join(problems))
PY
    "$lf" check "$saved" >/dev/null 2>&1 || { echo "$saved fails lossfuzz check"; return 1; }
}
for name in interp_float bilinear_void int32; do
    file=$dir/$name.npz
    want=$(diagnosis "$file")
    for how in repro minimize; do
        out=$dir/saved-$name-$how
        mkdir -p "$out"
        if [ $how = repro ]; then "$lf" repro --save --out "$out" "$file" >/dev/null 2>&1; else "$lf" minimize --out "$out" "$file" >/dev/null 2>&1; fi
        saved=$(ls "$out"/*.json 2>/dev/null | head -1)
        [ -n "$saved" ] || { fail "$how $name: nothing saved"; continue; }
        if why=$(check_saved "$saved" "$file" "$want" 2>&1); then passed=$((passed + 1)); else fail "$how $name ($want): $why"; fi
    done
done
mkdir -p "$dir/fine-out"
out=$("$lf" repro --save --out "$dir/fine-out" "$dir/fine.npz" 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q "nothing to keep" <<<"$out" && [ -z "$(ls "$dir/fine-out")" ]; then passed=$((passed + 1)); else fail "fine batch saved or not said: exit $rc, $(ls "$dir/fine-out") $out"; fi
"$lf" minimize --out "$dir/fine-out" "$dir/fine.npz" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && [ -z "$(ls "$dir/fine-out")" ] && passed=$((passed + 1)) || fail "minimize saved a fine batch (exit $rc)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
