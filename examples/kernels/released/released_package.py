"""Where the adapters beside this file find a released package: install_released.sh's pinned copy in
.released/ first, where it is; elsewhere (a generated script's copy of an adapter) the environment's own."""
import importlib.util
import os
import sys

RELEASED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".released")


def pinned_first(folder):
    """.released/FOLDER first on sys.path, where install_released.sh put it."""
    path = os.path.normpath(os.path.join(RELEASED, folder))
    if os.path.isdir(path):
        sys.path.insert(0, path)


def package_folder(package, folder, pip):
    """The folder of `package`, found without running its __init__ (which may need a GPU or other packages);
    ImportError saying how to install it (`pip install --no-deps PIP`) where it is nowhere."""
    pinned_first(folder)
    found = importlib.util.find_spec(package)
    if found is None:
        raise ImportError("%s is not installed: pip install --no-deps %s, or sh examples/kernels/released/"
                          "install_released.sh" % (package, pip))
    return found.submodule_search_locations[0]
