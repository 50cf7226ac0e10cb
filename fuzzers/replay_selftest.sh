#!/bin/sh
# replay_selftest.sh REPLAY - proves the replay runner notices failures
# (style.md #10): with $LOSSFUZZ_INJECT every input fails as a finding, a
# crash or a hang, and the runner must say so, name the input, and exit 1.
set -u
replay=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '' >"$dir/empty"
head -c 64 /dev/zero >"$dir/zeros"
passed=0 failed=0

# expect CODE NEEDLE [ENV=VALUE]: run the replay, check status and output.
expect() {
    code=$1 needle=$2
    shift 2
    out=$(env "$@" "$replay" --timeout 2 "$dir" 2>&1)
    rc=$?
    if [ "$rc" -eq "$code" ] && printf '%s' "$out" | grep -qF -- "$needle"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $* -> exit $rc (want $code, output containing \"$needle\"):"
        printf '%s\n' "$out" | tail -5
    fi
}

expect 0 "2 passed, 0 failed"
expect 1 "0 passed, 2 failed" LOSSFUZZ_INJECT=finding
expect 1 "DEDUP_TOKEN: selftest/injected" LOSSFUZZ_INJECT=finding
expect 1 "fatal signal while running $dir/empty" LOSSFUZZ_INJECT=crash
expect 1 "timeout after 2 s" LOSSFUZZ_INJECT=hang
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
