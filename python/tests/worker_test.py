#!/usr/bin/env python3
"""Tests python/lossfuzz_worker.py through its protocol (harness/runtime/workers/lf_wire.h),
started as the C executor starts it: requests on fd 3, answers on fd 4, a memfd
on fd 5, stdout and stderr to a log. The test writes each case's tensors into
the memfd and compares the worker's answers and values with torch's own.

    "$(ci/find-python.sh torch)" python/tests/worker_test.py
Exit: 0 passed, 1 a check failed, 77 torch missing (skipped)."""
import json
import math
import mmap
import os
import select
import subprocess
import sys
import tempfile

try:
    import torch
    import torch.nn.functional as F
except Exception as exc:  # ImportError, or OSError from a broken install
    print("SKIP: %s cannot import torch: %s" % (sys.executable, exc))
    sys.exit(77)

DESCRIBE = None  # `lossfuzz describe --json`, read in main()
WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lossfuzz_worker.py")
TIMEOUT_S = 60  # import torch takes a few seconds
failures = []


def check(cond, what, detail=""):
    print("%s  %s%s" % ("ok  " if cond else "FAIL", what, "" if cond else ": %s" % (detail,)))
    if not cond:
        failures.append(what)


class Worker:
    """A worker process with its three descriptors, and a log of its fds 1 and 2."""

    def __init__(self, env=None, shm_size=4096):
        req_r, self.req_w = os.pipe()
        self.ans_r, ans_w = os.pipe()
        self.shm_fd = os.memfd_create("lossfuzz-test")
        self.resize(shm_size)
        # Out of the way of 3..5 (close-on-exec) so the moves below cannot collide.
        src = [os.dup2(fd, 100 + i, inheritable=False) for i, fd in enumerate((req_r, ans_w, self.shm_fd))]
        os.close(req_r)
        os.close(ans_w)
        self.log = tempfile.TemporaryFile()

        def move_fds():  # in the child: dup2 leaves 3, 4, 5 open across exec
            for target, fd in enumerate(src, 3):
                os.dup2(fd, target)

        self.proc = subprocess.Popen([sys.executable, WORKER, "--describe", DESCRIBE], stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, preexec_fn=move_fds, close_fds=False, env=env)
        for fd in src:
            os.close(fd)
        self.answers = os.fdopen(self.ans_r, "rb")

    def resize(self, size):
        os.ftruncate(self.shm_fd, size)
        self.shm, self.size, self.at = mmap.mmap(self.shm_fd, size), size, 0

    def put(self, t):
        """Writes t at the next 8-byte-aligned offset; its wire description."""
        doc = {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "at": self.at}
        if t.numel():
            torch.frombuffer(self.shm, dtype=t.dtype, count=t.numel(), offset=self.at).copy_(t.flatten())
        self.at += (t.numel() * t.element_size() + 7) // 8 * 8
        return doc

    def line(self):
        """The next answer line as a dict, or None at end of file or timeout."""
        ready, _, _ = select.select([self.answers], [], [], TIMEOUT_S)
        text = self.answers.readline() if ready else b""
        try:
            return json.loads(text) if text else None
        except ValueError:  # fails the check that reads it
            return {"not json": text.decode(errors="replace")}

    def send(self, text):
        os.write(self.req_w, text.encode())

    def request(self, id, case, paths=("torch",), out_cap=64):
        """Sends a case (tensors already put); (answer, values of each path)."""
        out_at = self.at
        doc = {"id": id, "paths": list(paths), "shm_size": self.size, "out_at": out_at,
               "out_cap": out_cap, "case": case}
        self.send(json.dumps(doc) + "\n")
        answer = self.line()
        values = []
        for i, r in enumerate((answer or {}).get("results", [])):
            n = r.get("n", 0) if r.get("outcome") == "ok" else 0
            at = out_at + 8 * out_cap * i
            values.append(torch.frombuffer(self.shm, dtype=torch.float64, count=n, offset=at).tolist()
                          if n else [])
        self.at = 0
        return answer, values

    def finish(self, close=True):
        """Exit status and log, after closing the requests (EOF) when asked."""
        if close:
            os.close(self.req_w)
        try:
            rc = self.proc.wait(TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = "timeout"
        self.log.seek(0)
        return rc, self.log.read().decode(errors="replace")


def case(w, loss, x, y, **options):
    doc = {"loss": loss, "input": w.put(x), "target": w.put(y)}
    for k, v in options.items():
        doc[k] = w.put(v) if isinstance(v, torch.Tensor) else v
    return doc


def same(values, expected):
    """Bit-for-bit equal lists of floats (NaN equals NaN)."""
    return len(values) == len(expected) and all(
        a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(values, expected))


def only_result(answer, id):
    ok = isinstance(answer, dict) and answer.get("id") == id and len(answer.get("results", [])) == 1
    return answer["results"][0] if ok else {"bad answer": answer}


def test_values(w):
    torch.manual_seed(1)
    x, y = torch.randn(4, 3), torch.tensor([0, 2, 1, 2])
    answer, values = w.request(1, case(w, "cross_entropy", x, y, reduction="mean"))
    r = only_result(answer, 1)
    expected = F.cross_entropy(x, y).double().item()
    check(r == {"outcome": "ok", "n": 1, "scalar": True, "shape": [], "dtype": "float32"}, "cross_entropy mean: result",
          r)
    check(same(values[0], [expected]), "cross_entropy mean: value is torch's", (values, expected))

    answer, values = w.request(2, case(w, "cross_entropy", x, y, reduction="none"))
    r = only_result(answer, 2)
    expected = F.cross_entropy(x, y, reduction="none").double().tolist()
    check(r.get("n") == 4 and r.get("scalar") is False and r.get("shape") == [4], "reduction none: n 4, shape [4]", r)
    check(same(values[0], expected), "reduction none: values are torch's", (values, expected))

    xb = torch.randn(2, 3, 4, dtype=torch.float64)
    yb, pw = torch.rand(2, 3, 4, dtype=torch.float64), torch.tensor([0.5, 1.0, 2.0, 3.0], dtype=torch.float64)
    answer, values = w.request(3, case(w, "binary_cross_entropy_with_logits", xb, yb, pos_weight=pw, reduction="sum"))
    expected = F.binary_cross_entropy_with_logits(xb, yb, pos_weight=pw, reduction="sum").item()
    check(only_result(answer, 3).get("dtype") == "float64" and same(values[0], [expected]),
          "BCE pos_weight: value is torch's", (answer, values, expected))
    plain = F.binary_cross_entropy_with_logits(xb, yb, reduction="sum").item()
    check(not same(values[0], [plain]), "BCE pos_weight: pos_weight was applied", (values, plain))

    answer, values = w.request(4, case(w, "cross_entropy", x, y, label_smoothing=0.1, ignore_index=2))
    expected = F.cross_entropy(x, y, label_smoothing=0.1, ignore_index=2).item()
    check(same(values[0], [expected]), "label_smoothing and ignore_index: value is torch's", (values, expected))
    check(not same(values[0], [F.cross_entropy(x, y).item()]), "label_smoothing: changes the value", values)

    wt = torch.tensor([0.5, 2.0, 1.0])
    lp = F.log_softmax(x, 1)
    answer, values = w.request(5, case(w, "nll_loss", lp, y, weight=wt, reduction="mean"))
    expected = F.nll_loss(lp, y, weight=wt).item()
    check(same(values[0], [expected]), "nll_loss weight: value is torch's", (values, expected))

    # A bigger memfd: the worker maps it again.
    w.resize(1 << 20)
    xl, yl = torch.randn(512, 100), torch.randint(0, 100, (512,))
    answer, values = w.request(6, case(w, "cross_entropy", xl, yl, reduction="none"), out_cap=512)
    expected = F.cross_entropy(xl, yl, reduction="none").double().tolist()
    check(same(values[0], expected), "grown shared memory: mapped again, values are torch's", answer)


def test_strides(w):
    """A tensor sent with strides and an offset is the same values laid out so:
    the loss is torch's on those values; strides that cannot be are refused."""
    torch.manual_seed(2)
    x, y = torch.randn(4, 3), torch.tensor([0, 2, 1, 2])
    doc = case(w, "cross_entropy", x, y, reduction="none")
    doc["input"].update(strides=[1, 4], offset=2)  # transposed, in a larger storage
    doc["target"].update(strides=[2], offset=1)    # every other element
    answer, values = w.request(7, doc)
    expected = F.cross_entropy(x, y, reduction="none").double().tolist()
    check(same(values[0], expected), "strides and offset: values are torch's", (answer, values, expected))
    yy = torch.tensor([1, 1, 1, 1])
    doc = case(w, "cross_entropy", x, yy, reduction="sum")
    doc["target"].update(strides=[0])  # expanded
    answer, values = w.request(8, doc)
    check(same(values[0], [F.cross_entropy(x, yy, reduction="sum").item()]), "expanded target: value is torch's",
          (answer, values))
    doc = case(w, "cross_entropy", x, y)
    doc["input"].update(strides=[-1, 1])
    r = only_result(w.request(9, doc)[0], 9)
    check(r.get("error") == "bad_request" and "strides" in r.get("message", ""),
          "negative strides: refused as a bad request, naming the strides", r)


def test_errors(w):
    x = torch.randn(4, 3)
    answer, _ = w.request(10, case(w, "cross_entropy", x, torch.tensor([0, 2, 1, 2], dtype=torch.int32)))
    r = only_result(answer, 10)
    # torch 1.13 (CPU): "expected scalar type Long but found Int"; 2.x: "... not implemented for 'Int'".
    check(r.get("outcome") == "host_error" and r.get("error") == "target_dtype"
          and r.get("exception") == "RuntimeError" and r.get("message"), "int32 target: target_dtype", r)

    answer, _ = w.request(11, case(w, "cross_entropy", x, torch.tensor([0, 5, 1, 2]), reduction="sum"))
    r = only_result(answer, 11)
    check(r.get("outcome") == "device_assert" and r.get("value") == 5 and "kernel" not in r
          and "cond" not in r, "label 5 of 3 classes: device_assert, value 5", r)

    answer, _ = w.request(12, case(w, "nll_loss", x, torch.tensor([0, 1, -1, 2]), reduction="none"))
    r = only_result(answer, 12)
    check(r.get("outcome") == "device_assert" and r.get("value") == -1, "label -1: device_assert, value -1", r)

    answer, _ = w.request(13, case(w, "cross_entropy", x, torch.tensor([0, 77, 1, 2], dtype=torch.uint8),
                                   reduction="none"))
    r = only_result(answer, 13)
    check(r.get("outcome") == "device_assert" and r.get("value") == 77 and "\n" not in json.dumps(r),
          "uint8 label 77, reduction none: device_assert, value 77 (printed as 'M')", r)

    answer, _ = w.request(14, case(w, "cross_entropy", x, torch.tensor([0, 2, 1, 2]), reduction="avg"))
    r = only_result(answer, 14)
    check(r.get("outcome") == "host_error" and r.get("error") == "reduction_invalid"
          and r.get("exception") == "ValueError", "reduction avg: reduction_invalid", r)

    answer, values = w.request(15, case(w, "cross_entropy", x, torch.tensor([0, 2, 1, 2])),
                               paths=["guard", "torch"])
    rs = (answer or {}).get("results", [])
    check(len(rs) == 2 and rs[0].get("outcome") == "host_error" and rs[0].get("error") == "unsupported_path",
          "path guard: unsupported_path", answer)
    check(len(rs) == 2 and rs[1].get("outcome") == "ok" and same(values[1], [F.cross_entropy(
        x, torch.tensor([0, 2, 1, 2])).item()]), "second path: values at out_at + 8*out_cap", (answer, values))

    answer, _ = w.request(16, case(w, "cross_entropy", x, torch.tensor([0, 2, 1, 2]), reduction="none"), out_cap=3)
    r = only_result(answer, 16)
    check(r.get("outcome") == "host_error" and r.get("error") == "result_too_large",
          "4 values, out_cap 3: result_too_large", r)

    w.send('{"id": 17, "paths": ["torch"], "shm_size": 64}\n')
    r = only_result(w.line(), 17)
    check(r.get("outcome") == "host_error" and r.get("error") == "bad_request", "request without a case: bad_request", r)

    doc = case(w, "cross_entropy", x, torch.tensor([0, 2, 1, 2]))
    doc["input"]["at"] = w.size - 8  # runs past the end
    answer, _ = w.request(18, doc)
    r = only_result(answer, 18)
    check(r.get("error") == "bad_request", "tensor outside the shared memory: bad_request", r)


def main():
    global DESCRIBE
    # the loss table, from the C side as the executor gives it (argv[1]: the lossfuzz command)
    DESCRIBE = subprocess.run([sys.argv[1], "describe", "--json"], check=True, capture_output=True, text=True).stdout
    w = Worker()
    hello = w.line()
    check(hello == {"hello": "lossfuzz-worker", "protocol": 1, "paths": ["torch"], "device": "cpu",
                    "torch": torch.__version__}, "hello", hello)
    if hello is None:
        print(w.finish()[1])
        return 1
    test_values(w)
    test_strides(w)
    test_errors(w)
    rc, log = w.finish()
    check(rc == 0, "end of requests: exit 0", (rc, log))
    check(log == "", "nothing on stdout/stderr", log)

    w = Worker()
    w.line()
    w.send("not json\n")
    rc, log = w.finish(close=False)
    check(rc == 2 and "unreadable request" in log, "unreadable request: exit 2, says why", (rc, log))

    # An interpreter whose torch cannot be imported: a torch package that raises, first on the path.
    with tempfile.TemporaryDirectory() as fake:
        os.mkdir(os.path.join(fake, "torch"))
        with open(os.path.join(fake, "torch", "__init__.py"), "w") as f:
            f.write("raise ImportError('no torch here (test)')\n")
        w = Worker(env=dict(os.environ, PYTHONPATH=fake))
        rc, log = w.finish(close=False)
    check(rc == 2 and "cannot import torch" in log, "torch missing: exit 2, says why", (rc, log))

    # A --describe that is not lossfuzz describe --json's: exit 2, saying so.
    DESCRIBE, good = '{"losses": 1}', DESCRIBE
    rc, log = Worker().finish(close=False)
    check(rc == 2 and "--describe" in log, "a broken --describe: exit 2, says why", (rc, log))
    DESCRIBE = good

    print("%d failed" % len(failures) if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
