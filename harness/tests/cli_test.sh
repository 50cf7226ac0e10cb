#!/bin/sh
# cli_test.sh LOSSFUZZ - the command line on bad input: a clear message naming
# the file and the problem, exit 2, no crash; good files still get checked.
set -u
lf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0
failed=0

# expect CODE NEEDLE CMD...: exit status CODE and NEEDLE somewhere in the output.
expect() {
    code=$1 needle=$2
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$code" ] && printf '%s' "$out" | grep -qF -- "$needle"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $* -> exit $rc (want $code), output:"; echo "$out" | head -5
    fi
}

good='{"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [2, 3], "values": {"init": "randn"}},
 "target": {"dtype": "int64", "shape": [2], "values": [0, 2]}}'
printf '%s' "$good" >"$dir/good.json"
printf '%s' "${good%?}" >"$dir/truncated.json"
printf '%s' '{"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [4611686018427387904, 4], "values": []}, "target": {"dtype": "int64", "shape": [1], "values": [0]}}' >"$dir/huge.json"
printf '%s' '{"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [2, 3], "values": [1, 2]}, "target": {"dtype": "int64", "shape": [2], "values": [0, 2]}}' >"$dir/short.json"
printf '\000\377garbage' >"$dir/binary.json"
printf '%s' '{"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [2, 3], "values": {"init": "randn"}}, "target": {"dtype": "int64", "shape": [2], "values": [0, 3]}, "expect": "ok"}' >"$dir/wrong_expect.json"

expect 0 "1 passed, 0 failed" "$lf" check "$dir/good.json"
expect 2 "truncated.json: line" "$lf" check "$dir/truncated.json"
expect 2 "huge.json: input.shape: shape has more than" "$lf" check "$dir/huge.json"
expect 2 "has 2 numbers, the shape needs 6" "$lf" check "$dir/short.json"
expect 2 "binary.json" "$lf" check "$dir/binary.json"
expect 2 "cannot open" "$lf" check "$dir/missing.json"
expect 2 "1 passed, 1 failed" "$lf" check "$dir/good.json" "$dir/truncated.json"   # the good one still ran
expect 1 "expect-mismatch/ok" "$lf" check "$dir/wrong_expect.json"
expect 1 '"verdict":"finding"' "$lf" check --json "$dir/wrong_expect.json"
expect 2 "unknown option --frobnicate" "$lf" check --frobnicate "$dir/good.json"
expect 2 "backend \"tpu\"" "$lf" check --backend tpu "$dir/good.json"
expect 2 "no case files given" "$lf" check
expect 2 "unknown command" "$lf" frobnicate
expect 0 "usage: lossfuzz check" "$lf" check --help
expect 0 "usage: lossfuzz show" "$lf" show --help
expect 0 "commands:" "$lf" --help
expect 0 '"values": [' "$lf" show --values "$dir/good.json"
expect 2 "truncated.json" "$lf" show "$dir/truncated.json"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
