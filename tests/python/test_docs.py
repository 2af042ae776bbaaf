# SPDX-License-Identifier: MIT
"""docs/python.md: every Python example runs, each in a fresh
interpreter with no terminal, from a folder holding skills/ (a copy of
examples/skills), the cassettes of examples/python and data.csv; where an
example is followed by a ```text block, each of its lines must be a line
of the example's output. The build-tree command of "Install" runs too
(test_install.py replays the install commands)."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import EXAMPLES, LIB, PKG, SRC, run_py

DOC = os.path.join(SRC, "docs", "python.md")


def blocks():
    text = open(DOC, encoding="utf-8").read()
    found = []
    for m in re.finditer(r"```(\w+)\n(.*?)```\n(?:```text\n(.*?)```\n)?",
                         text, re.S):
        found.append((m.group(1), m.group(2), m.group(3),
                      text.count("\n", 0, m.start()) + 1))
    return found


PYTHON = [b for b in blocks() if b[0] == "python"]


def test_the_page_has_examples():
    assert len(PYTHON) >= 8
    assert sum(1 for b in PYTHON if b[2]) >= 7


def copy_cassettes(dst):
    """The replay cassettes of examples/python, which the page uses."""
    ex = os.path.join(SRC, "examples", "python")
    for name in os.listdir(ex):
        if name.endswith(".jsonl"):
            shutil.copy(os.path.join(ex, name), dst)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("docs")
    shutil.copytree(EXAMPLES, d / "skills")
    copy_cassettes(d)
    (d / "data.csv").write_text("a,b\n1,2\n3,4\n5,9\n")
    (d / ".git").mkdir()
    return d


@pytest.mark.parametrize("lang,code,want,line", PYTHON,
                         ids=["line%d" % b[3] for b in PYTHON])
def test_example(folder, lang, code, want, line):
    r = run_py(["-c", code], cwd=folder)
    assert r.returncode == 0, "docs/python.md:%d\n%s" % (line, r.stderr)
    got = r.stdout.splitlines()
    for w in (want or "").splitlines():
        assert w in got, "docs/python.md:%d: %r not in %r" % (line, w, got)


def test_build_tree_command():
    (cmd,) = [b[1].strip() for b in blocks()
              if b[0] == "sh" and b[1].startswith("PYTHONPATH=")]
    assert "SKIT_LIBRARY=build/libskit.so" in cmd
    env = dict(os.environ, PYTHONPATH="")
    r = subprocess.run(cmd.replace("build/libskit.so", LIB), shell=True,
                       cwd=SRC, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"\d+\.\d+\.\d+\n", r.stdout)
    assert os.path.isdir(os.path.join(SRC, PKG))


def test_readme_example():
    text = open(os.path.join(SRC, "README.md"), encoding="utf-8").read()
    section = text[text.index("## Python\n"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    r = run_py(["-c", code], cwd=SRC)
    assert r.returncode == 0, r.stderr
    assert '<skill name="csv-report"' in r.stdout
