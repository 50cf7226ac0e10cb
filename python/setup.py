"""Puts the guard library lossfuzz's CMake build made into the package:
$LOSSFUZZ_GUARD_LIB, else ../build/harness/liblossfuzz_guard.so. No compiler
runs here; without the library the install stops and says how to make it."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class with_guard_library(build_py):
    def run(self):
        lib = os.environ.get("LOSSFUZZ_GUARD_LIB") or os.path.join(HERE, "..", "build", "harness", "liblossfuzz_guard.so")
        if not os.path.exists(lib):
            raise SystemExit("lossfuzz: %s not found: build lossfuzz first (cmake -S . -B build && cmake --build build) "
                             "or set LOSSFUZZ_GUARD_LIB" % lib)
        super().run()
        shutil.copy(lib, os.path.join(self.build_lib, "lossfuzz", "liblossfuzz_guard.so"))


setup(cmdclass={"build_py": with_guard_library})
