#!/usr/bin/env python3
"""ci/layers.py [SRC]: the harness's floors (docs/architecture.md) hold - no
file includes a header of a later floor, and no two folders include each
other. Prints each violation; exit 1 if any. docs_test runs it."""
import collections
import os
import re
import sys

# The floors, first to last; folders on one line are side by side.
FLOORS = ["base", "model/case", "model/bytes model/spec", "io/dump", "io/load", "runtime/backend",
          "runtime/guard runtime/under_test", "runtime/workers runtime/api", "oracle", "tools/minimize",
          "tools/campaign", "tools/cli tools/bench"]


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    rank = {folder: i for i, line in enumerate(FLOORS) for folder in line.split()}
    harness = os.path.join(src, "harness")
    where, bad = {}, []
    for d, _, files in os.walk(harness):
        folder = os.path.relpath(d, harness)
        if folder.startswith("tests") or not any(f.endswith((".c", ".h", ".def")) for f in files):
            continue
        if folder not in rank:
            bad.append("harness/%s is on no floor (ci/layers.py's FLOORS, docs/architecture.md)" % folder)
            continue
        for f in files:
            where.setdefault(f, folder)
    pairs = set()
    for f, folder in where.items():
        with open(os.path.join(harness, folder, f), errors="replace") as fh:
            for inc in re.findall(r'#include "([^"]+)"', fh.read()):
                to = where.get(os.path.basename(inc))
                if not to or to == folder:
                    continue
                pairs.add((folder, to))
                if rank[to] > rank[folder]:
                    bad.append("harness/%s/%s includes %s of a later floor (harness/%s)" % (folder, f, inc, to))
    bad += ["harness/%s and harness/%s include each other" % p for p in sorted(pairs) if p[0] < p[1] and p[::-1] in pairs]
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
