"""The lossfuzz command, run for the Python API: where it is, and a callable
as the `--kernel py:MODULE:FUNCTION` its worker imports in a process of its own."""
import importlib.util
import inspect
import json
import os
import shutil
import subprocess
import sys
import sysconfig


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
    """Whether the worker, on this sys.path, imports this very module by its name."""
    if module.__name__ == "__main__":
        return False
    try:
        spec = importlib.util.find_spec(module.__name__)
    except (ImportError, ValueError):
        return False
    origin, file = getattr(spec, "origin", None), getattr(module, "__file__", None)
    return bool(spec) and (not file or not origin or os.path.realpath(origin) == os.path.realpath(file))


def kernel_spec(fn):
    """What --kernel takes for fn: a string as it is (LIB.so, py:MODULE:FUNCTION),
    a callable as py:MODULE:QUALNAME, which lossfuzz's worker imports anew."""
    if isinstance(fn, (str, os.PathLike)):
        return os.fspath(fn)
    if not callable(fn):
        raise LossfuzzError("a kernel is a callable or a --kernel string, not %s" % type(fn).__name__)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    if not name or "<" in name or module is None:
        raise LossfuzzError("lossfuzz imports the kernel in a worker process of its own: %r must be defined at "
                            "the top level of a module (not a lambda or a local function)" % (fn,))
    found = module
    for part in name.split("."):
        found = getattr(found, part, None)
    if found is not fn:
        raise LossfuzzError("%s.%s is not the kernel given (decorated or replaced?): pass the module-level "
                            "callable" % (module.__name__, name))
    if _importable_as(module):
        return "py:%s:%s" % (module.__name__, name)
    path = inspect.getsourcefile(module)  # a script run as __main__, a test module pytest imported by path
    if not path:
        raise LossfuzzError("%r: its module has no file lossfuzz's worker could import" % (fn,))
    return "py:%s:%s" % (os.path.abspath(path), name)


def run(args, claims=None, answers=(0, 1)):
    """Runs `lossfuzz ARGS` (kernels in this Python, importing from this
    sys.path); returns the CompletedProcess. An exit status in answers (0, 1:
    a finding) is an answer; any other raises LossfuzzError with what lossfuzz said."""
    env = dict(os.environ)
    env.setdefault("LOSSFUZZ_PYTHON", sys.executable)
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
