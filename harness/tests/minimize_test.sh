#!/bin/sh
# minimize_test.sh LOSSFUZZ REGRESSIONS - `lossfuzz minimize` keeps a case's
# signature, writes a regression that passes `lossfuzz check`, and running it
# on its own output changes nothing; cut short by --max-time, it still writes one.
set -u
lf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
for f in one_based_labels void_255_without_ignore_index bilinear_resized_mask smoothing_weight_ignore_eps_0_1 \
    mask_extra_channel_dim bce_pos_weight_and_weight; do
    rm -rf "$dir/out" && mkdir "$dir/out"
    first=$("$lf" minimize --out "$dir/out" "$2/$f.json") || { echo "FAIL $f: minimize failed"; failed=$((failed + 1)); continue; }
    out=$(ls "$dir"/out/*.json)
    second=$("$lf" minimize --out "$dir/out" "$out")
    sig1=$(echo "$first" | cut -d: -f2) sig2=$(echo "$second" | cut -d: -f2)
    if [ "$sig1" = "$sig2" ] && echo "$second" | grep -q "(unchanged)" && "$lf" check "$out" >/dev/null; then
        passed=$((passed + 1))
    else
        echo "FAIL $f: $first / $second"
        failed=$((failed + 1))
    fi
done
# A time bound cut short: the case so far is written, the line says so, and
# ci/fuzz.sh's parse of the line still finds the signature and the file.
rm -rf "$dir/out" && mkdir "$dir/out"
line=$("$lf" minimize --max-time 0.001 --out "$dir/out" "$2/one_based_labels.json" 2>/dev/null | tail -1)
parsed=$(sed -n 's/^[^:]*: \([^:]*\): .* -> \([^ ]*\).*$/\1 \2/p' <<EOF2
$line
EOF2
)
if echo "$line" | grep -q "(cut short at --max-time 0.001 s)$" && [ -f "${parsed#* }" ] && "$lf" check "${parsed#* }" >/dev/null; then
    passed=$((passed + 1))
else
    echo "FAIL --max-time: '$line' (parsed: '$parsed')"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
