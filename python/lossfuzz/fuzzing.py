"""Fuzzing a kernel from Python: lossfuzz.fuzz runs `lossfuzz fuzz` (the
engine-free fuzzer) on a callable and returns the campaign's findings;
lossfuzz.check_kernel replays case files through `lossfuzz check`. The kernel
keeps the `--kernel py:` contract (python/lossfuzz_kernel.py): F.cross_entropy's
signature, its claims in `lossfuzz_claims` or given here.

    campaign = lossfuzz.fuzz(my_kernel, seconds=30)
    for f in campaign.findings:
        print(f.signature, f.replay)
    campaign.raise_for_findings()      # FindingsError: the report's entries
"""
import dataclasses
import json
import os
import re
import shlex
import tempfile
from typing import List, Optional

from ._command import LossfuzzError, kernel_spec, run

__all__ = ["fuzz", "check_kernel", "Finding", "Campaign", "CaseResult", "FindingsError", "LossfuzzError"]


@dataclasses.dataclass
class Finding:
    """One entry of a campaign's report (a row of its report.json): one cause,
    its variants (the signatures the fuzzer met) folded in."""
    signature: str  # its smallest repro's, e.g. value-mismatch/kernel[cross_entropy,float32,mean,ignored]
    finding_class: str  # e.g. value-mismatch/kernel
    harm: str
    hits: int
    first_s: float  # seconds into the campaign
    case: dict  # the minimized case, as lossfuzz's JSON case files hold it
    case_file: str  # that case's file, for check_kernel and a regressions folder
    pytorch: str  # what PyTorch does on it
    kernel: str  # what the kernel did
    detail: str
    replay: str  # the command that replays it
    accepted: Optional[str]  # the claim that explains it (an accepted deviation), else None
    entry: str  # the campaign report's entry, as report.md gives it
    cause: str = ""  # what the findings need ("needs: reduction mean; ..."), the check missing, or the claim
    variants: List[dict] = dataclasses.field(default_factory=list)  # {signature, hits, first_s, file}, first found first
    flaky: Optional[str] = None  # what each replay gave, where the repro does not replay the same way
    script: str = ""  # its standalone plain-torch script (`lossfuzz export`), where one was written

    def __str__(self):
        return self.entry


class FindingsError(AssertionError):
    """A campaign or a replay found the kernel breaking PyTorch's contract (or,
    for check_kernel, a case file lossfuzz could not use)."""

    def __init__(self, findings, text):
        self.findings = findings
        super().__init__(text)


@dataclasses.dataclass
class Campaign:
    """What lossfuzz.fuzz found: findings (failing) and accepted deviations
    (explained by the kernel's claims), most harmful first."""
    findings: List[Finding]
    accepted: List[Finding]
    out: str  # the campaign's folder: report.md, report.json, repros/
    report: str  # report.md
    summary: str  # lossfuzz fuzz's last line (cases, rates, findings)
    seed: int

    def raise_for_findings(self):
        if self.findings:
            raise FindingsError(self.findings, "%d finding(s) (seed %d; report %s):\n\n%s" % (
                len(self.findings), self.seed, os.path.join(self.out, "report.md"),
                "\n\n".join(f.entry for f in self.findings)))


def _entries(report_md):
    """report.md's entries by signature: from '### N. `SIG`' to the next heading."""
    entries, sig, lines = {}, None, []
    for line in report_md.splitlines() + ["## end"]:
        if line.startswith("#"):
            if sig:
                entries[sig] = "\n".join(lines).strip()
            m = re.match(r"### \d+\. `([^`]*)`", line)
            sig, lines = (m.group(1) if m else None), [line]
        elif sig:
            lines.append(line)
    return entries


def _with_script(entry, script):
    """A report's entry, and the plain-torch script that shows it to anyone (no lossfuzz needed)."""
    return entry + ("\n- script (plain torch, exit 1 while the bug shows): `python %s`" % script if script else "")


def _case_of(path):
    """A finding's case, whole (the report's line is cut when long); {} when unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, TypeError, ValueError):
        return {}


def _claims_prefix(claims):
    """What a replay command needs before it for claims given to the API (the worker's $LOSSFUZZ_CLAIMS)."""
    return "" if claims is None else "LOSSFUZZ_CLAIMS=%s " % shlex.quote(json.dumps(claims))


def _kernel_args(spec, backend, world_size):
    """How `lossfuzz fuzz` and `lossfuzz check` are given the kernel: where it runs, on how many ranks."""
    args = ["--kernel", spec] + (["--backend", backend] if backend != "sim" else [])
    return args + (["--world-size", str(int(world_size))] if world_size else [])


def fuzz(fn, seconds=10.0, claims=None, jobs=1, corpus=None, out=None, seed=1, target=None, world_size=None,
         backend="sim", raise_on_finding=False) -> Campaign:
    """Fuzzes fn (a module-level callable, or a --kernel string: LIB.so,
    py:MODULE:FUNCTION) for `seconds` with lossfuzz's engine-free fuzzer
    (`lossfuzz fuzz`): every distinct finding minimized, the campaign kept in
    `out` (a new temporary folder when None). claims: a dict that stands for
    fn's lossfuzz_claims. target: the byte format (fuzz_class, fuzz_prob,
    fuzz_linear, fuzz_llm; from the claimed losses when None). backend:
    "sim" (tensors on the CPU) or "cuda" (on the GPU, PyTorch's CUDA
    semantics). The same seed gives the same cases. raise_on_finding:
    FindingsError with the report's entries instead of returning them."""
    spec = kernel_spec(fn)
    out = os.fspath(out) if out else tempfile.mkdtemp(prefix="lossfuzz-campaign-")
    os.makedirs(out, exist_ok=True)
    args = ["fuzz"] + _kernel_args(spec, backend, world_size) + ["--seconds", "%g" % seconds, "--seed", str(int(seed)),
                                                                 "--jobs", str(int(jobs)), "--out", out]
    if target:  # else `lossfuzz fuzz` picks it from the claims its worker reads (lossfuzz_kernel.claims_of)
        args += ["--target", target]
    if corpus:
        args += ["--corpus", os.fspath(corpus)]
    done = run(args, claims)
    try:
        with open(os.path.join(out, "report.json")) as f:
            rows = json.load(f)["findings"]
        with open(os.path.join(out, "report.md")) as f:
            report = f.read()
    except (OSError, ValueError, KeyError) as exc:
        raise LossfuzzError("lossfuzz fuzz left no readable report in %s (%s): %s" % (out, exc, done.stderr[-2000:]))
    entries = _entries(report)
    found = [Finding(r["signature"], r["class"], r["harm"], r["hits"], r["first_s"],
                     _case_of(r.get("file")), r.get("file") or "", r.get("pytorch") or "",
                     r.get("kernel") or "", r.get("detail") or "", _claims_prefix(claims) + (r.get("replay") or ""),
                     r.get("accepted"), _with_script(entries.get(r["signature"], r["signature"]), r.get("script")),
                     r.get("cause") or "", r.get("variants") or [], r.get("flaky"), r.get("script") or "")
             for r in rows]
    lines = done.stdout.strip().splitlines()
    summary = lines[-1] if lines else ""
    target = summary.split(":", 1)[0] if summary.startswith("fuzz_") else target
    ran = re.search(r"(\d+) cases in .*?(\d+) run by the kernel", summary)
    if ran and int(ran.group(1)) > 0 and int(ran.group(2)) == 0:  # a green campaign that tested nothing
        raise LossfuzzError("none of the %s cases of %s was within the kernel's claims: give target= (fuzz_class, "
                            "fuzz_prob, fuzz_linear, fuzz_llm) or widen its claims (%s)" % (ran.group(1), target,
                                                                                             summary))
    campaign = Campaign([f for f in found if not f.accepted], [f for f in found if f.accepted], out, report, summary,
                        int(seed))
    if raise_on_finding:
        campaign.raise_for_findings()
    return campaign


@dataclasses.dataclass
class CaseResult:
    """A case file replayed on the kernel (a line of `lossfuzz check --json`)."""
    file: str
    verdict: str  # pass, finding, accepted, skipped or unusable
    signature: Optional[str]
    detail: Optional[str]
    spec: dict  # PyTorch's outcome, as lossfuzz's spec gives it
    kernel: dict  # the kernel's outcome
    replay: str

    @property
    def failed(self):
        return self.verdict in ("finding", "unusable")

    def __str__(self):
        said = lambda o: " ".join(str(o.get(k)) for k in ("outcome", "error", "value", "message") if o.get(k))
        return "%s: %s%s\n- PyTorch: %s\n- kernel: %s\n- replay: `%s`" % (
            os.path.basename(self.file), self.signature or self.verdict, " (%s)" % self.detail if self.detail else "",
            said(self.spec or {}), said(self.kernel or {}), self.replay)


def check_kernel(fn, cases, claims=None, world_size=None, backend="sim", raise_on_finding=False) -> List[CaseResult]:
    """Replays case files (JSON cases, dumps; a folder: its *.json) on fn, one
    `lossfuzz check` for all (backend: "sim" or "cuda", as for fuzz); a result
    per file, in order."""
    paths = [os.fspath(cases)] if isinstance(cases, (str, os.PathLike)) else [os.fspath(c) for c in cases]
    if not paths:
        return []
    kernel = _kernel_args(kernel_spec(fn), backend, world_size)
    done = run(["check", "--json"] + kernel + paths, claims, answers=(0, 1, 2))  # 2: an unusable file, said in its line
    results = []
    for line in done.stdout.splitlines():
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        verdict, detail = r.get("verdict"), r.get("detail") or r.get("error")
        if r.get("kernel_skipped"):
            verdict, detail = "skipped", "outside the kernel's claims: %s" % r["kernel_skipped"]
        elif r.get("accepted"):
            verdict = "accepted"
        replay = "%slossfuzz check %s" % (_claims_prefix(claims), " ".join(map(shlex.quote, kernel + [r["file"]])))
        results.append(CaseResult(r.get("file"), verdict, r.get("signature") or r.get("accepted_signature"), detail,
                                  r.get("spec") or {}, r.get("kernel") or {}, replay))
    if done.returncode == 2 and not results:
        raise LossfuzzError("lossfuzz check: %s" % done.stderr.strip()[-2000:])
    failed = [r for r in results if r.failed]
    if raise_on_finding and failed:
        raise FindingsError(failed, "%d of %d case(s) failed:\n\n%s" % (len(failed), len(results),
                                                                      "\n\n".join(map(str, failed))))
    return results
