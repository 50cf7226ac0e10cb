# ci/bench-lib.sh - shared by the ci/bench-*.sh scripts (sourced, not run):
# usage from the script's header comment, errors, builds, libFuzzer's flags,
# the planted bugs.
# Set `bench` first.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&"$([ "${1:-2}" = 0 ] && echo 1 || echo 2)"; exit "${1:-2}"; }
die() { echo "$bench: $*" >&2; exit 2; }
build() { # ci/build-fuzz.sh ARGS: prints the build directory, or stops with its error
    local d
    d=$(ci/build-fuzz.sh "$@" | tail -1) && [ -d "$d" ] || { echo "$bench: ci/build-fuzz.sh $* failed (see above)" >&2; return 1; }
    echo "$d"
}
libfuzzer_flags() { # TARGET: sets the array `flags` from fuzzers/TARGET.options
    local text
    text=$(ci/libfuzzer-flags.sh "$1") || die "no libFuzzer flags for $1"
    mapfile -t flags <<<"$text"
}
# The planted bugs, from fuzzers/mutants/mutants.txt (name, finding, target,
# description): `mutant_names` in order, `expected[NAME]` the finding it must
# give, `target_of NAME` its fuzz target (fuzz_class for a row without one).
read_mutants() {
    declare -gA expected mutant_target
    mutant_names=()
    local name exp tgt
    while read -r name exp tgt _; do
        case $name in ''|'#'*) continue ;; esac
        expected[$name]=$exp
        case $tgt in fuzz_*) mutant_target[$name]=$tgt ;; *) mutant_target[$name]=fuzz_class ;; esac
        mutant_names+=("$name")
    done <fuzzers/mutants/mutants.txt
}
target_of() { echo "${mutant_target[$1]}"; }
needle_of() { # MUTANT: a grep -E pattern for the planted finding in a log ("a|b": either)
    local alt pattern=""
    for alt in ${expected[$1]//|/ }; do
        case $alt in
        asan/*) alt="AddressSanitizer: ${alt#asan/}" ;;
        sanitizer/*) alt="AddressSanitizer: |runtime error: " ;; # a stray access: ASan or UBSan reports it
        *) alt="DEDUP_TOKEN: $alt\$" ;;
        esac
        pattern+=${pattern:+|}$alt
    done
    echo "$pattern"
}
is_planted() { # MUTANT SIGNATURE: whether the signature is one the planted bug gives
    [[ "|${expected[$1]}|" == *"|$2|"* ]]
}
