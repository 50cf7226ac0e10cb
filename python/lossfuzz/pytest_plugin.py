"""lossfuzz in a pytest suite: installing lossfuzz is enough (the pytest11
entry point in pyproject.toml loads this plugin).

    def test_my_ce_fuzzed(lossfuzz_fuzz):
        lossfuzz_fuzz(my_cross_entropy)              # fuzzed --lossfuzz-seconds (0: replay only)

    @pytest.mark.lossfuzz_cases("lossfuzz-cases")    # each case file its own test id
    def test_my_ce_case(lossfuzz_case):
        lossfuzz_case.check(my_cross_entropy)

A failing test's message is the campaign report's entry for each finding (the
minimized case, PyTorch's and the kernel's answers, the replay command).
Campaigns are kept per test and kernel in pytest's cache
(.pytest_cache/d/lossfuzz, or --lossfuzz-out): with --lossfuzz-seconds 0 a
fuzz test replays its earlier campaign's minimized findings and fuzzes
nothing (skipped where it has no earlier campaign). The same --lossfuzz-seed,
the same cases.
"""
import glob
import hashlib
import json
import os
import re
import shlex

import pytest

from ._command import LossfuzzError, kernel_spec
from .fuzzing import check_kernel, fuzz


def pytest_addoption(parser):
    group = parser.getgroup("lossfuzz", "lossfuzz: fuzzing loss kernels against PyTorch's contract")
    group.addoption("--lossfuzz-seconds", type=float, default=None, metavar="S",
                    help="how long each lossfuzz_fuzz test fuzzes (default: the lossfuzz_seconds ini value, 10); "
                    "0: replay only, each test's earlier findings")
    group.addoption("--lossfuzz-seed", type=int, default=1, metavar="N",
                    help="the fuzzer's seed (default 1): the same seed, the same cases")
    group.addoption("--lossfuzz-out", default=None, metavar="DIR",
                    help="where each test's campaign is kept (default: pytest's cache, .pytest_cache/d/lossfuzz)")
    group.addoption("--lossfuzz-backend", default="sim", choices=("sim", "cuda"),
                    help="where the cases' tensors are: sim (the CPU, default) or cuda (the GPU)")
    parser.addini("lossfuzz_seconds", "seconds of fuzzing per lossfuzz_fuzz test (--lossfuzz-seconds)", default="10")


def pytest_configure(config):
    config.addinivalue_line("markers", "lossfuzz_cases(*paths): a test taking the lossfuzz_case fixture runs once per "
                            "lossfuzz case file in these folders or files (relative to the test's file)")


def _seconds(config, asked=None):
    given = config.getoption("--lossfuzz-seconds")
    if given is not None:
        return given
    return float(asked) if asked is not None else float(config.getini("lossfuzz_seconds"))


def pytest_report_header(config):
    return "lossfuzz: %g s of fuzzing per lossfuzz_fuzz test, seed %d" % (_seconds(config),
                                                                            config.getoption("--lossfuzz-seed"))


def _folder(text):
    """A folder name for a test id or a kernel: readable, and within file-name limits (hashed when long)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.") or "_"
    return name if len(name) <= 100 else "%s-%s" % (name[:80], hashlib.sha1(text.encode()).hexdigest()[:12])


def _out_dir(config, nodeid, spec):
    """Where a test's campaign of one kernel is kept."""
    root = config.getoption("--lossfuzz-out")
    if root is None:
        cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
        root = str(cache.mkdir("lossfuzz")) if cache is not None else os.path.join(str(config.rootpath), ".lossfuzz")
    return os.path.join(os.path.abspath(root), _folder(nodeid), _folder(spec))


def _reproduce(config, nodeid, seconds):
    args = ["pytest", "--lossfuzz-seed", str(config.getoption("--lossfuzz-seed")), "--lossfuzz-seconds", "%g" % seconds]
    if config.getoption("--lossfuzz-backend") != "sim":
        args += ["--lossfuzz-backend", config.getoption("--lossfuzz-backend")]
    return "reproduce: " + " ".join(shlex.quote(a) for a in args + [nodeid])


@pytest.fixture
def lossfuzz_fuzz(request):
    """fuzz(fn, seconds=None, **options): fuzzes fn (lossfuzz.fuzz's options:
    claims, target, jobs, corpus, world_size, backend: --lossfuzz-backend's
    when not given) for --lossfuzz-seconds (else seconds, else the ini's),
    failing the test with the report's entries; --lossfuzz-seed and the
    test's own folder stand for seed= and out=. Returns the lossfuzz.Campaign
    (None when only replaying)."""
    config, nodeid = request.config, request.node.nodeid

    def run(fn, seconds=None, **options):
        try:
            return campaign_or_replay(fn, seconds, **options)
        except LossfuzzError as exc:  # lossfuzz could not run as asked: said, without the plugin's traceback
            pytest.fail("lossfuzz could not run: %s" % exc, pytrace=False)

    def campaign_or_replay(fn, seconds=None, **options):
        spec = kernel_spec(fn)
        out = os.path.abspath(options.pop("out", None) or _out_dir(config, nodeid, spec))
        seed = options.pop("seed", config.getoption("--lossfuzz-seed"))
        options.setdefault("backend", config.getoption("--lossfuzz-backend"))
        secs = _seconds(config, seconds)
        if secs <= 0:  # replay only: what earlier campaigns of this test minimized
            if not os.path.exists(os.path.join(out, "report.json")):
                pytest.skip("lossfuzz: --lossfuzz-seconds 0 and no earlier campaign of this test to replay (%s)" % out)
            repros = sorted(glob.glob(os.path.join(glob.escape(out), "repros", "*.json")))
            results = check_kernel(fn, repros, options.get("claims"), options.get("world_size"), options["backend"])
            failed = [r for r in results if r.failed]
            if failed:
                pytest.fail("lossfuzz: %d earlier finding(s) of this test still fail on %s:\n\n%s\n\n%s" % (
                    len(failed), spec, "\n\n".join(map(str, failed)), _reproduce(config, nodeid, 0)), pytrace=False)
            return None
        campaign = fuzz(fn, seconds=secs, out=out, seed=seed, **options)
        if campaign.findings:
            pytest.fail("lossfuzz: %d finding(s) in %g s of fuzzing %s (campaign %s)\n\n%s\n\n%s" % (
                len(campaign.findings), secs, spec, out, "\n\n".join(f.entry for f in campaign.findings),
                _reproduce(config, nodeid, secs)), pytrace=False)
        return campaign

    return run


def _case_files(node):
    """The case files a lossfuzz_cases marker names, for the test (node) it marks."""
    marker = node.get_closest_marker("lossfuzz_cases")
    if marker is None or not marker.args:
        raise pytest.UsageError("%s takes lossfuzz_case: mark it @pytest.mark.lossfuzz_cases(FOLDER, ...)" %
                                node.nodeid)
    here = os.path.dirname(str(getattr(node, "path", None) or node.fspath))
    files = []
    for path in marker.args:
        path = os.path.join(here, os.fspath(path))
        files += sorted(glob.glob(os.path.join(glob.escape(path), "*.json"))) if os.path.isdir(path) else [path]
    return files


def pytest_generate_tests(metafunc):
    if "lossfuzz_case" in metafunc.fixturenames:
        files = _case_files(metafunc.definition)  # each test's param: its file and the folder's, listed once
        metafunc.parametrize("lossfuzz_case", [(f, tuple(files)) for f in files],
                             ids=[os.path.basename(f) for f in files], indirect=True)


class LossfuzzCase:
    """One case file of a lossfuzz_cases test: check(fn, claims=None,
    world_size=None) fails the test with the finding, skips it where the case
    is outside fn's claims. The folder's files are replayed in one lossfuzz
    run per kernel, the first time one of them is checked."""

    def __init__(self, path, siblings, cache, config):
        self.path, self._siblings, self._cache, self._config = path, siblings, cache, config

    def check(self, fn, claims=None, world_size=None):
        backend = self._config.getoption("--lossfuzz-backend")
        try:
            key = (kernel_spec(fn), json.dumps(claims, sort_keys=True), world_size, backend, self._siblings)
            if key not in self._cache:
                found = check_kernel(fn, self._siblings, claims, world_size, backend)
                self._cache[key] = {r.file: r for r in found}
        except LossfuzzError as exc:
            pytest.fail("lossfuzz could not run: %s" % exc, pytrace=False)
        result = self._cache[key].get(self.path)
        if result is None:
            pytest.fail("lossfuzz check gave no result for %s" % self.path, pytrace=False)
        if result.verdict == "skipped":
            pytest.skip(result.detail)
        if result.failed:
            pytest.fail("lossfuzz: %s" % result, pytrace=False)
        return result


_results = {}  # one replay per (kernel, claims, folder) for the whole session


@pytest.fixture
def lossfuzz_case(request):
    path, siblings = request.param
    return LossfuzzCase(path, siblings, _results, request.config)
