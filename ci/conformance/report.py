"""Printing the CPU-torch conformance run: the summary figures, each
disagreement with what torch and each lossfuzz path said, and --dry-run's
distribution of torch outcomes."""
import json
from collections import Counter

from torch_cases import BCE_WITH_LOGITS, CROSS_ENTROPY, NLL, encode_float, torch

MAX_PRINTED = 40  # disagreements printed in full


def short(text, limit=220):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def fmt_value(v):
    if isinstance(v, list) and len(v) == 1:
        v = v[0]
    v = [encode_float(x) if isinstance(x, float) else x for x in v] if isinstance(v, list) \
        else encode_float(v) if isinstance(v, float) else v
    return short(json.dumps(v), 120)


def fmt_torch(t):
    if t["outcome"] == "ok":
        return "ok %s value=%s" % (t["dtype"], fmt_value(t["value"]))
    cls = "" if t["error"] is None else " " + t["error"]
    return "%s%s (%s: %s)" % (t["outcome"], cls, t["exception"], short(t["message"]))


def fmt_side(side):
    side = side or {}
    text = str(side.get("outcome"))
    if side.get("error"):
        text += "/" + str(side["error"])
    if side.get("value") is not None:
        text += " value=" + fmt_value(side["value"])
    if side.get("outcome") not in ("ok", None) and side.get("message"):
        text += " (%s)" % short(side["message"], 120)
    return text


def print_disagreement(d):
    print("[%s] %s%s" % (d.kind, d.case.path, "  -- " + d.detail if d.detail else ""))
    print("    %s" % d.case.describe())
    print("    torch:     %s" % fmt_torch(d.torch))
    if "_problem" not in d.record:
        for name in ("spec", "reference", "guard"):
            print("    %-10s %s" % (name + ":", fmt_side(d.record.get(name))))
    if d.known:
        print("    known difference: %s" % d.known)


def print_summary(n_cases, n_unsupported, stats, failures, known, keep):
    version = ".".join(torch.__version__.split(".")[:2])
    print("conformance: %d cases (%d unsupported by torch %s CPU, excluded)"
          % (n_cases, n_unsupported, version))
    for label, key in (("outcome agreement", "outcome"), ("host-error class", "error_class")):
        print("  %-21s %d/%d" % (label, stats[key, True], stats[key, True] + stats[key, False]))
    caught, missed = stats["caught", True], stats["caught", False]
    print("  %-21s %d/%d  (misses: %d)" % ("guard catches", caught, caught + missed, missed))
    alarms = stats["false_alarm", True]
    print("  %-21s %d/%d" % ("false alarms", alarms, alarms + stats["false_alarm", False]))
    print("  %-21s %d/%d" % ("value agreement", stats["value", True],
                             stats["value", True] + stats["value", False]))
    print("  %-21s %d/%d  (d input: torch autograd, spec, reference, guard)"
          % ("gradient agreement", stats["grad", True], stats["grad", True] + stats["grad", False]))
    print("  %-21s %d" % ("lossfuzz findings", stats["finding", True]))
    print("  %-21s %d  (cases left out of the counts above; reasons below)"
          % ("known differences", len({d.case.path for d in known})))
    print("  %-21s %d" % ("disagreements", len(failures)))
    shown = failures[:MAX_PRINTED] + known[:max(0, MAX_PRINTED - len(failures))]
    if shown:
        print("\n%d disagreement(s) + %d known difference(s); showing %d:"
              % (len(failures), len(known), len(shown)))
        for d in shown:
            print_disagreement(d)
        if not keep:
            print("\n(case files were deleted; rerun with --keep to replay them "
                  "with `lossfuzz check FILE`)")


def print_distribution(cases, outcomes):
    """--dry-run report: torch outcome mix, error classes, unmapped messages."""
    total = len(cases)
    print("dry run: %d cases, torch %s" % (total, torch.__version__))
    counts = Counter(o["outcome"] for o in outcomes)
    for name in ("ok", "device_assert", "host_error", "unsupported"):
        print("  %-15s %5d  (%4.1f%%)" % (name, counts[name], 100.0 * counts[name] / max(total, 1)))
    print("by loss (ok / device_assert / host_error / unsupported):")
    for loss in (CROSS_ENTROPY, NLL, BCE_WITH_LOGITS):
        c = Counter(o["outcome"] for k, o in zip(cases, outcomes) if k.loss == loss)
        print("  %-33s %4d %4d %4d %4d" % (loss, c["ok"], c["device_assert"],
                                            c["host_error"], c["unsupported"]))
    print("host-error classes:")
    for error, n in Counter(o["error"] for o in outcomes
                            if o["outcome"] == "host_error").most_common():
        print("  %-22s %5d" % (error, n))
    unmapped = Counter((o["error"], o["message"].splitlines()[0]) for o in outcomes
                       if o["outcome"] == "host_error" and o["error"].startswith("unmapped:"))
    for (error, message), n in unmapped.most_common():
        print("  UNMAPPED %dx %s: %s" % (n, error, short(message)))
    unsupported = Counter(short(o["message"], 90) for o in outcomes if o["outcome"] == "unsupported")
    print("unsupported messages:")
    for message, n in unsupported.most_common():
        print("  %5d  %s" % (n, message))
    return len(unmapped)
