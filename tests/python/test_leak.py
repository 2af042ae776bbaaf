# SPDX-License-Identifier: MIT
"""Ownership: every string and object the library hands out is freed.

leak_loop.py counts libskit's allocations through skit_set_allocator()
(counting_alloc.c) across 10,000 calls of the package's surface: skills,
validation, registries, search, the index, the skills layer's tools and
calls (a refusal by a raising approver among them), errors, options and
whole agent runs, one with a tool of the program. The blocks alive
before and after must be equal.
"""
import os
import shutil
import subprocess

import pytest

from conftest import HERE, SRC, run_py


def test_no_leak_over_10000_calls(tmp_path, skills, project):
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not cc:
        pytest.fail("a C compiler (cc) is needed to build the counter")
    so = tmp_path / "counting_alloc.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(so),
                    os.path.join(HERE, "counting_alloc.c")], check=True)
    bad = project / "bad-skill"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: Bad_Name\n---\n")
    r = run_py([os.path.join(HERE, "leak_loop.py"), str(so), str(skills),
                str(project), os.path.join(HERE, "leak.jsonl"),
                os.path.join(SRC, "examples", "python", "stock_task.jsonl")],
               timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    live, before, after, _, total, _, calls = r.stdout.split()
    assert before == after and int(calls) == 10000
    assert int(total) > 10000  # the hook saw the library's allocations
