#!/bin/sh
# ci/corpus-stability.sh - saved inputs keep their meaning when a loss is added: every shipped seed of the byte
# format's targets (corpus/fuzz_{class,prob,linear,llm}) decodes to the same case before and after
# docs/scratch-loss.patch (a new loss, soft_margin_loss) is applied to a copy of this tree. A decoder that picks
# a loss by `byte % (the losses of its target)`, as lf_decode.c once did, fails it. Builds the copy's lossfuzz
# without CUDA (about 45 s on 2 cores).
#
#   ci/corpus-stability.sh [LOSSFUZZ]      (default: build/lossfuzz, ci/build.sh's)
set -eu
cd "$(dirname "$0")/.."
root=$PWD
lf=$(cd "$(dirname "${1:-build/lossfuzz}")" && pwd)/$(basename "${1:-build/lossfuzz}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/build" "$tmp/before" "$tmp/after"
git ls-files --cached --others --exclude-standard -z | tar --null --ignore-failed-read -T - -cf - 2>/dev/null |
    tar -xf - -C "$tmp/src"
(cd "$tmp/src" && git apply "$root/docs/scratch-loss.patch") ||
    { echo "corpus-stability: docs/scratch-loss.patch no longer applies: refresh it"; exit 1; }
{ cmake -S "$tmp/src" -B "$tmp/build" -DLF_CUDA=OFF && cmake --build "$tmp/build" --target lossfuzz -j2; } \
    >"$tmp/build.log" 2>&1 || { tail -20 "$tmp/build.log"; echo "corpus-stability: the patched tree does not build"; exit 1; }
"$tmp/build/lossfuzz" describe --json | grep -q '"soft_margin_loss"' ||
    { echo "corpus-stability: the patched lossfuzz has no soft_margin_loss"; exit 1; }
n=0 changed=0
for t in fuzz_class fuzz_prob fuzz_linear fuzz_llm; do
    for f in corpus/$t/*; do
        n=$((n + 1)) name=$t.$(basename "$f")
        "$lf" show --target $t "$f" >"$tmp/before/$name" 2>&1 ||
            { cat "$tmp/before/$name"; echo "corpus-stability: $f is no case of this lossfuzz"; exit 1; }
        "$tmp/build/lossfuzz" show --target $t "$f" >"$tmp/after/$name" 2>&1 || true
        cmp -s "$tmp/before/$name" "$tmp/after/$name" || { changed=$((changed + 1)); echo "changed: $f"; }
    done
done
echo "corpus-stability: $n seeds of 4 targets; $changed decode to another case once soft_margin_loss is added"
[ "$changed" = 0 ]
