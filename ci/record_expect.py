#!/usr/bin/env python3
"""Record PyTorch's result in case files as `expect_value`.

    ci/record_expect.py --lossfuzz build/lossfuzz regressions/*.json

For each case, runs `lossfuzz check --torch --json` (PyTorch itself in the
Python worker, with the case's strides and offsets) and, where PyTorch
computes (outcome ok) and the verdict passes (PyTorch agrees with the spec
within its tolerance), writes PyTorch's numbers into the file as
`expect_value`; from then on `lossfuzz check` (and CTest) fails with
expect-mismatch/value if the spec drifts. Cases where PyTorch and the spec
disagree are listed and left unchanged: look at them, they are either a spec
bug or a documented version/device difference (README).
Exit: 0, 1 when some case disagreed, 2 on usage errors, 77 without torch.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile


def run(lossfuzz, *args):
    return subprocess.run([lossfuzz, *args], capture_output=True, text=True)


def encode(v):
    """Numbers as case files write them: non-finite ones as strings."""
    return v if math.isfinite(v) else ("nan" if math.isnan(v) else "inf" if v > 0 else "-inf")


def record(lossfuzz, path):
    """'recorded', 'skipped: why' or 'DISAGREES: why'."""
    out = run(lossfuzz, "check", "--torch", "--json", path)
    try:
        verdict = json.loads(out.stdout.splitlines()[0])
    except (IndexError, ValueError):
        return "DISAGREES: lossfuzz check failed: %s" % (out.stderr.strip().splitlines() or ["?"])[-1]
    torch = verdict.get("torch") or {}
    if torch.get("outcome") != "ok":
        return "skipped: torch %s" % torch.get("outcome")
    if verdict["verdict"] != "pass":
        return "DISAGREES: %s: %s" % (verdict.get("finding"), verdict.get("detail"))
    with open(path) as f:
        doc = json.load(f)
    values = [encode(v) for v in torch["value"]] if isinstance(torch["value"], list) else [encode(torch["value"])]
    doc["expect_value"] = values if isinstance(verdict["spec"]["value"], list) else values[0]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tmp:
        json.dump(doc, tmp)
    try:
        shown = run(lossfuzz, "show", tmp.name)  # lossfuzz's own canonical layout
    finally:
        os.unlink(tmp.name)
    if shown.returncode != 0:
        return "DISAGREES: the recorded case does not read back: %s" % shown.stderr.strip()
    with open(path, "w") as f:
        f.write(shown.stdout)
    return "recorded"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lossfuzz", required=True, metavar="PATH")
    p.add_argument("files", nargs="+", metavar="FILE")
    args = p.parse_args(argv)
    probe = run(args.lossfuzz, "check", "--torch", "--json", args.files[0])
    if '"torch"' not in probe.stdout:
        print("SKIP: the PyTorch worker does not start: %s" % probe.stderr.strip())
        return 77
    bad = 0
    for path in args.files:
        verdict = record(args.lossfuzz, path)
        bad += verdict.startswith("DISAGREES")
        print("%-60s %s" % (path, verdict))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
