#!/usr/bin/env python3
"""The worker zygote: imports torch once, then forks a ready PyTorch worker
(lossfuzz_worker.py) for each executor that asks, so a run of many short checks pays `import torch` once
instead of once per worker (about 2 s each on a 2-core machine).

    python3 python/lossfuzz_zygote.py SOCKET &      # prints "ready" when it serves
    export LOSSFUZZ_ZYGOTE=SOCKET                   # every lossfuzz started from here asks it first

The executor (harness/runtime/workers/lf_zygote.c) sends, on a connection to SOCKET, one JSON line
{"argv": [...], "env": [...], "cwd": "..."}, its first bytes carrying the worker's four fds (stderr,
requests, answers, shared memory). The zygote answers "pid N" and, once that worker has ended, "status S"
(waitpid's); the executor shutting its side of the connection, or hanging up, kills the worker first.
It answers "no WHY" and the executor starts the worker itself where a forked one could differ from a
started one: another Python, another worker script, another value of a variable read at start-up
(START_UP below), or a PYTHONPATH that holds another torch; another PYTHONPATH is the forked worker's
sys.path, as Python would have made it. A forked worker is the zygote's child: it ends with the zygote.
Exit status: 2 a bad argument or socket."""
import json
import os
import signal
import socket
import sys
import threading
import traceback

import lossfuzz_worker

# Variables a process reads when it starts or imports torch (prefixes; CUDA_VISIBLE_DEVICES aside, which
# CUDA reads later): a worker asked for with other values than the zygote's is started, not forked.
START_UP = ("PYTHON", "LD_", "TORCH", "TRITON", "OMP_", "MKL_", "CUDA_", "KMP_", "OPENBLAS", "LANG", "LC_")
WORKER = os.path.realpath(lossfuzz_worker.__file__)
# The zygote's own PYTHONPATH entries, as its sys.path has them (absolute, from its folder)
ZYGOTE_PATH = {os.path.abspath(p) for p in (os.environ.get("PYTHONPATH") or "").split(os.pathsep) if p}


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
    rest = [p for p in sys.path[1:] if os.path.abspath(p) not in ZYGOTE_PATH]
    return sys.path[:1] + [os.path.abspath(p) for p in entries(pythonpath)] + rest


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


# The zygote's own sockets (the listening one, each executor's connection): a forked worker closes them, so it
# holds no executor's connection open past the zygote's end of it.
OWN_FDS = set()


def become_worker(req, fds):
    """In the forked child: the worker's fds, signals, environment, folder and arguments, then its main, and
    an exit as a started worker's (atexit handlers run)."""
    try:
        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        for fd in list(OWN_FDS):
            os.close(fd)
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
        import atexit
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(rc if isinstance(rc, int) else 1)


def watch(conn, pid):
    """Says the worker's end on conn; kills it (its parent: no other process can have its pid yet) when the
    executor hangs up or shuts its side (lossfuzz's kill) first."""
    conn.settimeout(0.05)
    status, killed = None, False
    while status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            break
        try:
            hung_up = conn.recv(1) == b""
        except socket.timeout:
            hung_up = False
        except OSError:
            hung_up = True
        if hung_up and not killed:
            os.kill(pid, signal.SIGKILL)
            killed = True
    try:
        conn.sendall(b"status %d\n" % status)
    except OSError:
        pass
    OWN_FDS.discard(conn.fileno())
    conn.close()


def read_request(conn):
    """The request: one JSON line, its first bytes carrying the worker's four fds. (request, fds)."""
    msg, fds, _, _ = socket.recv_fds(conn, 1 << 16, 4)
    while not msg.endswith(b"\n"):
        more = conn.recv(1 << 16)
        if not more:
            break
        msg += more
    return msg, fds


def serve(conn):
    """One request: fork a worker and watch it, or say why not (the executor then starts it itself)."""
    OWN_FDS.add(conn.fileno())
    fds, pid = [], None
    try:
        msg, fds = read_request(conn)
        try:
            req = json.loads(msg.decode())
            why = why_not(req) if len(fds) == 4 else "%d fds, not 4" % len(fds)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            why = "unreadable request: %s" % exc
        print("declined: %s" % why if why else "forking", flush=True)  # the zygote's log (its stdout)
        if not why:
            sys.stdout.flush()
            sys.stderr.flush()
            try:
                pid = os.fork()
            except OSError as exc:
                why = "cannot fork: %s" % exc
            if pid == 0:
                become_worker(req, fds)
        for fd in fds:  # the worker has them; the executor starts its own on them if declined
            os.close(fd)
        fds = []
        if why:
            conn.sendall(("no %s\n" % why).encode())
            return
        threading.Thread(target=watch, args=(conn, pid), daemon=True).start()
        conn.sendall(b"pid %d\n" % pid)
        conn = None  # the watcher's now
    finally:
        for fd in fds:
            os.close(fd)
        if conn is not None:  # declined, or the executor went before it heard the pid (its watcher kills it)
            if pid is None:
                OWN_FDS.discard(conn.fileno())
                conn.close()


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
    OWN_FDS.add(server.fileno())
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("ready", flush=True)
    try:
        while True:
            conn, _ = server.accept()
            try:
                serve(conn)
            except OSError as exc:
                sys.stderr.write("lossfuzz_zygote: a request failed: %s\n" % exc)
    finally:
        os.unlink(argv[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
