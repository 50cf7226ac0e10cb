#!/bin/bash
# ci/oss-fuzz-test.sh [libfuzzer|afl]... - the OSS-Fuzz / ClusterFuzzLite build
# convention, kept from rotting: sets the environment those builders give
# (CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE OUT SRC WORK, ASan + UBSan as their
# default "address" build), runs .clusterfuzzlite/build.sh for each engine
# (default: both), checks that $OUT holds every fuzz target with its
# TARGET_seed_corpus.zip, TARGET.dict and TARGET.options, and runs every target
# on its own seed corpus, as their check_build step does. Ends "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
engines=("$@")
[ ${#engines[@]} -gt 0 ] || engines=(libfuzzer afl)
targets=$(ci/targets.sh | tr '\n' ' ')
tmp=$(mktemp -d /tmp/oss-fuzz-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
mkdir -p "$tmp/src"
ln -s "$PWD" "$tmp/src/lossfuzz" # $SRC/lossfuzz, as the project's Dockerfile clones it
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize-address-use-after-scope"
for engine in "${engines[@]}"; do
    case $engine in
    libfuzzer) cc=clang cxx=clang++ engine_lib=-fsanitize=fuzzer cov=-fsanitize=fuzzer-no-link ;;
    afl) cc=afl-clang-fast cxx=afl-clang-fast++ engine_lib=/usr/lib/afl/libAFLDriver.a cov="" ;;
    *) echo "oss-fuzz-test: engine must be libfuzzer or afl" >&2; exit 2 ;;
    esac
    command -v "$cc" >/dev/null || { fail "$engine: $cc not found (ci/setup.sh installs it)"; continue; }
    out=$tmp/out-$engine work=$tmp/work-$engine
    mkdir -p "$out" "$work"
    flags="-O1 -fno-omit-frame-pointer -gline-tables-only $sanitize $cov"
    if ! env CC=$cc CXX=$cxx CFLAGS="$flags" CXXFLAGS="$flags" LIB_FUZZING_ENGINE="$engine_lib" \
        OUT="$out" SRC="$tmp/src" WORK="$work" .clusterfuzzlite/build.sh >"$tmp/build-$engine.log" 2>&1; then
        fail "$engine: .clusterfuzzlite/build.sh failed:"; tail -20 "$tmp/build-$engine.log"
        continue
    fi
    ok
    echo "ok   $engine: .clusterfuzzlite/build.sh built the targets into \$OUT"
    for t in $targets; do
        for f in "$t" "${t}_seed_corpus.zip" "$t.dict" "$t.options"; do
            [ -s "$out/$f" ] || { fail "$engine: \$OUT/$f missing"; continue 2; }
        done
        corpus=$tmp/corpus-$engine-$t
        mkdir -p "$corpus" && unzip -q -o "$out/${t}_seed_corpus.zip" -d "$corpus"
        n=$(ls "$corpus" | wc -l)
        if [ "$engine" = libfuzzer ]; then # -runs=0: each seed once, as check_build does
            (cd "$out" && "./$t" -runs=0 "$corpus") >"$tmp/run.log" 2>&1
            rc=$?
        else # AFL++'s driver outside afl-fuzz runs the files it is given
            rc=0
            for seed in "$corpus"/*; do "$out/$t" <"$seed" >"$tmp/run.log" 2>&1 || { rc=$?; break; }; done
        fi
        if [ "$rc" -eq 0 ]; then ok; echo "ok   $engine: $t ran its $n seeds"; else fail "$engine: $t on its seeds: exit $rc"; tail -5 "$tmp/run.log"; fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
