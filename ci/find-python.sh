#!/bin/sh
# ci/find-python.sh [MODULE...] - prints the first Python interpreter that
# imports every MODULE (default: torch numpy), trying $LF_PYTHON, the project's
# .venv (ci/setup.sh: today's torch), python3 on PATH, then Debian's
# /usr/bin/python3 (where python3-torch installs): a python3 found earlier on
# PATH (pyenv, a venv) may lack torch. Exit 1, with
# the interpreters tried on stderr, when none does; stdout and stderr say
# nothing else, so `py=$(ci/find-python.sh 2>&1)` is a path or the reason.
[ $# -gt 0 ] || set -- torch numpy
imports=$(printf 'import %s;' "$@")
tried=""
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python3"
for py in "${LF_PYTHON:-}" "$venv" "$(command -v python3 2>/dev/null)" /usr/bin/python3 /usr/local/bin/python3; do
    [ -n "$py" ] && [ -x "$py" ] || continue
    case " $tried " in *" $py "*) continue ;; esac
    tried="$tried $py"
    if "$py" -c "$imports" >/dev/null 2>&1; then
        echo "$py"
        exit 0
    fi
done
echo "find-python: no python3 imports $* (tried:${tried:- none}); set LF_PYTHON" >&2
exit 1
