#!/usr/bin/env python3
"""ci/report-has.py REPORT.json ENTRIES PATTERN... - checks a campaign's report:
exactly ENTRIES finding entries (one per cause; '-' for any number), and each
PATTERN (a regular expression) matching a signature of one entry's variants,
each pattern a different entry. Says what is missing and exits 1; 0 when all
hold. Entries show their smallest repro's signature, so a test reads the
variants, not the headings."""
import json
import re
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    entries = [e for e in json.load(open(argv[1]))["findings"] if not e.get("accepted")]
    want, patterns = argv[2], argv[3:]
    problems = []
    if want != "-" and len(entries) != int(want):
        problems.append("%d entries, not %s" % (len(entries), want))
    used = set()
    for p in patterns:
        hit = [i for i, e in enumerate(entries) if i not in used
               and any(re.search(p, v["signature"]) for v in e.get("variants", [{"signature": e["signature"]}]))]
        if hit:
            used.add(hit[0])
        else:
            problems.append("no entry of its own has a variant matching %s" % p)
    if problems:
        print("report-has: %s; entries: %s" % ("; ".join(problems),
              " | ".join("%s (%s)" % (e["signature"], e.get("cause", "")) for e in entries)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
