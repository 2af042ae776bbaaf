# SPDX-License-Identifier: MIT
"""Run by test_leak.py: 10,000 calls through the package with libskit's
allocations counted (counting_alloc.c through skit_set_allocator()).

    python3 leak_loop.py COUNTER.so SKILLS PROJECT CASSETTE TOOLS_CASSETTE

Prints "live BEFORE AFTER total N calls C" and exits 0 when every block
the library handed out during the loop was freed again.
"""
import ctypes
import gc
import os
import sys

counter = ctypes.CDLL(sys.argv[1])
counter.counting_live.restype = ctypes.c_long
counter.counting_total.restype = ctypes.c_long
raw = ctypes.CDLL(os.environ["SKIT_LIBRARY"])
hooks = (ctypes.c_void_p * 4).in_dll(counter, "counting_allocator")
# Before any other libskit call, as skit_set_allocator() requires; the
# package then loads the same library (the loader returns this copy).
assert raw.skit_set_allocator(ctypes.byref(hooks)) == 0

import skit  # noqa: E402

skills, project, cassette, tools = sys.argv[2:6]
csv = os.path.join(skills, "csv-report")
bad = os.path.join(project, "bad-skill")
reg = skit.Registry([skills])
layer = skit.SkillTools(reg, project=project)
layer.activate("csv-report")
refuser = skit.SkillTools(reg, project=project,
                          approve=lambda r: 1 / 0)
refuser.activate("csv-report")
SCRIPT = {"skill": "csv-report", "path": "scripts/report.py",
          "args": ["data.csv"]}


def load():
    with skit.Skill.load(csv) as s:
        assert s.name and s.properties and s.body and s.diagnostics == []


def missing():
    try:
        skit.Skill.load(os.path.join(project, "missing"))
    except skit.Error as e:
        assert e.code == "ENOTFOUND"


def agent():
    a = skit.Agent("replay:" + cassette, registry=reg, project=project)
    assert a.send("hello") == "Hello."
    a.finish()


def tool_agent():
    tool = skit.Tool("mcp__shop__stock",
                     lambda a: a["item"] + ": 42 in stock", "Stock.",
                     risk="read")
    a = skit.Agent("replay:" + tools, registry=reg, project=project,
                   tools=[tool])
    assert a.send("apples?") == "The shop holds 42 apples."
    a.close()


def refused():
    r = refuser.call("run_skill_script", SCRIPT)
    assert r.is_error
    refuser.approval_errors.clear()


def new_layer():
    skit.SkillTools(reg, project=project, allow=["Read"]).close()


ops = [
    load,
    lambda: skit.validate(bad),
    lambda: reg.skills(all=True),
    lambda: reg.search("csv statistics"),
    lambda: reg.index(budget=4000),
    lambda: layer.tools("anthropic"),
    lambda: layer.call("use_skill", {"name": "csv-report"}),
    lambda: layer.call("read_skill_resource", {
        "skill": "csv-report", "path": "references/statistics.md"}),
    lambda: layer.call("no_such_tool", {}),
    missing,
    lambda: skit.effective_options("agent", max_turns=3),
    agent,
    tool_agent,
    refused,
    new_layer,
]
for op in ops:  # warm up: caches built on first use are not leaks
    op()
gc.collect()
before = counter.counting_live()
start = counter.counting_total()
N = 10000
for i in range(N):
    ops[i % len(ops)]()
gc.collect()
after = counter.counting_live()
total = counter.counting_total() - start
print("live %d %d total %d calls %d" % (before, after, total, N))
sys.exit(0 if after == before and total > N else 1)
