#!/bin/sh
# ci/install-test.sh [BUILD] - lossfuzz as a package: installs BUILD (default
# build/) into a scratch prefix with `cmake --install`, then builds
# examples/cmake-consumer out of tree against it (find_package(lossfuzz),
# lossfuzz::kernel, lossfuzz_add_kernel_test) and runs its CTest: a short
# `lossfuzz fuzz` of the consumer's kernel and a replay of its regressions by
# the installed lossfuzz, which finds its Python worker and seed corpora under
# share/lossfuzz. Also checks the pkg-config file. Ends "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
tmp=$(mktemp -d /tmp/install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. harness/tests/lf_expect.sh
prefix=$tmp/prefix
expect 0 "Installing" cmake --install "$build" --prefix "$prefix"
[ -x "$prefix/bin/lossfuzz" ] && [ -f "$prefix/include/lossfuzz/kernel.h" ] &&
    [ -f "$prefix/lib/cmake/lossfuzz/lossfuzzConfig.cmake" ] && [ -d "$prefix/share/lossfuzz/corpus/fuzz_class" ] &&
    ok || fail "the install tree lacks the command, the header, the CMake package or the corpora"
# pkg-config's flags compile against the header (the prefix is relative to the .pc file: any --prefix)
printf '#include <lossfuzz/kernel.h>\nunsigned abi = LOSSFUZZ_KERNEL_ABI;\n' >"$tmp/uses_header.c"
# shellcheck disable=SC2046
cc $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags lossfuzz) -c "$tmp/uses_header.c" -o "$tmp/uses_header.o" &&
    ok || fail "pkg-config --cflags lossfuzz does not reach <lossfuzz/kernel.h>"
# the consumer, out of tree, sees only the install prefix (not this source tree's build)
expect 0 "Build files have been written" cmake -S examples/cmake-consumer -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix"
expect 0 "my_ce" cmake --build "$tmp/consumer"
expect 0 "100% tests passed" ctest --test-dir "$tmp/consumer" --output-on-failure
expect 0 "my_ce/fuzz" ctest --test-dir "$tmp/consumer" -N
# a new project's empty regressions folder: that test skips, saying so, and nothing fails
mkdir -p "$tmp/no-repros-yet"
expect 0 "Build files have been written" cmake -S examples/cmake-consumer -B "$tmp/consumer2" -DCMAKE_PREFIX_PATH="$prefix" \
    -DREGRESSIONS_DIR="$tmp/no-repros-yet"
expect 0 "my_ce" cmake --build "$tmp/consumer2"
expect 0 "my_ce/regressions (Skipped)" ctest --test-dir "$tmp/consumer2"
# the installed lossfuzz finds its own files: moved away from the source tree's
expect 0 "fuzz_class: " env -u LOSSFUZZ_PYTHON_WORKER "$prefix/bin/lossfuzz" fuzz --seconds 1 --out "$tmp/findings"
finish
