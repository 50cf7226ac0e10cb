#!/usr/bin/env python3
"""Tests that a campaign's report calls an entry stable only on a case that replays in a fresh worker
(harness/tools/campaign/lf_campaign_entries.c): `lossfuzz report` on a made campaign directory whose kernel is
wrong on every call but a worker's first one for reduction mean, and on every call for reduction sum.
- both variants (mean, the smaller case, and sum) fold into one entry; the mean case does not replay in a
  fresh worker, so the sum case stands in as its repro: the entry is stable, its cause a cause;
- with the mean variant alone (after an input-modified one, an entry of its own), the entry says it does not replay in a fresh worker and what the fresh
  worker gave.

    "$(ci/find-python.sh torch)" python/tests/fresh_replay_test.py LOSSFUZZ
Exit: 0 passed, 1 a check failed, 77 torch missing (skipped)."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch  # noqa: F401
except Exception as exc:  # ImportError, or OSError from a broken install
    print("SKIP: %s cannot import torch: %s" % (sys.executable, exc))
    sys.exit(77)

KERNEL = '''import torch.nn.functional as F

calls = 0


def cross_entropy(input, target, reduction="mean", **kw):
    """Wrong (+1) on every call but the worker's first with reduction mean; on every call with sum; with none,
    right but it writes into its input."""
    global calls
    calls += 1
    loss = F.cross_entropy(input, target, reduction=reduction, **kw)
    if reduction == "none":
        input.data.add_(1)
    return loss + 1 if (calls > 1 and reduction == "mean") or reduction == "sum" else loss


cross_entropy.lossfuzz_claims = {"name": "warm_only", "losses": ["cross_entropy"], "max_spatial_dims": 0}
'''
CASE = {"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [1, 2], "values": [0.5, -0.25]},
        "target": {"dtype": "int64", "shape": [1], "values": [1]}, "expect": "ok"}
MEAN = "value-mismatch/kernel[cross_entropy,float32,mean]"
MODIFIED = "input-modified/kernel[cross_entropy,float32,none]"
SUM = "value-mismatch/kernel[cross_entropy,float32,sum]"
failures = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        failures.append(what)


def campaign(root, name, variants):
    """A campaign directory: its ledger (a first variant warms the worker for the mean one) and each variant's
    repro under repros/ (its sanitized signature, any hash; its note names the signature)."""
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "repros"))
    with open(os.path.join(d, "ledger"), "w") as ledger:
        for signature, rows in variants:
            ledger.write("1\t%s\t-\n" % signature)
            case = dict(CASE, input=dict(CASE["input"], shape=[rows, 2], values=[0.5, -0.25] * rows),
                        target=dict(CASE["target"], shape=[rows], values=[1] * rows),
                        reduction=signature.split(",")[-1].rstrip("]"), note="signature %s" % signature)
            stem = "".join(c if c.isalnum() or c in "-." else "_" for c in signature)
            with open(os.path.join(d, "repros", stem + "-0123456789abcdef.json"), "w") as f:
                json.dump(case, f)
    return d


def report(lf, d, kernel):
    p = subprocess.run([lf, "report", "--kernel", "py:%s:cross_entropy" % kernel, d], capture_output=True,
                       text=True, timeout=300, env=dict(os.environ, LOSSFUZZ_PYTHON=sys.executable))
    if p.returncode not in (0, 1):
        print(p.stdout + p.stderr)
        return []
    return [e for e in json.load(open(os.path.join(d, "report.json")))["findings"] if not e.get("accepted")]


def main():
    lf = sys.argv[1]
    with tempfile.TemporaryDirectory() as root:
        kernel = os.path.join(root, "warm_only.py")
        with open(kernel, "w") as f:
            f.write(KERNEL)
        both = report(lf, campaign(root, "both", [(SUM, 2), (MEAN, 1)]), kernel)
        check(len(both) == 1, "the two variants fold into one entry (%d entries)" % len(both))
        e = both[0] if both else {}
        check(e.get("signature") == SUM, "its repro is the sum case, which replays in a fresh worker (%s)" %
              e.get("signature"))
        check("fresh worker" not in e.get("cause", "") and not e.get("flaky"),
              "the entry is stable: %s" % e.get("cause"))
        alone = report(lf, campaign(root, "alone", [(MODIFIED, 2), (MEAN, 1)]), kernel)
        mean = [e for e in alone if e["signature"] == MEAN]
        check(len(mean) == 1 and mean[0].get("cause") == "does not replay in a fresh worker",
              "a mean variant with no stable stand-in: %s" % (mean[0].get("cause") if mean else alone))
        check(len(mean) == 1 and "in a fresh worker: no finding" in (mean[0].get("flaky") or ""),
              "it says what the fresh worker gave: %s" % (mean[0].get("flaky") if mean else None))
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
