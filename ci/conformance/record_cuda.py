#!/usr/bin/env python3
"""Records what PyTorch does with each case on a GPU: ok (value, dtype), host_error
(message, exception) or device_assert (the kernel and assertion CUDA printed), in the
format of conformance/*/expected.jsonl, so a GPU runner can re-record the set with a
newer PyTorch.

A device-side assert kills the CUDA context for good (docs: gpu-machine.md), so cases
run in worker processes, one CUDA context each. A worker answers one case per line on
stdout; after an assert it exits, the parent reads the assertion line CUDA printed on the
worker's stderr and hands the next case to a fresh worker. A spare worker is started
ahead (import torch and CUDA start-up take about 7 s). A worker that dies without an
answer (an illegal address) or takes too long is recorded as such and replaced.

usage: record_cuda.py CASES_DIR OUT.jsonl [--device cuda|cpu] [--timeout S]
  --device cpu runs the same protocol on torch's CPU build (for testing it here).
  LOSSFUZZ_RECORDER_ASSERT_ON=NAME makes the worker act as if case NAME asserted:
  it prints CUDA's assertion line and exits, so the restart path is tested without a GPU.
exit: 0 recorded, 1 workers could not start (what was recorded is kept), 2 usage."""
import argparse
import json
import os
import re
import select
import subprocess
import sys
import tempfile

ASSERT_LINE = re.compile(r"(\w+): block: \[[^\]]*\], thread: \[[^\]]*\] Assertion `([^`]*)` failed")
DTYPES = ("float32", "float64", "bfloat16", "float16", "int64", "int32", "uint8", "bool")


def run_case(case, torch, F, device):
    """The outcome dict of one case, and whether the context is dead."""
    def number(v):
        return {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}[v] if isinstance(v, str) else float(v)

    def tensor(t):
        dtype = getattr(torch, t["dtype"])
        vals = t["values"]
        base = (torch.tensor([number(v) for v in vals], dtype=torch.float64)
                if t["dtype"].startswith(("float", "bfloat")) else torch.tensor([int(v) for v in vals], dtype=torch.int64))
        return base.to(dtype).reshape(t["shape"]).to(device)

    fn = {"cross_entropy": F.cross_entropy, "nll_loss": F.nll_loss,
          "binary_cross_entropy_with_logits": F.binary_cross_entropy_with_logits}[case["loss"]]
    kwargs = {"reduction": case.get("reduction", "mean")}
    for k in ("weight", "pos_weight"):
        if k in case:
            kwargs[k] = tensor(case[k])
    if case["loss"] != "binary_cross_entropy_with_logits":
        kwargs["ignore_index"] = case.get("ignore_index", -100)
    if case["loss"] == "cross_entropy":
        kwargs["label_smoothing"] = case.get("label_smoothing", 0.0)
    try:
        result = fn(tensor(case["input"]), tensor(case["target"]), **kwargs)
        if device == "cuda":
            torch.cuda.synchronize()
        flat = result.double().reshape(-1).cpu().tolist()
    except Exception as exc:  # torch raises RuntimeError, ValueError, IndexError, ...
        text = str(exc)
        first = (text.splitlines() or [""])[0]
        if "device-side assert" in text or re.search(r"Target -?\d+ is out of bounds", text):
            return {"outcome": "device_assert", "message": first}, device == "cuda"
        if device == "cuda" and "CUDA error" in text:  # an illegal address or a failed launch: the context is dead too
            return {"outcome": "cuda_error", "message": first}, True
        return {"outcome": "host_error", "message": first, "exception": type(exc).__name__}, False

    def plain(x):
        return x if x == x and abs(x) != float("inf") else str(x).replace("Infinity", "inf")
    value = [plain(x) for x in flat] if result.dim() else plain(flat[0])
    return {"outcome": "ok", "value": value, "dtype": str(result.dtype).replace("torch.", "")}, False


def worker(device):
    """Answers one case path per stdin line with one JSON line; exits after an assert."""
    import torch
    import torch.nn.functional as F
    if device == "cuda":
        torch.zeros(1).cuda()
    fake_assert = os.environ.get("LOSSFUZZ_RECORDER_ASSERT_ON")
    print("ready", flush=True)
    for line in sys.stdin:
        path = line.strip()
        name = os.path.basename(path)
        if name == fake_assert:  # as CUDA prints it, then a dead context
            sys.stderr.write("Loss.cu:1: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] "
                             "Assertion `t >= 0 && t < n_classes` failed.\n")
            out, dead = {"outcome": "device_assert", "message": "CUDA error: device-side assert triggered"}, True
        else:
            with open(path) as f:
                out, dead = run_case(json.load(f), torch, F, device)
        sys.stderr.flush()
        print(json.dumps({"file": name, **out, "context_dead": dead}), flush=True)
        if dead:
            os._exit(3)  # nothing in this process can use CUDA again


class Worker:
    def __init__(self, device):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", device],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True)
        self.ready = False

    def read_line(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return self.proc.stdout.readline() if ready else None

    def stderr_since(self, offset):
        self.err.seek(offset)
        return self.err.read().decode(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


START_TIMEOUT_S = 600  # import torch and CUDA start-up: about 7 s on an H100
MAX_FAILED_STARTS = 3


def run_one(w, path, timeout):
    """(row, context dead) for one case on worker w."""
    name = os.path.basename(path)
    offset = w.err.seek(0, 2)
    try:
        w.proc.stdin.write(path + "\n")
        w.proc.stdin.flush()
        line = w.read_line(timeout)
    except OSError:  # the worker is gone
        line = ""
    err = w.stderr_since(offset)
    if not line:
        return {"file": name, "outcome": "worker_crash" if line == "" else "timeout", "message": err.strip()[-300:]}, True
    try:
        out = json.loads(line)
    except ValueError:  # something else wrote to the protocol's stdout
        return {"file": name, "outcome": "worker_crash", "message": "unexpected output: " + line[:200]}, True
    if out["outcome"] == "device_assert":
        site = ASSERT_LINE.search(err)
        if site:
            out["kernel"], out["assertion"] = site.group(1), site.group(2)
    return out, out.pop("context_dead")


def record(cases_dir, device, timeout, out_path):
    """Records every case of cases_dir into out_path as it goes: (rows, worker starts)."""
    names = sorted(f for f in os.listdir(cases_dir) if f.endswith(".json"))
    rows, starts, failed_starts = [], 0, 0
    current, spare = None, None
    with open(out_path, "w") as out:
        try:
            while len(rows) < len(names):
                if current is None:
                    current, spare = spare or Worker(device), None
                    starts += 1
                if spare is None:
                    spare = Worker(device)  # warming up while current works
                if not current.ready:
                    current.ready = current.read_line(START_TIMEOUT_S) == "ready\n"
                    if not current.ready:  # no CUDA, an import error, out of memory
                        why = current.stderr_since(0).strip()[-500:]
                        current.stop()
                        current, failed_starts = None, failed_starts + 1
                        if failed_starts == MAX_FAILED_STARTS:
                            raise RuntimeError("%d workers in a row failed to start: %s" % (failed_starts, why))
                        continue
                    failed_starts = 0
                row, dead = run_one(current, os.path.join(cases_dir, names[len(rows)]), timeout)
                if dead:
                    current.stop()
                    current = None
                rows.append(row)
                out.write(json.dumps(row) + "\n")
                out.flush()
        finally:
            for w in (current, spare):
                if w:
                    w.stop()
    return rows, starts


def main(argv):
    if len(argv) >= 2 and argv[0] == "--worker":
        worker(argv[1])
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("cases_dir")
    p.add_argument("out")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds a case may take")
    args = p.parse_args(argv)
    if not os.path.isdir(args.cases_dir):
        print("record_cuda.py: %s is not a directory" % args.cases_dir, file=sys.stderr)
        return 2
    try:
        rows, starts = record(args.cases_dir, args.device, args.timeout, args.out)
    except RuntimeError as e:
        print("record_cuda.py: %s (cases recorded so far are in %s)" % (e, args.out), file=sys.stderr)
        return 1
    counts = {}
    for row in rows:
        counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
    print("recorded %d cases on %s with %d worker start(s): %s" % (len(rows), args.device, starts,
          ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
