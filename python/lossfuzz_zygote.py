#!/usr/bin/env python3
"""The worker zygote: imports torch once, then forks a ready PyTorch worker
(lossfuzz_worker.py) for each executor that asks, so a run of many short checks pays `import torch` once
instead of once per worker (about 2 s each on a 2-core machine).

    python3 python/lossfuzz_zygote.py SOCKET &      # prints "ready" when it serves
    export LOSSFUZZ_ZYGOTE=SOCKET                   # every lossfuzz started from here asks it first

The executor (harness/runtime/workers/lf_exec_proc.c) sends, on a connection to SOCKET, one JSON line
{"argv": [...], "env": [...], "cwd": "..."} with the worker's four fds (stderr, requests, answers, shared
memory) attached. The zygote answers "pid N" and, once that worker has ended, "status S" (waitpid's).
It answers "no WHY" and the executor starts the worker itself where a forked one could differ from a
started one: another Python, another worker script, another value of a variable read at start-up
(PYTHON*, LD_*, TORCH*, TRITON*, OMP_*, MKL_*, CUDA_* but CUDA_VISIBLE_DEVICES, which CUDA reads later),
or a PYTHONPATH that holds another torch; another PYTHONPATH is the forked worker's sys.path, as Python
would have made it.
A worker whose executor hangs up is killed. Exit status: 2 a bad argument or socket."""
import json
import os
import signal
import socket
import sys
import threading
import traceback

import lossfuzz_worker

# Variables a process reads when it starts or imports torch: a worker asked for with other values is started.
START_UP = ("PYTHON", "LD_", "TORCH", "TRITON", "OMP_", "MKL_", "CUDA_", "KMP_", "OPENBLAS")
WORKER = os.path.realpath(lossfuzz_worker.__file__)


def start_up_env(env):
    """The variables of env (a dict) a forked worker would not see change (PYTHONPATH: sys.path, below)."""
    return {k: v for k, v in env.items()
            if k.startswith(START_UP) and k not in ("CUDA_VISIBLE_DEVICES", "PYTHONPATH")}


def entries(pythonpath):
    return [p for p in (pythonpath or "").split(os.pathsep) if p]


def shadows_torch(pythonpath):
    """An entry of pythonpath that holds another torch than the one imported here, or None."""
    import torch
    ours = os.path.realpath(os.path.dirname(os.path.dirname(torch.__file__)))
    for p in entries(pythonpath):
        if os.path.isdir(os.path.join(p, "torch")) and os.path.realpath(p) != ours:
            return p
    return None


def worker_sys_path(pythonpath):
    """sys.path as a worker started with this PYTHONPATH would have it: its script's folder, the entries,
    then the rest of the zygote's own (less the zygote's PYTHONPATH entries)."""
    own = set(entries(os.environ.get("PYTHONPATH")))
    rest = [p for p in sys.path[1:] if p not in own]
    return sys.path[:1] + entries(pythonpath) + rest


def why_not(req):
    """Why this request needs a started worker, or None."""
    argv = req["argv"]
    if os.path.abspath(argv[0]) != os.path.abspath(sys.executable):
        return "another Python: %s (this zygote: %s)" % (argv[0], sys.executable)
    if len(argv) < 2 or os.path.realpath(os.path.join(req["cwd"], argv[1])) != WORKER:
        return "another worker script"
    env = dict(e.split("=", 1) for e in req["env"] if "=" in e)
    if shadows_torch(env.get("PYTHONPATH")):
        return "PYTHONPATH holds another torch: %s" % shadows_torch(env.get("PYTHONPATH"))
    theirs, ours = start_up_env(env), start_up_env(os.environ)
    if theirs != ours:
        return "other start-up variables: %s" % " ".join(sorted(k for k in set(theirs) | set(ours)
                                                              if theirs.get(k) != ours.get(k)))
    return None


def become_worker(req, fds):
    """In the forked child: the worker's fds, environment, folder and arguments, then its main."""
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDONLY)
        err, requests, answers, shm = fds
        for src, dst in ((null, 0), (err, 1), (err, 2), (requests, lossfuzz_worker.FD_REQUESTS),
                         (answers, lossfuzz_worker.FD_ANSWERS), (shm, lossfuzz_worker.FD_SHM)):
            os.dup2(src, dst)
        for fd in set(fds + [null]):
            if fd > lossfuzz_worker.FD_SHM:
                os.close(fd)
        os.environ.clear()
        os.environ.update(dict(e.split("=", 1) for e in req["env"] if "=" in e))
        os.chdir(req["cwd"])
        sys.path[:] = worker_sys_path(os.environ.get("PYTHONPATH"))
        sys.argv = req["argv"][1:]
        rc = lossfuzz_worker.main(req["argv"][2:])
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
        rc = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(rc if isinstance(rc, int) else 1)


def watch(conn, pid):
    """Says the worker's end on conn; kills it if the executor hangs up first."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        conn.settimeout(0.05)
        try:
            if conn.recv(1) == b"":  # the executor is gone
                os.kill(pid, signal.SIGKILL)
        except socket.timeout:
            pass
        except OSError:
            os.kill(pid, signal.SIGKILL)
    try:
        conn.sendall(b"status %d\n" % status)
    except OSError:
        pass
    conn.close()


def serve(conn):
    """One request: fork a worker, or say why not. Returns the watcher thread, or None."""
    msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 4)
    try:
        req = json.loads(msg.decode())
        why = why_not(req) if len(fds) == 4 else "%d fds, not 4" % len(fds)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        why = "unreadable request: %s" % exc
    print("declined: %s" % why if why else "forking", flush=True)  # the zygote's log (its stdout)
    if why:
        conn.sendall(("no %s\n" % why).encode())
        conn.close()
        for fd in fds:
            os.close(fd)
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        become_worker(req, fds)
    for fd in fds:
        os.close(fd)
    conn.sendall(b"pid %d\n" % pid)
    t = threading.Thread(target=watch, args=(conn, pid), daemon=True)
    t.start()
    return t


def main(argv):
    if len(argv) != 1:
        sys.stderr.write("usage: lossfuzz_zygote.py SOCKET\n")
        return 2
    # The point: torch imported once, before any fork. Not triton (0.1 s): it reads TRITON_INTERPRET, which
    # the worker sets on a CPU, when it is imported.
    import torch  # noqa: F401
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if os.path.exists(argv[0]):
            os.unlink(argv[0])
        server.bind(argv[0])
    except OSError as exc:
        sys.stderr.write("lossfuzz_zygote: cannot listen on %s: %s\n" % (argv[0], exc))
        return 2
    server.listen(64)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("ready", flush=True)
    try:
        while True:
            conn, _ = server.accept()
            try:
                serve(conn)
            except OSError as exc:
                sys.stderr.write("lossfuzz_zygote: a request failed: %s\n" % exc)
                conn.close()
    finally:
        os.unlink(argv[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
