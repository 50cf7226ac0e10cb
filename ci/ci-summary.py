#!/usr/bin/env python3
"""ci-summary.py FILE... - a Markdown summary of lossfuzz's CI reports, for a
GitHub job summary ($GITHUB_STEP_SUMMARY) or any page that renders Markdown:
ci/fuzz.sh --json campaign summaries (*.json) as a table of targets, execs/s
and findings with their repros, a campaign's report.json (lossfuzz fuzz,
ci/fuzz.sh) as its findings by harm, and `lossfuzz check --junit` reports (*.xml)
as counts and each failure's class. A file that cannot be read is named in the
output and makes the exit status 1."""
import json
import sys
import xml.etree.ElementTree as ET


def campaigns(docs):
    print("### Fuzzing campaigns\n")
    print("| target | engine | backend | seconds | execs | execs/s | findings |")
    print("|---|---|---|---|---|---|---|")
    for d in docs:
        name = d["target"] + (" (planted bug: %s)" % d["mutant"] if d.get("mutant") else "") + \
            (" (kernel: %s)" % d["kernel"] if d.get("kernel") else "")
        found = ", ".join("`%s` ([repro](%s))" % (f["class"], f["repro"]) for f in d["findings"]) or "none"
        print("| %s | %s | %s | %d | %d | %d | %s |" % (name, d["engine"], d["backend"], d["seconds"], d["execs"],
                                                         d["execs_per_s"], found))
    print()


def campaign_report(doc):
    print("### %s\n" % doc["title"])
    print("| # | signature | harm | cause | first after | hits (variants) | PyTorch | kernel |")
    print("|---|---|---|---|---|---|---|---|")
    for i, f in enumerate(doc["findings"], 1):  # one entry per cause, its variants folded in
        harm = ("accepted: " + f["accepted"]) if f.get("accepted") else f["harm"]
        print("| %d | `%s` | %s | %s | %.1f s | %d (%d) | %s | %s |" % (
            i, f["signature"], harm, f.get("cause", "")[:100], f["first_s"], f["hits"], len(f.get("variants", [1])),
            f["pytorch"][:80], f["kernel"][:80]))
    if not doc["findings"]:
        print("| | no finding | | | | | | |")
    print()


def junit(path, root):
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    a = suite.attrib
    print("### `lossfuzz check`: %s\n" % path)
    print("%s cases: %s failed, %s unusable, %s skipped\n" % (a.get("tests"), a.get("failures"), a.get("errors"),
                                                             a.get("skipped")))
    for case in suite.iter("testcase"):
        for kind in ("failure", "error"):
            el = case.find(kind)
            if el is not None:
                print("- %s `%s`: %s" % (kind, case.get("file", case.get("name")), el.get("message", "")))
    print()


def main(paths):
    status, docs = 0, []
    for path in paths:
        try:
            if path.endswith(".xml"):
                junit(path, ET.parse(path).getroot())
            else:
                with open(path) as f:
                    doc = json.load(f)
                if "title" in doc and "findings" in doc:
                    campaign_report(doc)
                else:
                    docs.append(doc)
        except (OSError, ValueError, KeyError, ET.ParseError) as exc:
            print("- could not read %s: %s" % (path, exc))
            status = 1
    if docs:
        try:
            campaigns(docs)
        except (KeyError, TypeError) as exc:
            print("- a campaign summary lacks %s" % exc)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
