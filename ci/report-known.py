#!/usr/bin/env python3
"""ci/report-known.py REPORT.json BUGS.json - checks a campaign's report on a released
kernel against the bugs classified in BUGS.json (examples/kernels/released/*.bugs.json):
every required bug has an entry, every entry is one classified bug (else it is an
artefact of lossfuzz, or a bug nobody has classified: either fails), and no bug fills
two entries (one bug, one entry). Accepted entries (the kernel's claims) are listed,
not judged. Prints each entry with its bug; exits 1 on any problem, 0 otherwise."""
import json
import re
import sys


def texts(entry):
    """'SIGNATURE (CAUSE)' of each of the entry's variants."""
    sigs = [v["signature"] for v in entry.get("variants", [])] or [entry["signature"]]
    return ["%s (%s)" % (s, entry.get("cause", "")) for s in sigs]


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    entries = json.load(open(argv[1]))["findings"]
    bugs = json.load(open(argv[2]))["bugs"]
    problems, filled = [], {}
    for e in entries:
        if e.get("accepted"):
            print("%-28s %s: %s" % ("claim", e["signature"], e["accepted"]))
            continue
        ids = [b["id"] for b in bugs if any(re.search(b["entry"], t) for t in texts(e))]
        print("%-28s %s (%s)" % (ids[0] if ids else "UNKNOWN", e["signature"], e.get("cause", "")))
        if not ids and e.get("flaky"):  # what its replays gave: the clue to a flaky entry
            print("%-28s flaky: %s" % ("", e["flaky"]))
        if not ids:
            problems.append("an entry no classified bug explains: %s (%s)" % (e["signature"], e.get("cause", "")))
        elif ids[0] in filled:
            problems.append("bug %s fills two entries: %s and %s" % (ids[0], filled[ids[0]], e["signature"]))
        else:
            filled[ids[0]] = e["signature"]
    for b in bugs:
        if b["required"] and b["id"] not in filled:
            problems.append("required bug %s has no entry" % b["id"])
    print("report-known: %d of %d classified bugs found (%d required)" %
          (len(filled), len(bugs), sum(b["required"] for b in bugs)))
    for p in problems:
        print("report-known: FAIL: %s" % p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
