"""Vocabulary-parallel kernels under test: W rank processes joined in one
torch.distributed group (gloo on the CPU, NCCL on CUDA), started by the worker
(lossfuzz_worker.py --world-size W) and kept for the whole campaign.

For each case the worker hands every rank its consecutive shard of the
classes (the case's "shards" sizes: logits [N, V_r], the class dim last or
1; for a fused linear + cross-entropy the weight's rows [V_r, H] and the
bias's, the hidden states whole), the whole target and class weight, the options renamed to the kernel's
keywords, and the process group under the keyword its claims name
("vocab_parallel": {"group": "process_group"}). Each rank calls the kernel,
then autograd on its shard; the worker answers with the rank whose loss and
outputs are farthest from the definitions' float64 value (every rank must
hold the whole loss), and the gradient shards put together (a fused
linear's d hidden must be whole on every rank, all-reduced by the kernel:
the rank farthest from their mean is judged). A rank that
does not answer within the deadline (a collective another rank never
joined) is the case's finding (rank_hang), a rank that dies its own
(worker_crash); either way every rank is replaced before the next case."""
import os
import socket
import sys
import time
import traceback

RANK_TIMEOUT_S = float(os.environ.get("LOSSFUZZ_RANK_TIMEOUT", "10"))


class RankError(Exception):
    """The ranks cannot be started."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """This process dies with the one that started it: a rank with its worker (the executor's watchdog kills
    the worker, not its children), a worker with its lossfuzz, whatever the engine and however it ends - a
    kernel that hangs would keep a worker busy long after the campaign (issue 38, item 9)."""
    parent = os.getppid()
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)


def rank_main(rank, world_size, port, kernel_spec, device_type, conn):
    """One rank: load the kernel, join the group, answer tasks until EOF."""
    die_with_parent()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import datetime
    import torch
    import torch.distributed as dist
    from lossfuzz_kernel import load_kernel
    torch.set_num_threads(1)
    try:
        fn, claims = load_kernel(kernel_spec, device_type)
        backend = "nccl" if device_type == "cuda" else "gloo"
        if device_type == "cuda":
            torch.cuda.set_device(rank % torch.cuda.device_count())
        dist.init_process_group(backend, init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                                world_size=world_size, timeout=datetime.timedelta(seconds=max(RANK_TIMEOUT_S, 30)))
    except BaseException as exc:
        conn.send({"ready": False, "error": "%s: %s" % (type(exc).__name__, exc)})
        return
    conn.send({"ready": True})
    group = dist.group.WORLD
    group_kw = (claims.get("vocab_parallel") or {}).get("group", "group")
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        try:
            conn.send(run_task(torch, fn, task, group, group_kw, device_type))
        except Exception as exc:  # the task could not be answered (an unpicklable result)
            conn.send({"raised": exc.__class__.__name__, "message": str(exc)})


def run_task(torch, fn, task, group, group_kw, device_type):
    """The kernel on this rank's shard: its result, outputs, the gradients
    asked for (by lossfuzz's names: input, linear_weight, linear_bias) and
    whether it changed a tensor it was given."""
    import lossfuzz_llm
    dev = torch.device("cuda", torch.cuda.current_device()) if device_type == "cuda" else torch.device("cpu")
    args = [t.to(dev) for t in task["args"]]
    kwargs = {k: (v.to(dev) if torch.is_tensor(v) else v) for k, v in task["kwargs"].items()}
    given = list(zip(task["names"], args)) + [(k, v) for k, v in kwargs.items() if torch.is_tensor(v)]
    before = [t.detach().clone() for _, t in given]
    by_name = dict(zip(task["names"], args))
    bias_kw = task["keywords"].get("linear_bias", "linear_bias")
    if bias_kw in kwargs:
        by_name["linear_bias"] = kwargs[bias_kw]
    wanted = [(name, by_name[name]) for name in task["wanted"] if name in by_name]
    for _, t in wanted:
        if t.is_floating_point():
            t.requires_grad_(True)
    kwargs[group_kw] = group
    try:
        result, outputs = lossfuzz_llm.unpack(fn(*args, **kwargs), task["outputs"])
        values = result.detach().double().flatten().cpu()
    except Exception as exc:
        return {"raised": type(exc).__name__, "message": str(exc).split("\n", 1)[0]}
    answer = {"values": values, "scalar": result.dim() == 0, "shape": list(result.shape),
              "dtype": str(result.dtype).replace("torch.", ""),
              "outputs": {k: v.detach().double().flatten().cpu() for k, v in outputs.items() if v is not None},
              "grads": {}}
    able = [(name, t) for name, t in wanted if t.requires_grad]
    for name, t in wanted:
        if not t.requires_grad or not result.requires_grad:
            answer["grads"][name] = ("missing", "the result does not require grad (no graph back to the %s)" % name)
    if able and result.requires_grad:
        try:
            seed = task["upstream"].to(dev).to(result.dtype).reshape(result.shape)
            gs = torch.autograd.grad(result, [t for _, t in able], seed, allow_unused=True)
            for (name, _), g in zip(able, gs):
                answer["grads"][name] = ("ok", g.detach().cpu()) if g is not None else \
                    ("missing", "the graph does not reach the %s" % name)
        except Exception as exc:
            for name, _ in able:
                answer["grads"][name] = ("error", "%s: %s" % (type(exc).__name__, str(exc).split("\n", 1)[0]))
    from lossfuzz_kernel import same_size_ints  # bits, NaN payloads included
    for (name, t), copy in zip(given, before):
        if t.shape != copy.shape or not torch.equal(same_size_ints(torch, t.detach()), same_size_ints(torch, copy)):
            answer["changed"] = "%s (on its rank)" % name
            break
    return answer


class RankPool:
    """W ranks, (re)started together."""

    def __init__(self, kernel_spec, world_size, device_type, claims):
        if not kernel_spec:
            raise RankError("needs --kernel (a vocabulary-parallel callable)")
        if not 1 <= world_size <= 8:
            raise RankError("the world size is 1 to 8")
        if not claims.get("vocab_parallel"):
            raise RankError("%s does not claim \"vocab_parallel\" (its process-group keyword)" % kernel_spec)
        self.spec, self.world_size, self.device_type = kernel_spec, world_size, device_type
        self.outputs = tuple(claims.get("outputs") or ("loss",))
        self.keywords = dict(claims.get("options") or {})
        self.procs, self.conns = [], []
        self.slowest = 0.0  # the slowest answer of the ranks so far, in seconds (the deadline's load factor)
        self.start()

    def start(self):
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")
        port = free_port()
        self.procs, self.conns = [], []
        for r in range(self.world_size):
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=rank_main, args=(r, self.world_size, port, self.spec, self.device_type, theirs),
                            daemon=True)
            p.start()
            self.procs.append(p)
            self.conns.append(mine)
        deadline = time.monotonic() + 120
        for r, conn in enumerate(self.conns):
            if not conn.poll(max(0.0, deadline - time.monotonic())):
                self.stop()
                raise RankError("rank %d did not join the group in 120 s" % r)
            hello = conn.recv()
            if not hello.get("ready"):
                self.stop()
                raise RankError("rank %d: %s" % (r, hello.get("error")))

    def stop(self):
        for p in self.procs:
            if p.is_alive():
                p.kill()
        for p in self.procs:
            p.join(5)
        for c in self.conns:
            c.close()
        self.procs, self.conns = [], []

    def shards(self, case, V):
        sizes = case.doc.get("shards") or [V]
        if len(sizes) != self.world_size or sum(sizes) != V or min(sizes) < 0:
            raise ValueError("the case's shards %r do not split %d classes over %d ranks" % (sizes, V, self.world_size))
        return sizes

    def run(self, worker, case, args, kwargs, backward, upstream, wanted, values_at, cap, reference):
        """The worker's answer for one case (lossfuzz_worker.Worker.run_path's)."""
        torch = worker.torch
        linear = case.loss == "linear_cross_entropy"
        if case.loss not in ("cross_entropy", "linear_cross_entropy") or \
                case.doc["target"]["dtype"] not in ("int64", "int32", "uint8", "bool"):
            return {"outcome": "host_error", "error": "unsupported_path",
                    "message": "vocabulary-parallel kernels take cross_entropy (or its fused linear) with class "
                               "indices only"}
        names = list(worker.names_of(case.loss))
        # what is split by the classes: the logits along their class dim, or a fused linear's weight and bias rows
        at = names.index("linear_weight") if linear else 0
        x = args[at]
        dim = 0 if linear else x.dim() - 1 if (case.doc.get("vocab_last") or x.dim() <= 2) else 1
        V = x.shape[dim] if x.dim() else 0
        sizes = self.shards(case, V)
        pieces = torch.split(x.detach().cpu(), sizes, dim=dim) if x.dim() else [x] * self.world_size
        bias = kwargs.get("linear_bias")
        bias_split = bias is not None and bias.dim() == 1 and bias.shape[0] == V
        biases = torch.split(bias.detach().cpu(), sizes) if bias_split else [bias] * self.world_size
        tasks = []
        for r, piece in enumerate(pieces):
            # each rank's tensors its own, as on separate GPUs: torch's pipes share CPU storage, and a shard cut from
            # an expanded input (strides [1, 0]) is every rank's one element - a rank's in-place write would reach
            # the others
            mine = [piece.clone(memory_format=torch.contiguous_format) if j == at else a.detach().cpu().clone()
                    for j, a in enumerate(args)]
            kw = dict(kwargs, linear_bias=biases[r].clone(memory_format=torch.contiguous_format)) \
                if bias is not None else dict(kwargs)
            tasks.append({"args": mine, "names": names, "outputs": self.outputs,
                          "kwargs": {self.keywords.get(k, k): (v.detach().cpu().clone() if torch.is_tensor(v) else v)
                                     for k, v in kw.items()},
                          "keywords": self.keywords, "wanted": [name for name, _ in wanted],
                          "upstream": upstream.cpu() if upstream is not None else None})
        answers = self.exchange(tasks)
        if isinstance(answers, dict):  # a hang or a crash: every rank replaced
            return answers
        raised = [a for a in answers if "raised" in a]
        if raised:  # the first rank's exception stands for the call's
            return worker.error_of(case, make_exception(raised[0]), True)
        pick = farthest(torch, answers, case, args, kwargs, worker)
        a = answers[pick]
        values = a["values"]
        n = values.numel()
        if n > cap:
            return {"outcome": "host_error", "error": "result_too_large", "message": "%d values" % n}
        worker.put_values(values, values_at)
        answer = {"outcome": "ok", "n": n, "scalar": a["scalar"], "shape": a["shape"], "dtype": a["dtype"]}
        used = n
        changed = next((b["changed"] for b in answers if b.get("changed")), None)
        grads = {}
        for name, _ in wanted:
            states = [b["grads"].get(name, ("missing", "no gradient")) for b in answers]
            bad = next((st for st in states if st[0] != "ok"), None)
            if bad:
                grads[name] = {"state": bad[0], "message": bad[1]}
                continue
            shards = [st[1] for st in states]
            if name == "input" and linear:  # d hidden: whole on every rank (all-reduced); judge the odd one out
                mean = sum(g.double() for g in shards) / len(shards)
                g = max(shards, key=lambda t: float((t.double() - mean).abs().nan_to_num(float("inf")).max())
                        if t.numel() else 0.0)
            elif name == "linear_bias" and not bias_split:  # a broadcast bias: each rank's part of its gradient
                g = sum(shards)
            else:
                g = torch.cat(shards, dim=dim)
            if used + g.numel() > cap:
                break
            worker.put_values(g.double().flatten(), values_at + 8 * used)
            grads[name] = {"state": "ok", "n": g.numel(), "shape": list(g.shape),
                           "dtype": str(g.dtype).replace("torch.", "")}
            used += g.numel()
        if grads:
            answer["grads"] = grads
        if a["outputs"]:
            answer["outputs"], used = worker.put_outputs(a["outputs"], values_at, used, cap)
        if reference is not None and used + reference.numel() <= cap:
            worker.put_values(reference, values_at + 8 * used)
            answer["reference"] = {"n": reference.numel()}
        if changed:
            answer["changed"] = changed
        return answer

    def exchange(self, tasks):
        """Each rank's answer, or the error answer of a hang or a crash."""
        try:
            for conn, task in zip(self.conns, tasks):
                conn.send(task)
        except (BrokenPipeError, OSError):
            return self.failed("worker_crash", "a rank of the vocabulary-parallel kernel died")
        # the deadline grows with the case (a microsecond an element each rank holds, at least) and with the
        # machine's load (10 times the slowest answer so far, up to 5 deadlines): a loaded 2-core machine's slow
        # rank is no hang
        size = sum(sum(a.numel() for a in t["args"] if hasattr(a, "numel")) for t in tasks)
        allowed = RANK_TIMEOUT_S + 1e-6 * size + min(10 * self.slowest, 5 * RANK_TIMEOUT_S)
        started = time.monotonic()
        deadline = started + allowed
        answers = []
        for r, (conn, proc) in enumerate(zip(self.conns, self.procs)):
            while not conn.poll(0.05):
                if not proc.is_alive():
                    return self.failed("worker_crash", "rank %d of %d died (exit %s)" % (r, self.world_size,
                                                                                        proc.exitcode))
                if time.monotonic() > deadline:
                    return self.failed("rank_hang", "rank %d of %d gave no answer in %.3g s (a collective another "
                                       "rank never joined?)" % (r, self.world_size, allowed))
            try:
                answers.append(conn.recv())
            except EOFError:
                return self.failed("worker_crash", "rank %d of %d died" % (r, self.world_size))
        self.slowest = max(self.slowest, time.monotonic() - started)
        return answers

    def failed(self, error, message):
        sys.stderr.write("lossfuzz_ranks: %s; restarting the %d ranks\n" % (message, self.world_size))
        self.stop()
        try:
            self.start()
        except RankError as exc:
            message += "; the ranks could not be restarted: %s" % exc
        return {"outcome": "host_error", "error": error, "message": message}


def make_exception(raised):
    """A rank's exception again, by its type's name where it is a builtin."""
    kind = __builtins__.get(raised["raised"]) if isinstance(__builtins__, dict) else getattr(
        __builtins__, raised["raised"], None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(raised["message"])
        except Exception:
            pass
    return RuntimeError(raised["message"])


def farthest(torch, answers, case, args, kwargs, worker):
    """The rank whose loss (and outputs) is farthest from the definitions'
    float64 value: the one to judge, as every rank must hold the loss."""
    if len(answers) == 1:
        return 0
    try:
        with torch.no_grad():
            want = worker.call(case, tuple(a.double() if a.is_floating_point() else a for a in args),
                               {k: (v.double() if torch.is_tensor(v) and v.is_floating_point() else v)
                                for k, v in kwargs.items()}, "torch")[0].double().flatten().cpu()
    except Exception:
        traceback.print_exc()
        return 0

    def distance(a):
        v = a["values"]
        if v.shape != want.shape:
            return float("inf")
        d = (v - want).abs()
        d = torch.where(torch.isnan(v) != torch.isnan(want), torch.full_like(d, float("inf")), d.nan_to_num(0.0))
        return float(d.max()) if d.numel() else 0.0

    return max(range(len(answers)), key=lambda r: distance(answers[r]))
