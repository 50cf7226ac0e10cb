"""The lossfuzz command, run for the Python API: where it is, and a callable
as the `--kernel py:MODULE:FUNCTION` its worker imports in a process of its own."""
import inspect
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import types


class LossfuzzError(RuntimeError):
    """lossfuzz could not run as asked: no command, a kernel it cannot import, bad options."""


def command():
    """The lossfuzz executable: $LOSSFUZZ, else the one pip installed beside this
    Python, else lossfuzz on $PATH, else the source tree's build/lossfuzz."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("LOSSFUZZ"), os.path.join(sysconfig.get_path("scripts"), "lossfuzz"),
                  shutil.which("lossfuzz"), os.path.join(here, "..", "..", "build", "lossfuzz")]
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise LossfuzzError("the lossfuzz command was not found: `pip install .` in lossfuzz's clone installs it "
                        "(or set $LOSSFUZZ to its path)")


def _importable_as(module):
    """Whether the worker, on this sys.path, imports this very module by its
    name: a file of that dotted path under a sys.path entry is the module's
    (sys.modules is not asked: pytest imports test modules under names of its own)."""
    file = getattr(module, "__file__", None)
    if module.__name__ == "__main__" or not file:
        return False
    parts = module.__name__.split(".")
    for root in sys.path:
        base = os.path.join(root or os.getcwd(), *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate) and os.path.realpath(candidate) == os.path.realpath(file):
                return True
    return False


def _held_by(fn):
    """(module, dotted name) a module holds fn under, as the worker looks it up
    (mod:f, mod:Cls.meth, mod:Loss.apply, mod:obj.meth, mod:obj); None when none."""
    owner = getattr(fn, "__self__", None)
    bound = inspect.ismethod(fn) or (inspect.isbuiltin(fn) and inspect.isclass(owner))  # C's: Function.apply
    if bound and owner is not None:  # a bound method: its owner's name, then its own
        held = (sys.modules.get(owner.__module__), owner.__qualname__) if inspect.isclass(owner) else _held_by(owner)
        if held and held[0] is not None and "<" not in held[1]:
            return held[0], "%s.%s" % (held[1], fn.__name__)
    name = getattr(fn, "__qualname__", None)
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    if name and module is not None and "<" not in name:
        found = module
        for part in name.split("."):
            found = getattr(found, part, None)
        if found is fn:
            return module, name
    # an object (a callable instance, a functools.partial) held at a module's top level
    likely = [sys.modules.get(n or "") for n in (getattr(fn, "__module__", None), type(fn).__module__)]
    others = sorted(sys.modules.values(), key=lambda m: getattr(m, "__name__", "") == "__main__")  # __main__ last
    for mod in likely + others:
        for key, value in (list(vars(mod).items()) if isinstance(mod, types.ModuleType) else ()):
            if value is fn:
                return mod, key
    return None


def kernel_spec(fn):
    """What --kernel takes for fn: a string as it is (LIB.so, py:MODULE:FUNCTION),
    a callable as py:MODULE:NAME, which lossfuzz's worker imports anew: by its
    dotted module where this sys.path finds that module, else by its file."""
    if isinstance(fn, (str, os.PathLike)):
        return os.fspath(fn)
    if not callable(fn):
        raise LossfuzzError("a kernel is a callable or a --kernel string, not %s" % type(fn).__name__)
    held = _held_by(fn)
    if held is None:
        raise LossfuzzError("lossfuzz imports the kernel in a worker process of its own: %r must be held at the top "
                            "level of a module (not a lambda or a local function), or pass \"py:MODULE:NAME\"" % (fn,))
    module, name = held
    if _importable_as(module):
        return "py:%s:%s" % (module.__name__, name)
    path = getattr(module, "__file__", None)  # a script run as __main__, a test module pytest imported by path
    if not path or not path.endswith(".py"):
        raise LossfuzzError("%r: its module has no .py file lossfuzz's worker could import" % (fn,))
    return "py:%s:%s" % (os.path.abspath(path), name)


def run(args, claims=None, answers=(0, 1)):
    """Runs `lossfuzz ARGS` (kernels in this Python, importing from this
    sys.path); returns the CompletedProcess. An exit status in answers (0, 1:
    a finding) is an answer; any other raises LossfuzzError with what lossfuzz said."""
    env = dict(os.environ)
    env["LOSSFUZZ_PYTHON"] = sys.executable  # the kernel runs under this Python, with this sys.path
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(paths + [env["PYTHONPATH"]] if env.get("PYTHONPATH") else paths)
    if claims is not None:
        env["LOSSFUZZ_CLAIMS"] = json.dumps(claims)
    done = subprocess.run([command()] + list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if done.returncode not in answers:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise LossfuzzError("lossfuzz %s exited %d: %s" % (args[0], done.returncode, "\n".join(said[-20:])))
    return done
