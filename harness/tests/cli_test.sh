#!/bin/sh
# cli_test.sh LOSSFUZZ - the command line on bad input: a clear message naming
# the file and the problem, exit 2, no crash; good files still get checked.
set -u
lf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/lf_expect.sh"

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
# a crash file whose loss byte's code names no loss of its target (3: the fused linear's) is refused, not remapped
printf '\003' >"$dir/no_loss_code"
expect 2 "names no loss of fuzz_class" "$lf" show --target fuzz_class "$dir/no_loss_code"
printf '\001' >"$dir/nll_code"
expect 0 '"loss": "nll_loss"' "$lf" show --target fuzz_class "$dir/nll_code"
expect 2 "1 passed, 0 failed, 1 unusable" "$lf" check "$dir/good.json" "$dir/truncated.json"   # the good one still ran
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

# Options: one parser (getopt_long) everywhere.
mkdir -p "$dir/empty_dir"
expect 2 "empty_dir: no .json case files" "$lf" check "$dir/empty_dir"
expect 2 "option --backend needs a value" "$lf" check --backend
expect 2 "option --out needs a value" "$lf" repro --out
expect 2 "backend \"tpu\"" "$lf" repro --backend=tpu "$dir/good.json"
expect 2 "backend \"tpu\"" "$lf" minimize --backend=tpu "$dir/good.json"
expect 0 "1 passed, 0 failed, 0 unusable" "$lf" check "$dir/good.json" --backend=sim   # options after files too
expect 2 '"verdict":"unusable","error":' "$lf" check --json "$dir/truncated.json"
expect 0 "2 wins over 1" "$lf" check --help
expect 0 "lossfuzz 0." "$lf" --version
expect 0 "lossfuzz 0." "$lf" repro --version
expect 2 "unknown option --frobnicate" "$lf" minimize --frobnicate

# Files are read as what their name or magic says, never as a fallback.
: >"$dir/empty.npz"
: >"$dir/empty.safetensors"
: >"$dir/empty.json"
printf 'PK\003' >"$dir/pk3.npz"
head -c 300 /dev/urandom | tr '{' 'x' >"$dir/random.npz"   # no '{': never JSON- or .safetensors-like (b[8] == '{')
# no '{' anywhere: no chance of a JSON-like first byte; the last (the loss byte) 0, cross_entropy's code
{ head -c 300 /dev/urandom | tr '{' 'x'; printf '\000'; } >"$dir/random.bin"
cp "$dir/good.json" "$dir/case.npz"
expect 2 "empty.npz: empty file" "$lf" repro "$dir/empty.npz"
expect 2 "empty.safetensors: empty file" "$lf" repro "$dir/empty.safetensors"
expect 2 "pk3.npz: not a .npz (zip) file" "$lf" repro "$dir/pk3.npz"
expect 2 "random.npz: not a .npz (zip) file" "$lf" repro "$dir/random.npz"
expect 2 "random.bin: not a file lossfuzz reads" "$lf" repro "$dir/random.bin"
expect 2 "case.npz: named like a .npz (zip) file, but it is a JSON case" "$lf" check "$dir/case.npz"
mkdir -p "$dir/out"
expect 2 "empty.json: empty file" "$lf" minimize --out "$dir/out" "$dir/empty.json"
expect 2 "random.bin: not a file lossfuzz reads" "$lf" minimize --out "$dir/out" "$dir/random.bin"
[ -z "$(ls "$dir/out")" ] && ok || fail "minimize wrote $(ls "$dir/out") from bad input"
# A crash file: with --target, or where an engine leaves one (the target from its path).
mkdir -p "$dir/fuzz-out/fuzz_class/findings"
cp "$dir/random.bin" "$dir/fuzz-out/fuzz_class/findings/crash-0123"
cp "$dir/random.bin" "$dir/crash-0123"
expect 0 '"loss": ' "$lf" show --target fuzz_class "$dir/random.bin"
expect 0 "elements, " "$lf" minimize --out "$dir/out" "$dir/fuzz-out/fuzz_class/findings/crash-0123"
expect 2 "crash-0123: a fuzzer's crash file: name the target" "$lf" repro "$dir/crash-0123"
mkdir -p "$dir/fuzz_classic_notes"
cp "$dir/random.bin" "$dir/fuzz_classic_notes/crash-report.txt"   # a note, not where an engine writes
expect 2 "crash-report.txt: not a file lossfuzz reads" "$lf" repro "$dir/fuzz_classic_notes/crash-report.txt"
mkdir -p "$dir/mixed"
cp "$dir/good.json" "$dir/mixed/case.json"
: >"$dir/mixed/input.npy"
expect 2 "mixed: holds both .json cases and .npy arrays" "$lf" check "$dir/mixed"
mkfifo "$dir/fifo.npz"
expect 2 "fifo.npz: not a regular file" timeout 10 "$lf" repro "$dir/fifo.npz"
expect 2 "option --json takes no value" "$lf" check --json=1 "$dir/good.json"
printf '%s' '{"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [2, 3, 0], "values": []},
 "target": {"dtype": "int64", "shape": [2, 0], "values": []}}' >"$dir/no_positions.json"
expect 0 "no_positions.json: cross_entropy" "$lf" repro "$dir/no_positions.json"   # nothing to crop: no crash

# Long cases show progress (forced here: a case this small is quiet by
# default); the size limit says what a case at the limit costs.
printf '%s' '{"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [256, 256], "values": {"init": "randn"}},
 "target": {"dtype": "int64", "shape": [256], "values": {"init": "randint", "low": 0, "high": 256}}}' >"$dir/long.json"
expect 0 "long.json: spec done in" env LOSSFUZZ_PROGRESS=always "$lf" check "$dir/long.json"
expect 2 "GiB and" "$lf" check "$dir/huge.json"

# --junit: a test case per file, a finding a <failure> with its class and the
# case's report, an unusable file an <error>; an unwritable report is refused up front.
expect 2 "1 passed, 1 failed, 1 unusable" "$lf" check --junit "$dir/junit.xml" "$dir/good.json" "$dir/wrong_expect.json" "$dir/truncated.json"
expect 0 'tests="3" failures="1" errors="1"' cat "$dir/junit.xml"
expect 0 '<failure type="expect-mismatch/ok"' cat "$dir/junit.xml"
expect 0 '<error type="unusable"' cat "$dir/junit.xml"
expect 0 'verdict    FINDING' cat "$dir/junit.xml"   # the case's report in the failure's body
expect 2 "--junit: cannot write" "$lf" check --junit "$dir/no/such/dir/junit.xml" "$dir/good.json"

finish
