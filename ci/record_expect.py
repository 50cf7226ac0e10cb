#!/usr/bin/env python3
"""Record PyTorch's result in case files as `expect_value`.

    "$(ci/find-python.sh)" ci/record_expect.py --lossfuzz build/lossfuzz regressions/*.json

For each case that PyTorch computes (outcome ok) and whose result agrees with
lossfuzz's spec within the spec's tolerance, writes PyTorch's numbers into the
file as `expect_value`; from then on `lossfuzz check` (and CTest) fails with
expect-mismatch/value if the spec drifts. Cases where PyTorch and the spec
disagree are listed and left unchanged: look at them, they are either a spec
bug or a documented version/device difference (README). Which torch ran is
printed; the regressions were recorded with torch 2.15 CPU.
Exit: 0, 1 when some case disagreed, 2 on usage errors, 77 without torch.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import conformance as cf


def run(lossfuzz, *args):
    return subprocess.run([lossfuzz, *args], capture_output=True, text=True, check=True).stdout


def torch_case(lossfuzz, path):
    """The case as conformance.Case, with explicit tensors (lossfuzz show --values)."""
    doc = json.loads(run(lossfuzz, "show", "--values", path))
    tensors = {k: cf.tensor_from_json(doc[k]) for k in ("input", "target", "weight", "pos_weight") if k in doc}
    options = {k: doc[k] for k in ("ignore_index", "reduction", "label_smoothing") if k in doc}
    if "label_smoothing" in options:
        options["label_smoothing"] = cf.decode_float(options["label_smoothing"])
    return cf.Case(doc["loss"], tensors, options, {})


def record(lossfuzz, path):
    """'recorded', 'skipped: why' or 'DISAGREES: why'."""
    case = torch_case(lossfuzz, path)
    out = cf.run_torch(case)
    if out["outcome"] != "ok":
        return "skipped: torch %s" % out["outcome"]
    spec = json.loads(run(lossfuzz, "check", "--json", path).splitlines()[0])["spec"]
    if spec["outcome"] != "ok":
        return "DISAGREES: torch ok, spec %s" % spec["outcome"]
    tol = cf.tolerance(case, out, spec)
    if not cf.values_close(out["value"], spec["value"], tol, spec.get("scale")):
        return "DISAGREES: torch %s, spec %s" % (cf.fmt_value(out["value"]), cf.fmt_value(spec["value"]))
    with open(path) as f:
        doc = json.load(f)
    values = [cf.encode_float(v) for v in out["value"]]
    doc["expect_value"] = values if isinstance(spec["value"], list) else values[0]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tmp:
        json.dump(doc, tmp)
    try:
        text = run(lossfuzz, "show", tmp.name)  # lossfuzz's own canonical layout
    finally:
        os.unlink(tmp.name)
    with open(path, "w") as f:
        f.write(text)
    return "recorded"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lossfuzz", required=True, metavar="PATH")
    p.add_argument("files", nargs="+", metavar="FILE")
    args = p.parse_args(argv)
    if cf.IMPORT_ERROR is not None:
        print("SKIP: cannot import torch: %s" % cf.IMPORT_ERROR)
        return 77
    cf.LOSS_FNS = {cf.CE: cf.F.cross_entropy, cf.NLL: cf.F.nll_loss,
                   cf.BCE: cf.F.binary_cross_entropy_with_logits}
    print("torch %s" % cf.torch.__version__)
    bad = 0
    for path in args.files:
        verdict = record(args.lossfuzz, path)
        bad += verdict.startswith("DISAGREES")
        print("%-60s %s" % (path, verdict))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
