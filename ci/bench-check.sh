#!/bin/sh
# ci/bench-check.sh [LOSSFUZZ] [CASES] - throughput of `lossfuzz check` on the
# CPU simulation: generates CASES random cases (ci/conformance/torch_cases.py,
# needs python3-torch), times `lossfuzz check --json` over them five times and
# prints the median in cases/s. A benchmark that prints figures, not a test.
set -eu
lf=${1:-build/lossfuzz}
n=${2:-2000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$("$(dirname "$0")/find-python.sh")" "$(dirname "$0")/conformance/cpu_torch.py" --dry-run --cases "$n" --workdir "$dir" >/dev/null || true
count=$(ls "$dir"/*.json | wc -l)
times=""
for i in 1 2 3 4 5; do
    start=$(date +%s.%N)
    "$lf" check --json "$dir"/*.json >/dev/null || true
    end=$(date +%s.%N)
    times="$times $(awk "BEGIN { print $end - $start }")"
done
median=$(printf '%s\n' $times | sort -n | sed -n 3p)
awk -v n="$count" -v t="$median" -v lf="$lf" \
    'BEGIN { printf "lossfuzz check (%s): %d cases, median of 5 runs %.3fs, %.0f cases/s\n", lf, n, t, n / t }'
