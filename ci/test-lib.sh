# ci/test-lib.sh - what the two tiers (ci/test.sh, ci/test-long.sh) share: the count of checks passed, and
# a line as each stage begins, so a slow run shows where its time went.
total=0
start=$(date +%s)
stage() { echo "== $* [$(( $(date +%s) - start )) s] =="; }
# ctest hides a skipped test's output: show why each one skipped (BUILD_DIR's last run).
skipped() {
    awk '/ Testing: / {name = $3} /^SKIP: / {print "skipped " name ": " substr($0, 7)}' \
        "$1/Testing/Temporary/LastTest.log"
}
# One PyTorch worker zygote for the tier (python/lossfuzz_zygote.py, docs/runners.md): every Python worker
# the tests start is forked from it, so the tier pays `import torch` once, not once per check. Without a
# python3 that has torch it says so and the workers start as usual; it ends with the tier.
zygote_start() {
    py=$(ci/find-python.sh torch 2>/dev/null) || { echo "ci: no python3 with torch: no worker zygote"; return 0; }
    zdir=$(mktemp -d)
    "$py" python/lossfuzz_zygote.py "$zdir/sock" >"$zdir/log" 2>&1 &
    zpid=$!
    trap 'kill $zpid 2>/dev/null; rm -rf "$zdir"' EXIT
    trap 'exit 1' INT TERM
    i=0
    until grep -q '^ready' "$zdir/log" 2>/dev/null; do
        i=$((i + 1))
        kill -0 $zpid 2>/dev/null && [ $i -lt 600 ] || { echo "ci: the zygote did not start:"; cat "$zdir/log"; return 1; }
        sleep 0.1
    done
    export LOSSFUZZ_ZYGOTE="$zdir/sock"
}
