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
