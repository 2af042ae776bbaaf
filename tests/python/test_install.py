# SPDX-License-Identifier: MIT
"""The user's path (docs/python.md, "Install"): libskit installed with
`cmake --install` (here into a temporary prefix), the package installed
offline with pip into a virtual environment that sees Debian's
setuptools, then used from another folder, with no terminal, through the
system's loader and through a relative SKIT_LIBRARY: the docs' examples
and examples/python/host_loop.py run against that install."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import HERE, SRC, run_py
from test_docs import DOC, PYTHON, copy_cassettes
from test_host_loop import EXAMPLE, check_host_loop

BUILD = os.environ.get("SKIT_BINARY_DIR")


def clean_env(**extra):
    """A fresh machine's environment: no pip configuration, no
    PYTHONPATH, no SKIT_LIBRARY, no loader path."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PIP_") and k not in
           ("PYTHONPATH", "SKIT_LIBRARY", "LD_LIBRARY_PATH", "VIRTUAL_ENV")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env.update(extra)
    return env


def run_installed(args, python, cwd, env):
    """`python ARGS` with exactly the environment `env`."""
    return run_py(args, python=python, cwd=cwd, env=env, whole_env=True)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    if not BUILD:
        pytest.fail("SKIT_BINARY_DIR names the build to install")
    t = tmp_path_factory.mktemp("install")
    prefix = t / "prefix"
    r = subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (prefix / "lib" / "libskit.so.0").exists()
    # The venv as docs/python.md makes it, with Debian's python3.
    venv = t / "venv"
    r = subprocess.run([sys.executable, "-m", "venv",
                        "--system-site-packages", str(venv)],
                       capture_output=True, text=True, env=clean_env())
    assert r.returncode == 0, r.stderr
    # pip builds in the package's folder: a copy keeps the tree clean.
    pkg = t / "src" / "bindings" / "python"
    shutil.copytree(os.path.join(SRC, "bindings", "python"), pkg)
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index",
                        "./bindings/python"], cwd=t / "src",
                       capture_output=True, text=True, timeout=300,
                       env=clean_env(HOME=str(t)), stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Successfully installed skit-" in r.stdout
    return t, prefix, str(venv / "bin" / "python")


def test_docs_name_the_commands_tested_here():
    text = open(DOC).read()
    assert "python3 -m venv --system-site-packages ~/.venvs/skit\n" in text
    assert "~/.venvs/skit/bin/pip install ./bindings/python\n" in text
    assert "sudo cmake --install build && sudo ldconfig\n" in text


def test_installed_package_and_library(installed, tmp_path):
    t, prefix, python = installed
    probe = ("import skit, sys; print(skit.__file__); "
             "print(skit.library_path); print(skit.__version__)")
    # The system's loader (a prefix of one's own: LD_LIBRARY_PATH).
    r = run_installed(["-c", probe], python, tmp_path,
                      clean_env(LD_LIBRARY_PATH=str(prefix / "lib")))
    assert r.returncode == 0, r.stderr
    where, lib, version = r.stdout.split()
    assert where.startswith(str(t / "venv")) and "site-packages" in where
    assert lib == "libskit.so.0"
    # Without either, the error says what was tried.
    r = run_installed(["-c", probe], python, tmp_path, clean_env())
    assert r.returncode == 1 and "SKIT_LIBRARY" in r.stderr


def test_installed_builtin_skills(installed, tmp_path):
    t, prefix, python = installed
    # A relative SKIT_LIBRARY, from the folder above the prefix; the
    # library finds the prefix's share/skit/skills relative to itself.
    code = ("import skit\n"
            "reg = skit.Registry.default(project='empty')\n"
            "for e in reg.skills():\n"
            "    print(e.root, e.name, e.path)\n")
    (t / "empty").mkdir(exist_ok=True)
    r = run_installed(["-c", code], python, t,
                      clean_env(SKIT_LIBRARY="prefix/lib/libskit.so.0",
                                HOME=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    lines = [x.split() for x in r.stdout.splitlines()]
    builtin = [x for x in lines if x[0] == "builtin"]
    assert ["csv-report", str(prefix / "share" / "skit" / "skills" /
                              "csv-report")] in [x[1:] for x in builtin]


@pytest.mark.parametrize("lang,code,want,line", PYTHON,
                         ids=["line%d" % b[3] for b in PYTHON])
def test_docs_against_the_install(installed, tmp_path, lang, code, want,
                                  line):
    t, prefix, python = installed
    shutil.copytree(os.path.join(SRC, "examples", "skills"),
                    tmp_path / "skills")
    copy_cassettes(tmp_path)
    (tmp_path / "data.csv").write_text("a,b\n1,2\n3,4\n5,9\n")
    (tmp_path / ".git").mkdir()
    lib = str(prefix / "lib" / "libskit.so.0")
    r = run_installed(["-c", code], python, tmp_path,
                      clean_env(SKIT_LIBRARY=lib, HOME=str(t)))
    assert r.returncode == 0, "docs/python.md:%d\n%s" % (line, r.stderr)
    for w in (want or "").splitlines():
        assert w in r.stdout.splitlines(), "docs/python.md:%d" % line


def test_host_loop_against_the_install(installed, openai_stub, project):
    t, prefix, python = installed
    stub = openai_stub(os.path.join(HERE, "host_loop.responses.jsonl"))
    r = run_installed([EXAMPLE], python, project,
                      clean_env(LD_LIBRARY_PATH=str(prefix / "lib"),
                                OPENAI_BASE_URL=stub.url,
                                OPENAI_API_KEY="test-key"))
    check_host_loop(stub, r)
