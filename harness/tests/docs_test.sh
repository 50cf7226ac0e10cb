#!/bin/bash
# docs_test.sh LOSSFUZZ SRC - the docs say what the code does: every ci/ script
# the README and its task pages (docs/*.md) name exists; every option a page's
# `lossfuzz COMMAND [...]` synopsis shows is in that command's --help, and the
# reverse; docs/case-format.md's input ranks match LF_MAX_DIMS, its error classes
# and hints are lossfuzz list-errors' and list-hints'; ci/find-python.sh picks a
# python3 with torch over one on PATH without it; fuzzers/README.md's table of
# targets is `lossfuzz list-targets`, docs/finding-classes.md's `list-findings`.
set -u
lf=$1 src=$2
passed=0 failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }
readmes="$src/README.md $src/fuzzers/README.md $src/docs/*.md"  # the README and its task pages
docs=$src/docs

for script in $(grep -ohE '\bci/[a-z_.-]+\.(sh|py)' $readmes | sort -u); do
    [ -f "$src/$script" ] && ok || fail "README names $script, which does not exist"
done
# An option a script is told to take must be one it parses.
grep -rhoE 'ci/[a-z-]+\.sh --[a-z-]+' "$src/ci" $readmes | sort -u | while read -r script opt; do
    grep -q -- "$opt)" "$src/$script" || echo "FAIL $script is given $opt, which it does not take"
done | grep FAIL && failed=$((failed + 1)) || ok

for cmd in check show repro minimize encode; do
    synopsis=$(grep -ohE "lossfuzz $cmd \[[^\`]*" $readmes | head -1)
    [ -n "$synopsis" ] || { fail "no page shows lossfuzz $cmd's synopsis"; continue; }
    help=$("$lf" $cmd --help)
    for opt in $(grep -oE -- '--[a-z]+' <<<"$synopsis" | sort -u); do
        grep -q -- "$opt" <<<"$help" && ok || fail "README shows $cmd $opt; lossfuzz $cmd --help lacks it"
    done
    for opt in $(grep -oE -- '^ *--[a-z]+' <<<"$help" | tr -d ' ' | sort -u); do
        grep -q -- "$opt" <<<"$synopsis" && ok || fail "lossfuzz $cmd takes $opt; the README's synopsis lacks it"
    done
done

# The table of fuzz targets is their one list's (harness/model/bytes/lf_targets.def), row for row.
table=$(sed -n 's/^| `\(fuzz_[a-z_]*\)` | \(.*\) |$/\1 \2/p' "$src/fuzzers/README.md")
listed=$("$lf" list-targets | sed 's/  */ /')
[ -n "$listed" ] && [ "$table" = "$listed" ] && ok ||
    fail "fuzzers/README.md's table of targets is not lossfuzz list-targets' (harness/model/bytes/lf_targets.def): $(diff <(echo "$table") <(echo "$listed") | tr '\n' ' ')"

# The table of finding classes is their one list's (harness/oracle/lf_findings.def), and every
# class the code builds ("property/...") is in it.
table=$(sed -n 's/^| `\([a-z/-]*\)` | \([^|]*\) | \(.*\) |$/\1 \2 | \3/p' "$docs/finding-classes.md")
listed=$("$lf" list-findings | sed 's/   */ /')
[ -n "$listed" ] && [ "$table" = "$listed" ] && ok ||
    fail "docs/finding-classes.md's table of finding classes is not lossfuzz list-findings': $(diff <(echo "$table") <(echo "$listed") | tr '\n' ' ')"
properties=$("$lf" list-findings | cut -d' ' -f1)
for cls in $(grep -rhoE '"[a-z]+(-[a-z]+)*/' "$src/harness/oracle" "$src/harness/runtime/under_test" "$src/fuzzers" --include=*.c | tr -d '"/' | sort -u); do
    grep -qx -- "$cls" <<<"$properties" && ok || fail "the code builds finding class $cls/..., which lf_findings.def lacks"
done

# Every C, CUDA and header file keeps .clang-format's style (ci/setup.sh installs clang-format-14).
cf=$(command -v clang-format-14 || command -v clang-format)
if [ -n "$cf" ] && [ -d "$src/.git" ]; then
    unformatted=$(cd "$src" && git ls-files '*.c' '*.h' '*.cu' '*.inc' | xargs "$cf" --dry-run 2>&1 | grep -o '^[^:]*:[0-9]*' | sort -u | head -5)
    [ -z "$unformatted" ] && ok || fail "not in .clang-format's style (clang-format -i FILE): $unformatted"
else
    echo "SKIP: the style check needs clang-format and a git checkout"
fi

long=$(cd "$src" && git ls-files '*.c' '*.h' '*.cu' '*.inc' 2>/dev/null | xargs -r awk 'length($0) > 120 {print FILENAME ":" FNR}' | head -5)
[ -z "$long" ] && ok || fail "lines past 120 characters (comments too): $long"

# The harness's floors hold: no include runs up a floor, no two folders include each other.
layers=$(python3 "$src/ci/layers.py" "$src" "$(dirname "$lf")") && ok || fail "the floors of docs/architecture.md do not hold: $layers"

# docs/architecture.md stays true: every file or folder it names exists.
for path in $(grep -ohE '`[a-z_.]+/[A-Za-z0-9_./-]*`' "$src/docs/architecture.md" | tr -d '`' | sort -u); do
    case $path in shared/* | *NAME*) continue ;; esac # the starting sketch (outside the repository), placeholders
    [ -e "$src/$path" ] && ok || fail "docs/architecture.md names $path, which does not exist"
done

dims=$(sed -n 's/^#define LF_MAX_DIMS \([0-9]*\).*/\1/p' "$src/harness/model/case/lf_case.h")
grep -q "0-D to $dims-D" "$docs/case-format.md" && ok || fail "docs/case-format.md's shape ranks do not say 0-D to $dims-D (LF_MAX_DIMS)"

# Error classes, hints and warnings: README's lists are lossfuzz list-errors'
# and list-hints' (harness/model/case/lf_errors.def, harness/runtime/guard/lf_hints.def), row
# for row, and every one the C code and the Python worker name is listed.
table=$(sed -n 's/^| `\([a-z_0-9]*\)` | \([a-z]*\) | \([a-z-]*\) | \(.*\) |$/\1 \2 \3 \4/p' "$docs/case-format.md")
listed=$("$lf" list-errors | sed 's/  */ /g')
[ -n "$listed" ] && [ "$table" = "$listed" ] && ok ||
    fail "docs/case-format.md's table of error classes is not lossfuzz list-errors': $(diff <(echo "$table") <(echo "$listed") | tr '\n' ' ')"
for kind in hint warning; do
    heading=$([ $kind = hint ] && echo '^Guard hints' || echo '^Guard warnings')
    bullets=$(sed -n "/$heading/,/^[A-Z#]/p" "$docs/case-format.md" | sed -n 's/^- `\([a-z_0-9]*\)`: \(.*\)$/\1 \2/p')
    listed=$("$lf" list-hints | sed -n "s/^$kind  *\([a-z_0-9]*\)  *\(.*\)$/\1 \2/p")
    [ -n "$listed" ] && [ "$bullets" = "$listed" ] && ok ||
        fail "docs/case-format.md's ${kind}s are not lossfuzz list-hints': $(diff <(echo "$bullets") <(echo "$listed") | tr '\n' ' ')"
done
errors=$("$lf" list-errors | cut -d' ' -f1)
for e in $( (grep -rhoE '(lf_result_(set_)?error\([a-z_>&-]+\[?[a-z]*\]?, |reject\(r, |path_error\([a-z&]+(\[i\])?, |->error, sizeof [a-z]+->error, )"[a-z_0-9]+"' \
    "$src/harness" "$src/kernels" "$src/fuzzers" --include=*.c | grep -oE '"[a-z_0-9]+"$'
    grep -rh 'error' "$src/harness" --include=*.c | grep -oE '"[a-z_0-9]+" : "[a-z_0-9]+"' | grep -oE '"[a-z_0-9]+"'
    sed -n '/^ERROR_TABLE/,/^]/p' "$src/python/lossfuzz_torch.py" | grep -oE '"[a-z_0-9]+", (None|lambda)' | grep -oE '^"[a-z_0-9]+"'
    ) | tr -d '"' | sort -u); do
    [ "$e" = unsupported ] && continue # the Python worker's outcome for a dtype torch does not implement, not an error
    grep -qx -- "$e" <<<"$errors" && ok || fail "the code names error class $e, which lf_errors.def lacks"
done
ids=$("$lf" list-hints | awk '{print $2}')
for id in $(grep -rhoE '(set_hint\(r, |reject\(r, "[a-z_]+", |lf_guard_warn\(r, )"[a-z_0-9]+"' "$src/harness/runtime/guard" | grep -oE '"[a-z_0-9]+"$' | tr -d '"' | sort -u); do
    grep -qx -- "$id" <<<"$ids" && ok || fail "the guard names hint or warning $id, which lf_hints.def lacks"
done

# A python3 on PATH without torch must not hide the one that has it.
torch_py=$("$src/ci/find-python.sh" torch 2>/dev/null)
if [ -n "$torch_py" ]; then
    fake=$(mktemp -d)
    printf '#!/bin/sh\nexit 1\n' >"$fake/python3"
    chmod +x "$fake/python3"
    got=$(PATH="$fake:$PATH" "$src/ci/find-python.sh" torch 2>/dev/null)
    rm -rf "$fake"
    [ "$got" = "$torch_py" ] && ok || fail "find-python.sh picked '$got' with a torch-less python3 first on PATH"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
