# SPDX-License-Identifier: MIT
"""Finding libskit: $SKIT_LIBRARY (a path, relative to the current
folder when relative), else the system's loader; a clear ImportError
naming what was tried when neither works."""
import ctypes.util
import os
import shutil

import pytest

from conftest import LIB, run_py

PROBE = ["-c", "import skit; print(skit.library_path, skit.__version__)"]


def test_skit_library_names_the_file():
    r = run_py(PROBE, env={"SKIT_LIBRARY": LIB})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == LIB


def test_relative_skit_library(tmp_path):
    libdir = tmp_path / "lib"
    libdir.mkdir()
    shutil.copy(LIB, libdir / "libskit.so")
    r = run_py(PROBE, env={"SKIT_LIBRARY": "lib/libskit.so"}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == str(libdir / "libskit.so")
    # A bare file name is a file of the current folder too, not a name
    # for the loader's search path.
    r = run_py(PROBE, env={"SKIT_LIBRARY": "libskit.so"}, cwd=libdir)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == str(libdir / "libskit.so")


def test_missing_skit_library(tmp_path):
    r = run_py(PROBE, env={"SKIT_LIBRARY": str(tmp_path / "nope.so")})
    assert r.returncode == 1
    assert "ImportError: skit: cannot load libskit from SKIT_LIBRARY=" \
        + str(tmp_path / "nope.so") in r.stderr
    assert "No such file" in r.stderr


def test_no_library_anywhere(tmp_path):
    if ctypes.util.find_library("skit"):
        pytest.skip("a libskit is installed system-wide")
    r = run_py(PROBE, env={"SKIT_LIBRARY": None, "LD_LIBRARY_PATH": None},
               cwd=tmp_path)
    assert r.returncode == 1
    err = r.stderr.strip().splitlines()[-1]
    assert err.startswith("ImportError: skit: cannot find libskit.")
    assert "libskit.so.0 (" in err and "libskit.so (" in err
    assert "SKIT_LIBRARY" in err


def test_system_loader(tmp_path):
    # No SKIT_LIBRARY: the loader finds libskit.so.0 on its search path.
    libdir = tmp_path / "lib"
    libdir.mkdir()
    shutil.copy(LIB, libdir / "libskit.so.0")
    r = run_py(PROBE, env={"SKIT_LIBRARY": None,
                           "LD_LIBRARY_PATH": str(libdir)}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "libskit.so.0"


def test_a_library_that_is_not_libskit(tmp_path):
    other = ctypes.util.find_library("z") or ctypes.util.find_library("c")
    path = None
    for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
              "/usr/lib64", "/lib", "/usr/lib"):
        if os.path.exists(os.path.join(d, other)):
            path = os.path.join(d, other)
            break
    if not path:
        pytest.skip("no system library found to stand in")
    r = run_py(PROBE, env={"SKIT_LIBRARY": path})
    assert r.returncode == 1
    assert "is too old for this package: it lacks skit_version" in r.stderr
