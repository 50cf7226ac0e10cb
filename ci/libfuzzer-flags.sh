#!/bin/sh
# ci/libfuzzer-flags.sh TARGET
# Prints libFuzzer's flags for TARGET, one per line, from the [libfuzzer]
# section of fuzzers/TARGET.options: the one place they are set, read the same
# way by OSS-Fuzz and by every campaign and benchmark here (ci/fuzz.sh,
# ci/bench-*.sh). `dict = NAME` becomes -dict=<absolute path of fuzzers/NAME>.
# Use: text=$(ci/libfuzzer-flags.sh fuzz_class) || exit 2; mapfile -t flags <<<"$text"
# (a process substitution would hide its exit status).
set -eu
cd "$(dirname "$0")/.."
target=${1:?usage: ci/libfuzzer-flags.sh TARGET}
options=fuzzers/$target.options
[ -f "$options" ] || { echo "libfuzzer-flags: no $options" >&2; exit 2; }
awk -v dir="$PWD/fuzzers" '
    /^[ \t]*(#|;|$)/ { next }
    /^[ \t]*\[/ { section = $0; gsub(/[][ \t]/, "", section); next }
    section == "libfuzzer" {
        eq = index($0, "=")
        if (!eq) { printf "libfuzzer-flags: %s: not key = value: %s\n", FILENAME, $0 > "/dev/stderr"; bad = 1; next }
        key = substr($0, 1, eq - 1); value = substr($0, eq + 1)
        gsub(/^[ \t]+|[ \t]+$/, "", key); gsub(/^[ \t]+|[ \t]+$/, "", value)
        if (key == "dict") value = dir "/" value
        print "-" key "=" value
    }
    END { exit bad }
' "$options"
