#!/usr/bin/env python3
"""The spec against what real PyTorch did on a GPU: a set of cases recorded on
CUDA (conformance/torch-2.11-cuda: cases/*.json and expected.jsonl, one line a
case), checked on the CPU simulation with `lossfuzz check --json`. No GPU and
no torch needed. Prints the agreement and every disagreement; fails when a
figure is below its bar.

usage: recorded_set.py --lossfuzz BIN [--set DIR] [--min-outcome PCT]
       [--min-values PCT] [--max-false-alarms N] [--verbose]
exit: 0 every bar met, 1 a figure below its bar, 2 usage or a missing set."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import lossfuzz_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lossfuzz", required=True)
    p.add_argument("--set", default=os.path.join(ROOT, "conformance", "torch-2.11-cuda"))
    p.add_argument("--min-outcome", type=float, default=99.9, help="outcome agreement, percent")
    p.add_argument("--min-values", type=float, default=99.5, help="value agreement, percent")
    p.add_argument("--max-false-alarms", type=int, default=0)
    p.add_argument("--verbose", action="store_true")
    return p.parse_args(argv)


def load_set(directory):
    """[(case path, case dict, torch outcome)] in file order."""
    out = []
    with open(os.path.join(directory, "expected.jsonl")) as f:
        for line in f:
            torch_out = json.loads(line)
            path = os.path.join(directory, "cases", torch_out["file"])
            with open(path) as c:
                out.append((path, json.load(c), torch_out))
    return out


def ratio(n, d):
    return "%d/%d" % (n, d) + ("  (%.2f%%)" % (100.0 * n / d) if d else "")


def main(argv=None):
    args = parse_args(argv)
    if not os.path.isfile(os.path.join(args.set, "expected.jsonl")):
        print("error: no recorded set at %s" % args.set, file=sys.stderr)
        return 2
    cases = load_set(args.set)
    recs = lossfuzz_json.records(args.lossfuzz, [c[0] for c in cases], args.verbose)
    count = {k: [0, 0] for k in ("outcome", "kernel", "assertion", "caught", "false_alarm", "silent_caught", "value")}
    disagreements = []
    for path, case, torch_out in cases:
        flags, problems = compare.compare(torch_out, recs[path], case["input"]["dtype"])
        for k, c in count.items():
            if flags[k] is not None:
                c[0] += bool(flags[k])
                c[1] += 1
        disagreements += [(os.path.basename(path), torch_out, kind, detail) for kind, detail in problems]
    outcome_pct = 100.0 * count["outcome"][0] / max(count["outcome"][1], 1)
    value_pct = 100.0 * count["value"][0] / max(count["value"][1], 1)
    bars = [
        ("outcome agreement", ratio(*count["outcome"]), outcome_pct >= args.min_outcome, ">= %g%%" % args.min_outcome),
        ("assert kernels", ratio(*count["kernel"]), count["kernel"][0] == count["kernel"][1], "all"),
        ("assertion texts", ratio(*count["assertion"]), count["assertion"][0] == count["assertion"][1], "all"),
        ("guard catches", ratio(*count["caught"]), count["caught"][0] == count["caught"][1], "all"),
        ("false alarms", ratio(*count["false_alarm"]), count["false_alarm"][0] <= args.max_false_alarms,
         "<= %d" % args.max_false_alarms),
        ("silent miscomputes", ratio(*count["silent_caught"]) + " rejected", count["silent_caught"][0] == count["silent_caught"][1], "all"),
        ("value agreement", ratio(*count["value"]), value_pct >= args.min_values, ">= %g%%" % args.min_values),
    ]
    print("recorded set %s: %d cases, PyTorch on CUDA vs lossfuzz on the simulation"
          % (os.path.relpath(args.set, ROOT), len(cases)))
    print("  (false alarms: the guard rejects a call PyTorch computes right; silent miscomputes: PyTorch returns\n"
          "   a number that is not the loss asked for, which the guard must reject under the spec's name)")
    for name, figure, ok, bar in bars:
        print("  %-18s %-31s bar %-8s %s" % (name, figure, bar, "ok" if ok else "BELOW THE BAR"))
    print("%d disagreement(s):" % len(disagreements))
    for name, torch_out, kind, detail in disagreements:
        print("  %s  %-14s torch %s %s; %s" % (name, kind, torch_out["outcome"],
                                               compare.short(torch_out.get("value", torch_out.get("message", "")), 60),
                                               detail))
    failed = sum(not ok for _, _, ok, _ in bars)
    print("%d passed, %d failed" % (len(bars) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
