#!/bin/sh
# roundtrip_test.sh LOSSFUZZ DIR - every case file in DIR reads back to the same
# case: `lossfuzz show` of a file and of its own output are identical, and so
# are their explicit values (`show --values`).
set -u
lf=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
for f in "$2"/*.json; do
    if "$lf" show "$f" >"$tmp/once.json" && "$lf" show "$tmp/once.json" >"$tmp/twice.json" &&
        cmp -s "$tmp/once.json" "$tmp/twice.json" &&
        "$lf" show --values "$f" >"$tmp/v1.json" && "$lf" show --values "$tmp/once.json" >"$tmp/v2.json" &&
        cmp -s "$tmp/v1.json" "$tmp/v2.json"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $f does not round-trip"
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
