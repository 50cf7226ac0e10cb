#!/bin/sh
# package_test.sh PYTHON LOSSFUZZ GUARD_LIB - `pip install ./python` as a user
# does it: a fresh virtual environment over PYTHON's site packages (its torch),
# the package built from the library lossfuzz's CMake build made (no compiler,
# no download: --no-build-isolation uses the system's setuptools), then the API
# tests against the installed package, from outside the source tree.
set -eu
py=$1 lf=$2 lib=$3
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" -m venv --system-site-packages "$tmp/venv"
LOSSFUZZ_GUARD_LIB=$lib "$tmp/venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation "$src"
rm -rf "$src/build" "$src/lossfuzz.egg-info" # what setuptools leaves in the source tree
cd "$tmp"
"$tmp/venv/bin/python" -c "import lossfuzz, os; assert os.path.exists(os.path.join(os.path.dirname(lossfuzz.__file__), 'liblossfuzz_guard.so'))"
LOSSFUZZ_TEST_INSTALLED=1 "$tmp/venv/bin/python" "$src/tests/api_test.py" "$lf"
