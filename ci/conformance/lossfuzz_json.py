"""Running `lossfuzz check --json` over many case files: one record per file,
keyed by its real path. A chunk that lossfuzz cannot finish (a crash, a file
it refuses) is rerun file by file, so one bad case costs only itself."""
import json
import os
import subprocess

CHUNK_FILES = 200
TIMEOUT_S = 600


def _invoke(binary, files, options=()):
    """(rc, {realpath: record}, stderr) of one lossfuzz run."""
    try:
        proc = subprocess.run([binary, "check", "--json"] + list(options) + files, capture_output=True,
                              text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, {}, "timed out after %ds" % TIMEOUT_S
    records = {}
    for line in proc.stdout.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and "file" in rec:
            records[os.path.realpath(str(rec["file"]))] = rec
    return proc.returncode, records, proc.stderr.strip()


def records(binary, files, verbose=False, options=()):
    """{path: record} for all files; failures become {"_problem": kind, "message": ...}.
    options: more `lossfuzz check` options (--torch)."""
    out = {}
    for start in range(0, len(files), CHUNK_FILES):
        chunk = files[start:start + CHUNK_FILES]
        rc, recs, stderr = _invoke(binary, chunk, options)
        if verbose:
            print("lossfuzz: files %d..%d rc=%s" % (start, start + len(chunk) - 1, rc))
        if rc in (0, 1):
            for path in chunk:
                out[path] = recs.get(os.path.realpath(path)) or {
                    "_problem": "missing", "message": "no output line (rc=%s) %s" % (rc, stderr)}
            continue
        for path in chunk:  # an unusable file or a crash: find the culprit(s) one by one
            rc1, recs1, err1 = _invoke(binary, [path], options)
            rec = recs1.get(os.path.realpath(path))
            if rc1 in (0, 1) and rec and rec.get("verdict") != "unusable":
                out[path] = rec
            else:
                out[path] = {"_problem": "unusable" if rc1 == 2 else "crash", "message": "rc=%s %s" % (rc1, err1)}
    return out
