# lf_expect.sh - what the command-line test scripts share (sourced): the
# counts, ok/fail, expect, and the closing tally and status.
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect CODE NEEDLE CMD...: exit status CODE and NEEDLE somewhere in the output.
expect() {
    code=$1 needle=$2
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$code" ] && printf '%s' "$out" | grep -qF -- "$needle"; then
        ok
    else
        fail "$* -> exit $rc (want $code and \"$needle\"), output:"; echo "$out" | head -5
    fi
}

# The last line of a script: the tally, and failure when anything failed.
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
