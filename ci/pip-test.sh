#!/bin/sh
# ci/pip-test.sh - lossfuzz as PyTorch users get it: a fresh virtual environment
# with torch (.venv's 2.15, else Debian's 1.13), one `pip install .` from this clone (everything
# built by scikit-build-core; timed), then, from outside the tree:
#   - the installed command runs on its own files (no jansson/zlib needed, seeds
#     from <environment>/share/lossfuzz), the guard API's tests pass against the
#     installed package (lossfuzz.fuzz and check_kernel: through the plugin below);
#   - examples/pytest-project, copied out with the example kernels, run by pytest
#     through the plugin: the correct kernel's tests pass, the buggy kernels' fail
#     with their findings; again with --lossfuzz-seconds 0 (replay only), timed;
#   - the plugin's own cost per test (--lossfuzz-seconds 0, a test not using it);
#     (the same seed, the same campaign: python/tests/fuzz_api_test.py, CTest)
#   - a wheel built the same way installs into another environment and runs there.
# Prints the figures: pip install time, wheel size, plugin overhead per test.
# Without PyPI (scikit-build-core, pytest) it skips, saying so.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "pip-test: FAIL: $*"; exit 1; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$(now)"; }

# A fresh environment with torch: the project's .venv's (today's torch, ci/setup.sh), seen through a .pth,
# else Debian's (--system-site-packages).
fresh_env() {
    "$python" -m venv --system-site-packages "$1"
    torch_site=$("$src/.venv/bin/python3" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" 2>/dev/null) ||
        return 0
    echo "$torch_site" >"$("$1/bin/python3" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/torch.pth"
}
fresh_env "$tmp/venv"
venv=$tmp/venv/bin
echo "pip-test: torch $("$venv/python" -c "import torch; print(torch.__version__)")"
start=$(now)
if ! "$venv/pip" install -q --disable-pip-version-check "$src" pytest >"$tmp/pip.log" 2>&1; then
    if grep -Eqi "no matching distribution|could not find a version|connection|network is unreachable" "$tmp/pip.log"; then
        echo "SKIP: pip could not reach PyPI for scikit-build-core or pytest:"; tail -3 "$tmp/pip.log"; exit 0
    fi
    cat "$tmp/pip.log"; fail "pip install . failed"
fi
echo "pip-test: pip install . (and pytest) in $(since "$start") s: $("$venv/lossfuzz" --version)"

cd "$tmp"
[ -x "$venv/lossfuzz" ] || fail "pip install . put no lossfuzz command in the environment's bin/"
guard=$("$venv/python" -c "import lossfuzz, os; print(os.path.dirname(lossfuzz.__file__))") || fail "import lossfuzz"
guard=$guard/liblossfuzz_guard.so
if ldd "$venv/lossfuzz" "$guard" | grep -Eq 'libjansson|libz\.|not found'; then fail "the installed lossfuzz needs jansson or zlib"; fi
"$venv/lossfuzz" list-targets | grep -q fuzz_class || fail "the installed lossfuzz does not run"
LOSSFUZZ_TEST_INSTALLED=1 "$venv/python" "$src/python/tests/api_test.py" "$venv/lossfuzz" >"$tmp/api.log" 2>&1 ||
    { cat "$tmp/api.log"; fail "the guard API's tests against the installed package"; }
echo "pip-test: the installed command and the guard API's tests pass (lossfuzz.fuzz's: the pytest project below)"

# The pytest project, outside the tree, with the example kernels beside its tests.
cp -r "$src/examples/pytest-project" "$tmp/project"
cp "$src/examples/kernels/ce_python.py" "$src/examples/kernels/ce_three_bugs.py" "$tmp/project/"
cd "$tmp/project"
for seconds in 10 0; do
    start=$(now)
    rc=0
    "$venv/python" -m pytest -q --lossfuzz-seconds $seconds --junitxml="$tmp/run$seconds.xml" \
        >"$tmp/run$seconds.log" 2>&1 || rc=$?
    took=$(since "$start")
    [ "$rc" = 1 ] || { cat "$tmp/run$seconds.log"; fail "pytest --lossfuzz-seconds $seconds exited $rc, not 1"; }
    "$venv/python" "$src/ci/pip-test-expect.py" "$tmp/run$seconds.xml" "$seconds" ||
        { cat "$tmp/run$seconds.log"; fail "the pytest project's outcomes (--lossfuzz-seconds $seconds)"; }
    echo "pip-test: pytest --lossfuzz-seconds $seconds: $(tail -1 "$tmp/run$seconds.log") ($took s)"
done
# The plugin's cost per test: 1000 tests that do not use it, with and without it loaded.
mkdir "$tmp/plain" && cd "$tmp/plain"
"$venv/python" -c "print(''.join('def test_%d():\n    pass\n' % i for i in range(1000)))" >test_plain.py
cost() {
    best=
    for _ in 1 2 3; do
        start=$(now)
        "$venv/python" -m pytest -q -p no:cacheprovider "$@" >/dev/null 2>&1 || fail "pytest on plain tests"
        t=$(since "$start")
        best=$(python3 -c "import sys; print(min(float(x) for x in sys.argv[1:] if x))" "$t" $best)
    done
    echo "$best"
}
with=$(cost --lossfuzz-seconds 0) without=$(cost -p no:lossfuzz)
echo "pip-test: 1000 tests not using lossfuzz: $with s with the plugin (--lossfuzz-seconds 0), $without s without:" \
    "$(python3 -c "import sys; print('%.2f' % ((float(sys.argv[1]) - float(sys.argv[2])) / 1000 * 1e3))" "$with" "$without") ms per test"

# A wheel built this way installs elsewhere: another environment, from the wheel alone.
start=$(now)
"$venv/pip" wheel -q --disable-pip-version-check --no-deps -w "$tmp/dist" "$src" >"$tmp/wheel.log" 2>&1 ||
    { cat "$tmp/wheel.log"; fail "pip wheel ."; }
wheel=$(ls "$tmp"/dist/lossfuzz-*.whl)
echo "pip-test: the wheel $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB (built again in $(since "$start") s)"
fresh_env "$tmp/other"
"$tmp/other/bin/pip" install -q --disable-pip-version-check --no-index "$wheel" || fail "the wheel does not install"
cd /
said=$("$tmp/other/bin/lossfuzz" fuzz --seconds 2 --kernel "py:$tmp/project/ce_python.py:rows" --out "$tmp/other-run") ||
    fail "the wheel's lossfuzz exited $?: $said"
echo "$said" | grep -q "findings: 0" || fail "the wheel's lossfuzz did not fuzz the correct kernel cleanly: $said"
"$tmp/other/bin/python" -c "
import lossfuzz, torch
try:
    lossfuzz.check(torch.zeros(2, 3), torch.tensor([1, 3]))
except lossfuzz.GuardError as e:
    assert e.error == 'label_out_of_range', e
else:
    raise SystemExit('the guard passed a label of 3 for 3 classes')" || fail "the wheel's guard library"
echo "pip-test: passed"
