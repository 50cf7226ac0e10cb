#!/usr/bin/env python3
"""Tests the worker zygote (python/lossfuzz_zygote.py) through lossfuzz check: a kernel judged alike by a
forked worker and a started one, a crash and a hang too, a kernel found through PYTHONPATH; a request with
other start-up variables declined and the worker started instead; no zygote listening changes nothing; a
zygote that takes a request and never answers is a clear error; a zygote that ends mid-call is lossfuzz's
backend error, not the kernel's crash.

    "$(ci/find-python.sh torch)" python/tests/zygote_test.py LOSSFUZZ SRC
Exit: 0 passed, 1 a check failed, 77 torch missing (skipped)."""
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

try:
    import torch  # noqa: F401
except Exception as exc:  # ImportError, or OSError from a broken install
    print("SKIP: %s cannot import torch: %s" % (sys.executable, exc))
    sys.exit(77)

CRASH_AND_HANG = '''import os, signal, time
import torch.nn.functional as F

def crash(input, target, **kw):
    if input.shape[0] == 3:
        os.kill(os.getpid(), signal.SIGSEGV)
    return F.cross_entropy(input, target, **kw)

def hang(input, target, **kw):
    if input.shape[0] == 3:
        time.sleep(600)
    return F.cross_entropy(input, target, **kw)
'''
# A kernel that waits on the [3, 4] case until it is told to go on (a "go" file), after saying it got there.
WAITS = '''import os, time
import torch.nn.functional as F

def waits(input, target, **kw):
    if input.shape[0] == 3:
        open(os.path.join(%r, "reached"), "w").close()
        while not os.path.exists(os.path.join(%r, "go")):
            time.sleep(0.05)
    return F.cross_entropy(input, target, **kw)
'''
CASE = '{"loss": "cross_entropy", "input": {"dtype": "float32", "shape": [%d, 4], "values": {"init": "randn"}},' \
       ' "target": {"dtype": "int64", "shape": [%d], "values": %s}}'
failures = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        failures.append(what)


def run(lf, args, zygote, **env_extra):
    """lossfuzz check ARGS with LOSSFUZZ_ZYGOTE=zygote (None: unset): its exit status and output, timings out."""
    env = dict(os.environ, LOSSFUZZ_PYTHON=sys.executable, **env_extra)
    env.pop("LOSSFUZZ_ZYGOTE", None)
    if zygote:
        env["LOSSFUZZ_ZYGOTE"] = zygote
    p = subprocess.run([lf, "check"] + args, env=env, capture_output=True, text=True, timeout=300)
    return p.returncode, re.sub(r"\d+(\.\d+)? ?(ms|s)\b", "T", p.stdout)


def start_zygote(sock, log):
    """A zygote listening on sock, its output in log, once it says it is ready (or has ended)."""
    zygote = subprocess.Popen([sys.executable, "python/lossfuzz_zygote.py", sock], stdout=log,
                              stderr=subprocess.STDOUT)
    for _ in range(300):
        log.seek(0)
        if "ready" in log.read() or zygote.poll() is not None:
            break
        time.sleep(0.1)
    return zygote


def zygote_ends_mid_call(lf, tmp, case):
    """A zygote that ends while its worker runs a call ends the worker too (it dies with its parent): the call is
    lossfuzz's backend-error (worker_lost), not the kernel's crash, and the next worker starts without a zygote."""
    with open(os.path.join(tmp, "waits.py"), "w") as f:
        f.write(WAITS % (tmp, tmp))
    sock = os.path.join(tmp, "ending.sock")
    zygote = start_zygote(sock, open(os.path.join(tmp, "ending.log"), "w+"))
    p = subprocess.Popen([lf, "check", "--timeout", "60", "--kernel", "py:%s/waits.py:waits" % tmp, case, case],
                         env=dict(os.environ, LOSSFUZZ_PYTHON=sys.executable, LOSSFUZZ_ZYGOTE=sock),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for _ in range(600):
        if os.path.exists(os.path.join(tmp, "reached")) or p.poll() is not None:
            break
        time.sleep(0.1)
    zygote.kill()
    zygote.wait(10)
    open(os.path.join(tmp, "go"), "w").close()
    out = p.communicate(timeout=120)[0]
    check(p.returncode == 1 and "backend-error/kernel: kernel: the worker zygote ($LOSSFUZZ_ZYGOTE) ended" in out and
          "crash/" not in out and "1 passed, 1 failed" in out,
          "a zygote that ends mid-call: backend-error, not a crash; the next worker starts (exit %d: %s)" %
          (p.returncode, out[-800:]))


def main():
    lf, src = sys.argv[1], sys.argv[2]
    os.chdir(src)
    tmp = tempfile.mkdtemp()
    sock, log = os.path.join(tmp, "zygote.sock"), open(os.path.join(tmp, "zygote.log"), "w+")
    zygote = start_zygote(sock, log)
    try:
        check(zygote.poll() is None, "the zygote serves")
        with open(os.path.join(tmp, "faults.py"), "w") as f:
            f.write(CRASH_AND_HANG)
        for name, n in (("a_ok", 2), ("b_fault", 3), ("c_ok", 5)):
            with open(os.path.join(tmp, name + ".json"), "w") as f:
                f.write(CASE % (n, n, [1] * n))
        cases = [os.path.join(tmp, n + ".json") for n in ("a_ok", "b_fault", "c_ok")]
        for kernel, extra in (("py:examples/kernels/ce_python.py:rows_buggy", ["regressions"]),
                              ("py:%s/faults.py:crash" % tmp, cases),
                              ("py:%s/faults.py:hang" % tmp, ["--timeout", "2"] + cases)):
            forked = run(lf, ["--kernel", kernel] + extra, sock)
            started = run(lf, ["--kernel", kernel] + extra, None)
            check(forked == started, "%s: a forked worker's verdicts are a started one's" % kernel)
            if forked != started:
                print("forked:\n%s\nstarted:\n%s" % (forked[1][-1500:], started[1][-1500:]))
            check(forked[0] == 1, "%s: a finding (exit %d)" % (kernel, forked[0]))
        log.seek(0)
        said = log.read()
        check(said.count("forking") >= 3, "the zygote forked the workers (its log: %r)" % said[-300:])
        # a module found through PYTHONPATH only (as lossfuzz.check_kernel passes sys.path): forked, sys.path made
        os.mkdir(os.path.join(tmp, "pp"))
        with open(os.path.join(tmp, "pp", "zygote_path_kernel.py"), "w") as f:
            f.write(CRASH_AND_HANG)
        before = said.count("forking")
        forked = run(lf, ["--kernel", "py:zygote_path_kernel:crash"] + cases, sock, PYTHONPATH=os.path.join(tmp, "pp"))
        started = run(lf, ["--kernel", "py:zygote_path_kernel:crash"] + cases, None, PYTHONPATH=os.path.join(tmp, "pp"))
        log.seek(0)
        check(forked == started and forked[0] == 1 and log.read().count("forking") > before,
              "a kernel module on PYTHONPATH only: forked, judged as a started worker judges it")
        code, out = run(lf, ["--kernel", "py:examples/kernels/ce_python.py:rows", "regressions"], sock,
                        OMP_NUM_THREADS="3")
        log.seek(0)
        check(code == 0 and "declined: other start-up variables" in log.read(),
              "other start-up variables: declined, and the worker started instead (exit %d)" % code)
        code, out = run(lf, ["--kernel", "py:examples/kernels/ce_python.py:rows", "regressions"],
                        os.path.join(tmp, "gone.sock"))
        check(code == 0, "no zygote at LOSSFUZZ_ZYGOTE: the worker started instead (exit %d)" % code)
        # a zygote that takes the request (and the fds) and never answers: a clear error, no second worker
        mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mute.bind(os.path.join(tmp, "mute.sock"))
        mute.listen(8)
        held = []
        threading.Thread(target=lambda: held.extend(mute.accept() for _ in range(8)), daemon=True).start()
        p = subprocess.run([lf, "check", "--kernel", "py:examples/kernels/ce_python.py:rows", cases[0]],
                           env=dict(os.environ, LOSSFUZZ_PYTHON=sys.executable,
                                    LOSSFUZZ_ZYGOTE=os.path.join(tmp, "mute.sock")),
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 2 and "took the request and did not answer" in p.stderr,
              "a mute zygote: exit 2 and why (exit %d: %s)" % (p.returncode, p.stderr.strip()[-300:]))
    finally:
        zygote.terminate()
        zygote.wait(10)
    check(not os.path.exists(sock), "the zygote removes its socket when it ends")
    zygote_ends_mid_call(lf, tmp, cases[1])
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
