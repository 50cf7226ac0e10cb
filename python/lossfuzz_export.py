"""lossfuzz export: a finding anyone can run. Each entry of a campaign (or one
repro case) becomes ENTRY.py, a script that needs only torch and the
kernel's own package - never lossfuzz - and ENTRY.md, an issue text to paste
into the kernel's tracker; --pytest FILE writes a campaign's entries as one
pytest file. The script builds the minimized case's tensors exactly (dtype,
shape, strides, storage offset, NaN, inf, -0.0; large ones in
ENTRY.safetensors beside it), calls the kernel as the campaign did and
PyTorch's own function with the same options, checks the property the entry
broke, prints both sides and exits 1 while the bug shows, 0 once it is gone.

    python3 python/lossfuzz_export.py --lossfuzz build/lossfuzz CAMPAIGN_DIR [--pytest FILE]
    python3 python/lossfuzz_export.py --lossfuzz build/lossfuzz --kernel py:M:F REPRO.json [--out DIR]

(`lossfuzz export` runs it.) The case's facts come from lossfuzz itself:
`show --values` (the tensors), `check --json` (the spec's tolerance scale,
the upstream gradient), `describe --json` (each loss's call). Needs torch: it
imports the scripts' runtime (lossfuzz_export_runtime), which does, so
`lossfuzz export` runs it under the workers' Python."""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap

import lossfuzz_export_runtime as runtime

INLINE_MAX = 64  # elements a tensor may have inline; past it, it goes to ENTRY.safetensors
DTYPES = {"float32": "<f", "float64": "<d", "float16": "<e", "int64": "<q", "int32": "<i", "uint8": "<B", "bool": "<?"}
ST_DTYPES = {"float32": "F32", "float64": "F64", "float16": "F16", "bfloat16": "BF16", "int64": "I64",
             "int32": "I32", "uint8": "U8", "bool": "BOOL"}
# The property an entry broke, by its finding class's start: what its script checks.
PROPERTIES = [("upstream-grad-mismatch/", "softmax"), ("kernel-silent/", "rejects"), ("kernel-miss/", "rejects"), ("guard-miss/", "rejects"),
              ("kernel-assert/", "rejects"), ("false-alarm", "accepts"), ("input-modified/", "inputs"),
              ("grad-", "grad"), ("value-mismatch/", "result"), ("shape-mismatch/", "result"),
              ("dtype-mismatch/", "result"), ("output-mismatch/", "result")]
NOT_YET = ("diagnosis-mismatch/", "reference-mismatch/", "torch-mismatch/")


class ExportError(Exception):
    """A case or kernel the scripts cannot stand for; the message says why."""


def lossfuzz_json(lossfuzz, *args):
    out = subprocess.run([lossfuzz] + list(args), capture_output=True, text=True)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        raise ExportError("lossfuzz %s: %s" % (" ".join(args), (out.stderr or out.stdout).strip()[-400:]))
    return out.stdout


def number(v):
    """A value as Python source that reads back to it: nan, inf and -0.0 included."""
    if isinstance(v, str):  # the case format's "nan", "inf", "-inf"
        v = float(v)
    if isinstance(v, bool) or isinstance(v, int):
        return repr(v)
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return "-0.0" if v == 0 and str(v).startswith("-") else repr(v)


def tensor_bytes(dtype, values):
    if dtype == "bfloat16":  # the values are bfloat16's: the high half of their float32 bits
        return b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", float(v)))[0])[2:]
                        for v in values)
    return b"".join(struct.pack(DTYPES[dtype], float(v) if dtype.startswith("float") else int(v)) for v in values)


def write_safetensors(path, tensors):
    """name -> (dtype, shape, values): the safetensors layout (a JSON header, then the bytes)."""
    header, blobs, at = {}, [], 0
    for name, (dtype, shape, values) in tensors.items():
        blob = tensor_bytes(dtype, [float(v) if isinstance(v, str) else v for v in values])
        header[name] = {"dtype": ST_DTYPES[dtype], "shape": shape, "data_offsets": [at, at + len(blob)]}
        blobs.append(blob)
        at += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def root_of(kernel):
    """The folder a kernel's relative file (py:FILE.py:FUNCTION, or a C/CUDA LIB.so) starts from (where lossfuzz
    ran: this one), or None for a dotted module or an absolute path."""
    module = kernel[3:].rpartition(":")[0] if kernel.startswith("py:") else kernel.partition(":")[0]
    kept = module.endswith(".py") or module.endswith(".so")
    return os.getcwd() if kept and not os.path.isabs(module) and os.path.isfile(module) else None


LOSSFUZZ_TREE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOSSFUZZ_BIN = "lossfuzz"  # what a C library's script replays its repro with (main() sets the one that ran)
MENDS = "triton_interpreter_mends.py"  # lossfuzz_triton_compat, beside the scripts: Triton's interpreter on a CPU


def own_files(path):
    """A kernel file of lossfuzz's tree (a released kernel's adapter, an example) and the modules beside it that
    it imports, or [] where one of them imports lossfuzz itself (that kernel's scripts need lossfuzz)."""
    files, todo = [], [path]
    while todo:
        f = todo.pop()
        if f in files:
            continue
        text = open(f).read()
        if re.search(r"^\s*(from|import)\s+lossfuzz", text, re.M):
            return []
        files.append(f)
        for name in re.findall(r"^\s*(?:from|import)\s+(\w+)", text, re.M):
            beside = os.path.join(os.path.dirname(f), name + ".py")
            if os.path.isfile(beside):
                todo.append(beside)
    return files


def carry(entry, folder):
    """(KERNEL, ROOTS) of a script in `folder`. A kernel file in lossfuzz's own tree is copied beside the script
    (with the files it imports from its folder): the script then needs only torch and the kernel's package. Any
    other kernel's file is looked for from the campaign's folder relative to the script (a script kept in the same
    tree runs in any clone of it), then by its absolute path (anywhere on this machine)."""
    module, _, fn = entry.kernel[3:].rpartition(":") if entry.kernel.startswith("py:") else ("", "", "")
    path = os.path.abspath(module) if module.endswith(".py") else ""
    files = own_files(path) if path.startswith(LOSSFUZZ_TREE + os.sep) and os.path.isfile(path) else []
    for f in files:
        to = os.path.join(folder, os.path.basename(f))
        if os.path.abspath(to) != f:
            shutil.copyfile(f, to)
    if files:
        return "py:%s:%s" % (os.path.basename(path), fn), []
    return entry.kernel, ([os.path.relpath(entry.root, folder), entry.root] if entry.root else [])


def carry_mends(folder):
    """Triton's interpreter needs lossfuzz's mends on a CPU (bfloat16, Python floats, libdevice): a copy beside
    the scripts, imported by them when there is no GPU."""
    shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lossfuzz_triton_compat.py"),
                    os.path.join(folder, MENDS))


class Entry:
    """One entry: its case (tensors explicit), its class, the spec's answer and the kernel's call."""

    def __init__(self, lossfuzz, facts, path, kernel, cls, detail="", pytorch="", kernel_said=""):
        self.path, self.kernel, self.cls, self.detail = path, kernel, cls, detail
        self.root = root_of(kernel)
        self.pytorch, self.kernel_said = pytorch, kernel_said
        self.case = json.loads(lossfuzz_json(lossfuzz, "show", "--values", path))
        self.check = json.loads(lossfuzz_json(lossfuzz, "check", "--json", path).splitlines()[0])
        self.loss = next((l for l in facts["losses"] if l["name"] == self.case["loss"]), None)
        self.facts = facts
        if self.loss is None:
            raise ExportError("%s: loss %r is not lossfuzz's" % (path, self.case.get("loss")))
        if cls.startswith(NOT_YET):
            raise ExportError("%s: a %s finding has no standalone script yet" % (path, cls.split("/")[0]))
        if self.case.get("world_size", 1) > 1:
            raise ExportError("%s: a vocabulary-parallel call has no standalone script yet (its ranks over gloo); "
                              "replay: lossfuzz check --kernel %s --world-size %d %s" % (
                                  path, kernel, self.case["world_size"], path))
        # the LLM family: PyTorch's answer is its definitions' composition (lossfuzz_llm.py, copied in), the
        # kernel called by its own keywords and returning its claimed outputs
        self.llm = any(k in self.case for k in facts["llm"]["options"] + ["loss_mask"]) or \
            bool(self.case.get("vocab_last"))
        self.claims = kernel_claims(self.kernel) if self.llm else {}
        self.property = next((p for start, p in PROPERTIES if cls.startswith(start)), "runs")
        self.output = cls.split("/")[2] if cls.startswith("output-mismatch/") and cls.count("/") >= 2 else None
        spec = self.check.get("spec") or {}
        self.crashed = self.property == "runs"  # its script tries the call in a child process first
        if self.property == "runs":  # a crash, a hang or a stray access: PyTorch's answer says what is right
            self.property = "rejects" if spec.get("outcome") != "ok" else "result"

    def tensors(self):
        """(name, doc) of the case's tensors, in the call's order."""
        names = self.loss["positional"] + [k for k in self.facts["tensor_options"] if k in self.case]
        return [(n, self.case[n]) for n in names if isinstance(self.case.get(n), dict)]

    def options(self):
        """The call's keywords as Python source, as lossfuzz's worker passes them: those given and not at
        PyTorch's default (a fused linear's ignore_index and chunked options whenever given)."""
        out, chunked = {"reduction": repr(self.case.get("reduction", "mean"))}, {}
        for k in self.loss["options"]:
            if k not in self.case or k in self.facts["tensor_options"]:
                continue
            v, fused = self.case[k], self.loss["fused_linear"]
            if k in self.facts["chunked_options"]:
                if fused:
                    chunked[k] = ("torch.%s" % v if k == "acc_dtype" and v is not None else
                                  repr(bool(v)) if k == "allow_retain_graph" else repr(v))
            elif (fused and k == "ignore_index") or v != self.facts["option_defaults"].get(k):
                out[k] = number(v)
        if chunked:
            out["options"] = "torch.nn.LinearCrossEntropyOptions(%s)" % ", ".join("%s=%s" % kv for kv in chunked.items())
        if self.case.get("vocab_last"):
            out["vocab_last"] = "True"  # the definitions' layout keyword: the kernel takes [B, T, V] as it is
        return out

    def script_case(self, blob_name):
        """The case block of a script: the tensors, the options, the upstream gradient, the spec's scales;
        and the tensors too large to inline (name -> (dtype, shape, values)) for blob_name."""
        lines, blob = ["def case():", '    """The minimized case: the call\'s tensors, then its keywords."""'], {}
        for name, doc in self.tensors():
            values = doc["values"]
            args = "torch.%s, %r" % (doc["dtype"], doc["shape"])
            if len(values) > INLINE_MAX:
                blob[name] = (doc["dtype"], [len(values)], values)
                vals = "stored(%r, BLOB)" % name
            else:
                vals = "[%s]" % ", ".join(number(v) for v in values)
            layout = ", strides=%r, offset=%d" % (doc["strides"], doc.get("offset", 0)) if "strides" in doc else ""
            lines.append("    %s = tensor(%s, %s%s)" % (name, args, vals, layout))
        opts = self.options()
        opts.update({n: n for n, _ in self.tensors() if n not in self.loss["positional"]})
        lines.append("    return dict(%s), dict(%s)\n" % (
            ", ".join("%s=%s" % (n, n) for n, _ in self.tensors() if n in self.loss["positional"]),
            ", ".join("%s=%s" % kv for kv in opts.items())))
        bw = self.case.get("backward") or {}
        wanted = [n for n, flag in (("input", "input_requires_grad"), ("linear_weight", "linear_weight_requires_grad"),
                                    ("linear_bias", "linear_bias_requires_grad")) if bw.get(flag)]
        up = self.check.get("upstream")
        if self.property == "softmax":
            wanted = ["input"]
            if up and not any(float(v) for v in up):  # softmax's backward of 0 is 0 whatever y holds: it hides the
                up = [1.0] * len(up)  # write into y (lossfuzz saw the sign of the zeros), an upstream of 1 shows it
        lines.append("GRADS = %r  # the tensors whose gradient is asked for" % (wanted if up is not None else []))
        lines.append("UPSTREAM = %s  # the upstream gradient, one value per result element" %
                     ("None" if up is None else "[%s]" % ", ".join(number(v) for v in up)))
        spec = self.check.get("spec") or {}
        scale = spec.get("scale")
        scale = scale if isinstance(scale, list) else [scale] if scale is not None else None
        lines.append("SCALE = %s  # lossfuzz's magnitude of the terms behind each value (its tolerance's scale)" %
                     ("None" if scale is None else "[%s]" % ", ".join(number(v) for v in scale)))
        grad = self.check.get("spec_grad") or {}
        gscale = grad.get("scale")
        lines.append("GRAD_SCALE = %s  # the same for d input" %
                     ("None" if not gscale else "[%s]" % ", ".join(number(v) for v in gscale)))
        lines.append("TOLERANCE_DTYPE = %r" % (spec.get("tolerance_dtype") or "float64"))
        if self.crashed:
            lines.append("CRASHED = True  # the kernel's process died on it: its call is made in a child process")
        lines.append("PROPERTY = %r  # what the kernel broke%s" % (self.property, "" if not self.output else
                                                                     "; OUTPUT: which of its outputs"))
        if self.output:
            lines.append("OUTPUT = %r" % self.output)
        if self.llm:
            lines.append("KEYWORDS = %r  # lossfuzz's option -> the kernel's keyword (its claims)" %
                         dict(self.claims.get("options") or {}))
            lines.append("OUTPUTS = %r  # what the kernel returns, in order (its claims)" %
                         list(self.claims.get("outputs") or ["loss"]))
        return "\n".join(lines), blob

    def stand_in(self):
        """PyTorch's own function as MODULE:FUNCTION, for a script's command line; the LLM family's options have
        none (the script's definitions compose them): a faithful composition of the caller's takes its place."""
        if self.llm:
            return "a faithful composition with F.cross_entropy's signature and these options"
        return "torch.nn.functional:" + self.pytorch_call()[2:]

    def pytorch_call(self):
        if self.llm:
            return "definitions"
        if self.loss["fused_linear"]:
            return "F.linear_cross_entropy"
        return "F.%s" % self.loss["name"]


CLAIMS = {}
LLM_HEAD = "# PyTorch's answer with the LLM family's options: their definitions, composed of torch ops\n"


def kernel_claims(kernel):
    """A py: kernel's claims (imported once; its keywords and outputs are the script's)."""
    if kernel not in CLAIMS:
        import lossfuzz_kernel
        try:
            CLAIMS[kernel] = lossfuzz_kernel.load_kernel(kernel[3:] if kernel.startswith("py:") else kernel, "cpu")[1]
        except Exception as e:  # the kernel's import is its own code
            raise ExportError("%s: its claims cannot be read: %s" % (kernel, e))
    return CLAIMS[kernel]


def definitions():
    """The LLM family's definitions as source for a script: lossfuzz_llm.cross_entropy, renamed, whole."""
    import inspect
    import lossfuzz_llm
    return inspect.getsource(lossfuzz_llm.cross_entropy).replace("def cross_entropy(", "def definitions(", 1)


def stem_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def header(entry, name, kernel):
    how = "the kernel as the campaign called it: %s" % kernel
    if kernel != entry.kernel:
        how += " (lossfuzz's call of the kernel's package, copied beside this script)"
    if runtime.is_library(kernel):
        how += " - a C/CUDA library: this script replays it through lossfuzz (`lossfuzz check`), which it then needs"
    note = entry.case.get("note") or ""  # a kept finding's own words (findings/), not a campaign's stock note
    note = "" if note.startswith("minimized by") else "\n" + textwrap.fill(note.replace('"""', "'''"), 79) + "\n"
    return '''#!/usr/bin/env python3
"""%s: %s
%s
lossfuzz found this in %s:
  %s
  PyTorch: %s
  kernel:  %s

    python %s.py                   %s
    python %s.py MODULE:FUNCTION   another callable in its place (PyTorch's own: %s)

Prints both sides; exits 1 while the bug shows, 0 once it is gone, 2 where the
kernel cannot be called (its package missing). Needs torch (and the kernel's
own package), not lossfuzz; without a GPU, Triton kernels run in Triton's
interpreter (which needs numpy). Written by `lossfuzz export`."""
''' % (entry.cls, entry.detail.replace('"""', "'''")[:300], note, entry.kernel,
       entry.detail[:400].replace('"""', "'''"),
       entry.pytorch, entry.kernel_said, name, how, name, entry.stand_in())


PRELUDE = """import os
import sys

import torch
import torch.nn.functional as F

if not torch.cuda.is_available():  # a Triton kernel then runs in Triton's interpreter, with lossfuzz's mends of
    os.environ.setdefault("TRITON_INTERPRET", "1")  # it (bfloat16, Python floats, libdevice) where they are beside
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        __import__("%s").enable_interpreter()
    except ImportError:
        pass
nan, inf = float("nan"), float("inf")

"""


PRELUDE = PRELUDE % MENDS[:-3]


def repro_line(entry):
    """A C/CUDA library's script replays its repro through lossfuzz: where the repro and lossfuzz are."""
    if not runtime.is_library(entry.kernel):
        return ""
    return "REPRO = %r  # replayed by `lossfuzz check` (LOSSFUZZ: %r)\nLOSSFUZZ = %r\n" % (
        os.path.abspath(entry.path), LOSSFUZZ_BIN, LOSSFUZZ_BIN)


def write_script(entry, out_dir, name):
    case, blob = entry.script_case(name + ".safetensors")
    if blob:
        write_safetensors(os.path.join(out_dir, name + ".safetensors"), blob)
    kernel, roots = carry(entry, out_dir)
    text = header(entry, name, kernel) + PRELUDE + (LLM_HEAD + definitions() + "\n\n" if entry.llm else "") + \
        "KERNEL = %r\nROOTS = %r  # where KERNEL's file is looked for: from here, then as on the machine it was found\n" \
        "PYTORCH = %s\nBLOB = %r\n%s\n" % (kernel, roots, entry.pytorch_call(), name + ".safetensors",
                                          repro_line(entry)) + \
        case + "\n\n# ---- how the case is run and judged: the same in every script `lossfuzz export` writes\n" + \
        runtime.SOURCE + "\n\nif __name__ == \"__main__\":\n    sys.exit(main(globals()))\n"
    path = os.path.join(out_dir, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    return path


def versions(lossfuzz):
    from importlib import metadata
    out = []
    for dist in ("torch", "triton"):
        try:
            out.append("%s %s" % (dist, metadata.version(dist)))
        except metadata.PackageNotFoundError:
            pass
    v = subprocess.run([lossfuzz, "--version"], capture_output=True, text=True).stdout.strip()
    return out + ([v] if v else [])


def write_issue(entry, out_dir, name, lossfuzz, kernel_name):
    what = {"rejects": "PyTorch refuses the call; the kernel returns a result",
            "accepts": "PyTorch accepts the call; the kernel refuses or fails",
            "inputs": "the kernel changes a tensor it is given; PyTorch leaves its inputs as they were",
            "grad": "the kernel's gradient is not PyTorch's",
            "softmax": "called on softmax's output, the gradient through softmax is not PyTorch's (the kernel "
                       "writes into the tensor softmax saved for its backward)",
            "result": "the kernel's result is not PyTorch's (values, shape or dtype)"}[entry.property]
    script = open(os.path.join(out_dir, name + ".py")).read()
    text = "## %s: %s\n\n%s.\n\n- PyTorch: %s\n- %s: %s\n- what lossfuzz saw: %s\n\n" % (
        kernel_name or entry.kernel, what, what[0].upper() + what[1:], entry.pytorch, kernel_name or "kernel",
        entry.kernel_said, entry.detail)
    text += "Reproduce (needs torch and the kernel; exits 1 while the bug shows):\n\n```python\n%s```\n\n" % script
    if os.path.exists(os.path.join(out_dir, name + ".safetensors")):
        text += "(with `%s.safetensors` beside it: the tensors too large to inline)\n\n" % name
    text += "Versions: %s. Found by lossfuzz (`%s`, finding class `%s`).\n" % (
        ", ".join(versions(lossfuzz)), os.path.basename(entry.path), entry.cls)
    with open(os.path.join(out_dir, name + ".md"), "w") as f:
        f.write(text)


def campaign_entries(lossfuzz, facts, folder, out=None):
    with open(os.path.join(folder, "report.json")) as f:
        report = json.load(f)
    entries, skipped, name = [], [], None
    for row in report["findings"]:
        if row.get("accepted") or not row.get("file"):
            continue  # a claim's deviation: the kernel says it does so on purpose
        kernel = re.search(r"--kernel (\S+)", row.get("replay") or "")
        name = name or (re.search(r"kernel under test: ([^;\"]+)", row.get("case") or "") or [None, None])[1]
        if not kernel:
            skipped.append("%s: no kernel in its replay command" % row["signature"])
            continue
        try:
            entries.append(Entry(lossfuzz, facts, row["file"], kernel.group(1), row["class"], row.get("detail") or "",
                                 row.get("pytorch") or "", row.get("kernel") or ""))
        except ExportError as e:
            skipped.append(str(e))
            write_why_not(row["file"], str(e), out)
    return entries, skipped, name


def write_why_not(repro, why, out=None):
    """An entry without a standalone script still gets ENTRY.py (in `out`, else beside its repro): one that says
    why, and how to replay it (exit 2, neither the bug's 1 nor a fix's 0)."""
    text = why.replace('"""', "'''")
    if out:
        os.makedirs(out, exist_ok=True)
    with open(os.path.join(out or os.path.dirname(repro), stem_of(repro) + ".py"), "w") as f:
        f.write('#!/usr/bin/env python3\n"""No standalone script for this entry yet: %s"""\nimport sys\n\n'
                "print(%r)\nsys.exit(2)\n" % (text, "lossfuzz export: " + text))


def export(lossfuzz, paths, kernel=None, out=None, pytest=None):
    facts = json.loads(lossfuzz_json(lossfuzz, "describe", "--json"))
    entries, skipped, kernel_name = [], [], None
    for path in paths:
        if not os.path.exists(path):
            raise ExportError("%s: no such file or folder" % path)
        if os.path.isdir(path):
            e, s, kernel_name = campaign_entries(lossfuzz, facts, path, out)
            entries += [(x, out or os.path.join(path, "repros")) for x in e]
            skipped += s
    files = [p for p in paths if not os.path.isdir(p)]
    if files and not kernel:
        raise ExportError("%s: a repro needs --kernel (a campaign folder's report names it)" % files[0])
    if files:  # one replay of them all on the kernel: one worker, one import of its package
        verdicts = [json.loads(line) for line in lossfuzz_json(lossfuzz, "check", "--json", "--kernel", kernel,
                                                               *files).splitlines() if line.startswith("{")]
        for path, verdict in zip(files, verdicts):
            if not verdict.get("finding"):
                skipped.append("%s: no finding on %s now (fixed?)" % (path, kernel))
                continue
            k = verdict.get("kernel") or {}
            entries.append((Entry(lossfuzz, facts, path, kernel, verdict["finding"], verdict.get("detail") or "",
                                  str((verdict.get("spec") or {}).get("value", "")),
                                  str(k.get("value", k.get("message", "")))),
                            out or os.path.dirname(os.path.abspath(path))))
    written = []
    for folder in {folder for _, folder in entries}:
        os.makedirs(folder, exist_ok=True)
        carry_mends(folder)
    for entry, folder in entries:
        name = stem_of(entry.path)
        written.append(write_script(entry, folder, name))
        write_issue(entry, folder, name, lossfuzz, kernel_name)
    for path in paths:
        if os.path.isdir(path) and not out:
            name_scripts(path, {os.path.abspath(e.path): w for (e, _), w in zip(entries, written)})
    if pytest:
        carry_mends(os.path.dirname(os.path.abspath(pytest)))
        write_pytest(pytest, [e for e, _ in entries])
    return written, skipped


def name_scripts(folder, scripts):
    """The campaign's report names each entry's script: report.json's "script", a section of report.md."""
    path = os.path.join(folder, "report.json")
    with open(path) as f:
        report = json.load(f)
    lines = []
    for row in report["findings"]:
        script = scripts.get(os.path.abspath(row.get("file") or ""))
        if script:
            row["script"] = script
            lines.append("- `%s`: `python %s` (issue text: `%s.md`)" % (row["signature"], script, script[:-3]))
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
    md = os.path.join(folder, "report.md")
    with open(md) as f:
        text = f.read().split("\n## Standalone scripts\n")[0]  # an earlier export's section goes
    if lines:
        text += ("\n## Standalone scripts\n\nEach entry as a script that needs only torch and the kernel "
                 "(`lossfuzz export`): exit 1 while the bug shows, 0 once it is gone.\n\n" + "\n".join(lines) + "\n")
    with open(md, "w") as f:
        f.write(text)


def write_pytest(path, entries):
    """The entries as one pytest file: a test each, failing while its bug shows; no lossfuzz needed."""
    parts = ['"""lossfuzz\'s findings as tests: each fails while its bug shows (`lossfuzz export --pytest`).\n'
             'Needs torch and the kernel\'s own package."""\n', PRELUDE, runtime.SOURCE]
    if any(e.llm for e in entries):
        parts.append("\n\n" + LLM_HEAD + definitions())
    folder = os.path.dirname(os.path.abspath(path))
    for entry in entries:
        name = re.sub(r"\W", "_", stem_of(entry.path))
        case, blob = entry.script_case(name + ".safetensors")
        if blob:
            write_safetensors(os.path.join(folder, name + ".safetensors"), blob)
        kernel, roots = carry(entry, folder)
        body = "KERNEL = %r\nROOTS = %r\nPYTORCH = %s\nBLOB = %r\n%s%s\nassert main(locals()) == 0, %r" % (
            kernel, roots, entry.pytorch_call(), name + ".safetensors", repro_line(entry), case,
            entry.cls + ": " + entry.detail[:200])
        parts.append("\n\ndef test_%s():\n    \"\"\"%s\"\"\"\n%s\n" % (
            name, entry.cls, "\n".join("    " + line if line else "" for line in body.split("\n"))))
    with open(path, "w") as f:
        f.write("".join(parts))


def main():
    ap = argparse.ArgumentParser(prog="lossfuzz export", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="a campaign folder (its report.json) or repro case files")
    ap.add_argument("--lossfuzz", default=os.environ.get("LOSSFUZZ", "lossfuzz"))
    ap.add_argument("--kernel", help="the kernel a repro file was found in (py:MODULE:FUNCTION)")
    ap.add_argument("--out", help="write the scripts here (default: beside each repro)")
    ap.add_argument("--pytest", help="also write the entries as one pytest file")
    ap.add_argument("--quiet", action="store_true", help="name no file written (`lossfuzz fuzz` runs it so)")
    a = ap.parse_args()
    global LOSSFUZZ_BIN
    LOSSFUZZ_BIN = os.path.abspath(a.lossfuzz) if os.sep in a.lossfuzz else a.lossfuzz
    try:
        written, skipped = export(a.lossfuzz, a.paths, a.kernel, a.out, a.pytest)
    except (ExportError, OSError, ValueError, KeyError) as e:
        print("lossfuzz export: %s" % e, file=sys.stderr)
        return 2
    for path in written if not a.quiet else ():
        print(path)
    for why in skipped:
        print("lossfuzz export: not exported: %s" % why, file=sys.stderr)
    if a.pytest and not a.quiet:
        print(a.pytest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
