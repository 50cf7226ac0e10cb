#!/usr/bin/env python3
"""Conformance of lossfuzz against PyTorch on the CPU (.venv's torch 2.15, or Debian's 1.13).

Generates random cases (torch_cases.py), runs torch on each (torch_cpu.py),
runs `lossfuzz check --json` over all of them (lossfuzz_json.py), and judges
each case with the comparison every conformance run shares (compare.py),
leaving out the known version and device differences lossfuzz names (lf_torch_known.def);
report.py prints the result.

    "$(ci/find-python.sh)" ci/conformance/cpu_torch.py --lossfuzz build/lossfuzz
        [--cases 2000] [--seed 1] [--workdir DIR] [--keep] [--verbose]
    "$(ci/find-python.sh)" ci/conformance/cpu_torch.py --dry-run [--cases N] [--seed S]

Exit status: 0 no disagreements (outside the known differences), 1 some,
2 usage error or lossfuzz binary missing, 77 torch not importable (skipped).
"""
import argparse
import json
import os
import subprocess
import shutil
import sys
import tempfile
import time
from collections import Counter

import compare
import lossfuzz_json
from report import MAX_PRINTED, fmt_torch, print_distribution, print_summary
from torch_cases import CROSS_ENTROPY, NLL, IMPORT_ERROR, CaseGenerator, roundtrip_errors, torch, write_case
from torch_cpu import run_torch, run_torch_backward
from lossfuzz_torch import read_losses  # noqa: E402 (torch_cpu put python/ on the path)


# The known differences (harness/oracle/lf_torch_known.def) are lossfuzz's one list:
# `lossfuzz check --torch` runs this same PyTorch (this Python, LOSSFUZZ_PYTHON) on
# each case and names the entry that explains its answer (torch_known_id); a
# disagreement on such a case is that difference, not a failure.
# (rtol, atol) per dtype; a case uses the coarsest of its input dtype and the
# dtype of torch's result (BCE returns the target's dtype, e.g. float16).
TOLERANCES = {
    "float64": (1e-9, 1e-9),
    "float32": (1e-4, 1e-5),
    "bfloat16": (3e-2, 1e-2),
    "float16": (1e-2, 1e-3),
}


class Disagreement:
    def __init__(self, kind, case, torch_out, record, detail=""):
        self.kind, self.case, self.torch, self.record, self.detail = \
            kind, case, torch_out, record, detail
        self.known = None  # "ID: what" of the known difference lossfuzz names for the case


def compare_case(case, tout, rec):
    """(flags, disagreements) for one supported case: the shared comparison,
    plus what only the CPU run knows (the host-error class torch's message names)
    and d input by torch's autograd, with the upstream gradient lossfuzz used."""
    flags, problems = compare.compare(tout, rec, case.dtype("input"), TOLERANCES)
    if tout["outcome"] == "ok" and "upstream" in rec:
        flags["grad"], grad_problems = compare.compare_grad(run_torch_backward(case, rec["upstream"]), rec,
                                                            case.dtype("input"), TOLERANCES)
        problems += grad_problems
    flags["error_class"] = None
    found = [Disagreement(kind, case, tout, rec, detail) for kind, detail in problems]
    if tout["outcome"] == "host_error" and tout["error"].startswith("unmapped:"):
        found.append(Disagreement("unmapped", case, tout, rec, "torch error not in ERROR_TABLE"))
    elif flags["outcome"] and tout["outcome"] == "host_error":
        flags["error_class"] = (rec.get("spec") or {}).get("error") == tout["error"]
        if not flags["error_class"]:
            found.append(Disagreement("error_class", case, tout, rec))
    return flags, found


def mark_known(disagreements):
    for d in disagreements:
        if d.record.get("torch_known_id"):
            d.known = "%s: %s" % (d.record["torch_known_id"], d.record.get("torch_known_difference", ""))


def parse_args(argv):
    p = argparse.ArgumentParser(description="Compare lossfuzz with PyTorch on random cases.")
    p.add_argument("--lossfuzz", metavar="PATH", help="the lossfuzz binary")
    p.add_argument("--cases", type=int, default=2000, help="number of cases (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    p.add_argument("--workdir", metavar="DIR", help="write case files here and keep them")
    p.add_argument("--keep", action="store_true", help="keep the case files")
    p.add_argument("--verbose", action="store_true", help="print every case")
    p.add_argument("--dry-run", action="store_true",
                   help="generate and run torch only; print the outcome distribution")
    args = p.parse_args(argv)
    if args.cases < 1:
        p.error("--cases must be at least 1")
    if not args.dry_run and not args.lossfuzz:
        p.error("--lossfuzz is required (or use --dry-run)")
    return args


def make_workdir(args):
    """(directory, keep?)"""
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
        return os.path.abspath(args.workdir), True
    return tempfile.mkdtemp(prefix="lossfuzz-conformance-"), args.keep


def generate_cases(args, workdir):
    gen = CaseGenerator(args.seed)
    cases = [gen.case() for _ in range(args.cases)]
    for i, case in enumerate(cases):
        case.path = os.path.join(workdir, "case_%05d.json" % i)
        write_case(case)
    return cases


def dry_run(cases, outcomes, verbose):
    if verbose:
        for case, out in zip(cases, outcomes):
            print("%s  %s\n    %s" % (os.path.basename(case.path), case.describe(), fmt_torch(out)))
    n_unmapped = print_distribution(cases, outcomes)
    bad = roundtrip_errors(cases)
    print("JSON round trip: %s" % ("exact" if not bad else "%d MISMATCHES" % len(bad)))
    for line in bad[:MAX_PRINTED]:
        print("  " + line)
    return 1 if bad or n_unmapped else 0


def conformance(args, cases, outcomes, keep):
    supported = [(c, o) for c, o in zip(cases, outcomes) if o["outcome"] != "unsupported"]
    os.environ["LOSSFUZZ_PYTHON"] = sys.executable  # lossfuzz's --torch: this PyTorch
    records = lossfuzz_json.records(os.path.abspath(args.lossfuzz), [c.path for c, _ in supported],
                                    args.verbose, ["--torch"])
    stats, found = Counter(), []
    for case, tout in supported:
        flags, disagreements = compare_case(case, tout, records[case.path])
        mark_known(disagreements)
        # A case explained by a known difference is reported there, not in the counts.
        if not disagreements or not all(d.known for d in disagreements):
            stats.update((key, value) for key, value in flags.items() if value is not None)
        found += disagreements
        if args.verbose:
            print("%s  %s: %s" % (os.path.basename(case.path), fmt_torch(tout),
                                  ", ".join(d.kind for d in disagreements) or "agree"))
    failures = [d for d in found if not d.known]
    print_summary(len(cases), len(cases) - len(supported), stats, failures,
                  [d for d in found if d.known], keep)
    return 1 if failures else 0


def main(argv=None):
    args = parse_args(argv)
    if not args.dry_run and not (os.path.isfile(args.lossfuzz) and os.access(args.lossfuzz, os.X_OK)):
        print("error: lossfuzz binary not found or not executable: %s" % args.lossfuzz,
              file=sys.stderr)
        return 2
    if IMPORT_ERROR is not None:
        print("SKIP: cannot import torch/numpy: %s" % IMPORT_ERROR)
        return 77
    print("python: %s, torch %s" % (sys.executable, torch.__version__))
    torch.set_num_threads(1)
    # each loss's own messages (lossfuzz_torch.read_losses): from this lossfuzz, or the build's for a dry run
    lossfuzz = args.lossfuzz or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "lossfuzz")
    if os.access(lossfuzz, os.X_OK):
        read_losses(json.loads(subprocess.run([lossfuzz, "describe", "--json"], check=True, capture_output=True,
                                              text=True).stdout)["losses"])
    workdir, keep = make_workdir(args)
    try:
        t0 = time.monotonic()
        cases = generate_cases(args, workdir)
        t1 = time.monotonic()
        outcomes = [run_torch(c) for c in cases]
        t2 = time.monotonic()
        if args.verbose or args.dry_run:
            print("generated %d cases in %.2fs, torch ran in %.2fs (%s)"
                  % (len(cases), t1 - t0, t2 - t1, workdir))
        if args.dry_run:
            return dry_run(cases, outcomes, args.verbose)
        return conformance(args, cases, outcomes, keep)
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
