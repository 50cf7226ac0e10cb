#!/bin/sh
# exec_test.sh LOSSFUZZ REPLAY_FUZZ_CLASS SRC - the executor from the command
# line: the regressions judged alike in process, in workers and with hard
# asserts; bad executor options and a worker run by hand are clear errors; a
# fuzz target replays its corpus through workers; real PyTorch agrees (skipped,
# saying so, without a python that has torch); a worker that crashes or hangs
# on one case fails that case, and the next file in the run still passes.
set -u
lf=$1 replay=$2 src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/lf_expect.sh"

# Each file's verdict and finding from check --json.
verdicts() { sed -n 's/^{"file":"\([^"]*\)".*"verdict":"\([^"]*\)","finding":\(null\|"[^"]*"\).*/\1 \2 \3/p'; }

regs="$src/regressions"
inproc=$("$lf" check "$regs" 2>/dev/null | tail -1)
case $inproc in *" passed, "*) ok ;; *) fail "check $regs printed no tally: $inproc" ;; esac
hard=$("$lf" check --asserts hard "$regs" 2>/dev/null | tail -1)
[ "$hard" = "$inproc" ] && ok || fail "check --asserts hard: $hard; in process: $inproc"

"$lf" check --json "$regs" 2>/dev/null | verdicts >"$dir/inproc"
[ "$(wc -l <"$dir/inproc")" -gt 50 ] && ok || fail "check --json gave $(wc -l <"$dir/inproc") verdicts"
for mode in --executor "--asserts hard"; do
    # shellcheck disable=SC2086
    "$lf" check --json $mode "$regs" 2>/dev/null | verdicts >"$dir/workers"
    diff "$dir/inproc" "$dir/workers" >"$dir/diff" && ok ||
        { fail "check --json $mode differs from in process:"; head -5 "$dir/diff"; }
done

good='{"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [2, 3], "values": {"init": "randn"}},
 "target": {"dtype": "int64", "shape": [2], "values": [0, 2]}}'
printf '%s' "$good" >"$dir/good.json"
expect 2 "--asserts must be soft or hard, not bogus" "$lf" check --asserts bogus "$dir/good.json"
expect 2 "--timeout needs a positive number of seconds, not -1" "$lf" check --timeout -1 "$dir/good.json"
expect 2 "lossfuzz worker: no protocol fds" "$lf" worker 3<&- 4>&- 5<&-

expect 0 " passed, 0 failed" env LOSSFUZZ_ASSERTS=hard "$replay" "$src/corpus/fuzz_class"

if py=$("$src/ci/find-python.sh" torch 2>&1); then
    expect 0 "$(echo "$inproc" | cut -d, -f1), 0 failed" env LOSSFUZZ_PYTHON="$py" "$lf" check --torch "$regs"
else
    echo "SKIP: check --torch over the regressions: $py"
fi

# Workers that crash or hang on a case (lf_worker.c's faults, by ignore_index):
# that case fails, the next file in the same run passes. A short watchdog for
# the hang only: a sanitizer's crash report can outlast one.
for fault in -7001:crash/reference:20 -7002:hang/reference:0.3; do
    index=${fault%%:*} finding=${fault#*:} watchdog=${fault##*:}
    finding=${finding%:*}
    printf '%s' "$good" | sed "s/^{/{\"ignore_index\": $index, /" >"$dir/a_fault.json"
    cp "$dir/good.json" "$dir/b_good.json"
    expect 1 "\"finding\":\"$finding\"" env LOSSFUZZ_WORKER_FAULTS=1 timeout 30 "$lf" check --executor --json \
        --timeout "$watchdog" "$dir/a_fault.json" "$dir/b_good.json"
    [ "$(printf '%s\n' "$out" | verdicts | sed -n 's|.*/b_good.json ||p')" = "pass null" ] && ok ||
        fail "the file after a $finding did not pass: $(printf '%s\n' "$out" | verdicts)"
    # No faults without the variable.
    expect 0 "1 passed, 0 failed" env -u LOSSFUZZ_WORKER_FAULTS "$lf" check --executor "$dir/a_fault.json"
done

finish
