# SPDX-License-Identifier: MIT
"""Shared set-up of the Python package's tests (run by tests/python/run.sh).

`import skit` here is the package of the source tree
(PYTHONPATH=bindings/python) over the library of $SKIT_LIBRARY;
test_install.py checks the installed package over an installed library.
HOME and the config folders point into a scratch folder, so the user's
own skills, trust list and config never leak in.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

SRC = os.path.abspath(os.environ.get("SKIT_SOURCE_DIR") or
                      os.path.join(os.path.dirname(__file__), "..", ".."))
PKG = os.path.join(SRC, "bindings", "python")
EXAMPLES = os.path.join(SRC, "examples", "skills")
HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("SKIT_LIBRARY",
                      os.path.join(SRC, "build", "libskit.so"))
LIB = os.path.abspath(os.environ["SKIT_LIBRARY"])
os.environ["SKIT_LIBRARY"] = LIB

_home = tempfile.mkdtemp(prefix="skit-py-home-")
os.environ["HOME"] = _home
os.environ["XDG_CONFIG_HOME"] = os.path.join(_home, ".config")
os.environ["XDG_CACHE_HOME"] = os.path.join(_home, ".cache")
for _v in ("SKIT_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL",
           "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
    os.environ.pop(_v, None)
sys.path.insert(0, PKG)


@pytest.fixture
def skills(tmp_path):
    """A copy of examples/skills: tests may change it."""
    dst = tmp_path / "skills"
    shutil.copytree(EXAMPLES, dst)
    return dst


@pytest.fixture
def project(tmp_path):
    """An empty project folder (a .git marks it) holding a CSV file."""
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / "data.csv").write_text("a,b\n1,2\n3,4\n5,9\n")
    return p


def run_py(args, *, env=None, cwd=None, timeout=300, python=None,
           whole_env=False):
    """Run python (this interpreter unless `python`) with no terminal:
    stdin from /dev/null. `env` adds to (or, with None values, removes
    from) this environment, with PYTHONPATH naming the source tree's
    package; with `whole_env` it is the whole environment. Returns the
    CompletedProcess, text mode."""
    e = {} if whole_env else dict(os.environ, PYTHONPATH=PKG)
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return subprocess.run([python or sys.executable] + list(args), env=e,
                          cwd=cwd, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)


class OpenAIStub:
    """tests/support/openai_stub.py on 127.0.0.1: a fake model server
    answering Chat Completions from a JSONL file, logging each request."""

    def __init__(self, folder, responses):
        import time
        self.dir = folder
        os.makedirs(folder, exist_ok=True)
        port_file = os.path.join(folder, "port")
        self.log = os.path.join(folder, "requests.jsonl")
        self.record = os.path.join(folder, "record")
        os.makedirs(self.record, exist_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(SRC, "tests", "support",
                                          "openai_stub.py"),
             responses, port_file, self.log, self.record],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        else:
            self.close()
            raise RuntimeError("openai_stub.py did not start")
        self.url = "http://127.0.0.1:%s/v1" % open(port_file).read().strip()

    def requests(self):
        import json
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]

    def recorded(self):
        import json
        names = sorted(os.listdir(self.record))
        return [json.load(open(os.path.join(self.record, n))) for n in names]

    def close(self):
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def openai_stub(tmp_path):
    stubs = []

    def start(responses):
        s = OpenAIStub(str(tmp_path / ("stub%d" % len(stubs))), responses)
        stubs.append(s)
        return s
    yield start
    for s in stubs:
        s.close()
