# ci/bench-lib.sh - shared by the ci/bench-*.sh scripts (sourced, not run):
# usage from the script's header comment, errors, builds. Set `bench` first.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&"$([ "${1:-2}" = 0 ] && echo 1 || echo 2)"; exit "${1:-2}"; }
die() { echo "$bench: $*" >&2; exit 2; }
build() { # ci/build-fuzz.sh ARGS: prints the build directory, or stops with its error
    local d
    d=$(ci/build-fuzz.sh "$@" | tail -1) && [ -d "$d" ] || { echo "$bench: ci/build-fuzz.sh $* failed (see above)" >&2; return 1; }
    echo "$d"
}
