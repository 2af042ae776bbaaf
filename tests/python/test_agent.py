# SPDX-License-Identifier: MIT
"""skit.Agent: skit's own loop, with the replay model."""
import json
import os

import pytest

import skit
from conftest import HERE

CASSETTE = os.path.join(HERE, "agent.jsonl")


def test_agent_completes_a_task(skills, project, tmp_path):
    asked, lines, text = [], [], []
    agent = skit.Agent("replay:" + CASSETTE, registry=skit.Registry([skills]),
                       project=project, approve=lambda r: asked.append(r) or
                       True, trace=lines.append, on_text=text.append,
                       runs_dir=tmp_path / "runs", max_turns=5)
    answer = agent.send("Profile data.csv")
    assert answer == "data.csv has 3 rows and 2 columns."
    assert [a.tool for a in asked] == ["run_skill_script"]
    st = agent.state
    assert st["active"] == ["csv-report"] and st["turns"] == 3
    assert st["tool_calls"] == 2 and st["script_runs"] == 1
    assert any("csv-report" in x for x in lines)
    assert "".join(text) == answer
    run_dir = agent.run_dir
    agent.finish()
    with open(os.path.join(run_dir, "run.json")) as f:
        assert json.load(f)["status"] == "ok"


def test_agent_refusal_reaches_the_model(skills, project):
    # Without an approver the script is refused; the cassette's third
    # answer expects the script's output, so the replay model fails.
    agent = skit.Agent("replay:" + CASSETTE, registry=skit.Registry([skills]),
                       project=project)
    with pytest.raises(skit.Error) as e:
        agent.send("Profile data.csv")
    assert e.value.code == "EINVALID" and "Rows: 3" in e.value.message


def test_agent_errors(skills, project, tmp_path):
    reg = skit.Registry([skills])
    with pytest.raises(skit.Error) as e:
        skit.Agent("nosuch:model", registry=reg, project=project)
    assert e.value.code == "EUSAGE"
    with pytest.raises(skit.Error) as e:
        skit.Agent("replay:" + str(tmp_path / "none.jsonl"), registry=reg)
    assert e.value.code in ("EUSAGE", "EIO", "ENOTFOUND")
    with pytest.raises(skit.Error) as e:
        skit.Agent("replay:" + CASSETTE, registry=reg, max_turns="many")
    assert e.value.code == "EINVALID" and "max_turns" in e.value.message
    with pytest.raises(skit.Error) as e:
        skit.Agent("openai:gpt-4.1-mini", registry=reg, project=project)
    assert e.value.code == "EUSAGE" and "OPENAI_API_KEY" in e.value.message


def test_agent_budget(skills, project):
    agent = skit.Agent("replay:" + CASSETTE, registry=skit.Registry([skills]),
                       project=project, approve=lambda r: True, max_turns=1)
    with pytest.raises(skit.Error) as e:
        agent.send("Profile data.csv")
    assert e.value.code == "ELIMIT"


def test_ctrl_c_in_a_callback_stops_the_agent(skills, project):
    steps = []

    def trace(line):
        steps.append(line)
        if "activated" in line:
            raise KeyboardInterrupt

    agent = skit.Agent("replay:" + CASSETTE, registry=skit.Registry([skills]),
                       project=project, approve=lambda r: True, trace=trace)
    with pytest.raises(KeyboardInterrupt):
        agent.send("Profile data.csv")
    st = agent.state
    assert st["active"] == ["csv-report"] and st["script_runs"] == 0
    assert isinstance(agent.approval_errors[0], KeyboardInterrupt)


def test_cancel(skills, project):
    holder = []

    def approve(req):
        holder[0].cancel()  # as another thread would, mid-task
        return True

    agent = skit.Agent("replay:" + CASSETTE, registry=skit.Registry([skills]),
                       project=project, approve=approve)
    holder.append(agent)
    with pytest.raises(skit.Error) as e:
        agent.send("Profile data.csv")
    assert e.value.code == "ECANCELED"
    assert agent.state["turns"] == 2


def test_program_tools(skills, project):
    calls = []

    def stock(args):
        """How many of an item the shop holds."""
        calls.append(args)
        return {args["item"]: 42}

    def broken(args):
        raise ValueError("no such shelf")

    tools = [skit.Tool("mcp__shop__stock", stock, risk="read",
                       parameters={"type": "object", "properties":
                                   {"item": {"type": "string"}}}),
             skit.Tool("mcp__shop__broken", broken, "Always fails.",
                       risk="read")]
    assert tools[0].description == "How many of an item the shop holds."
    agent = skit.Agent("replay:" + os.path.join(HERE, "tools.jsonl"),
                       registry=skit.Registry([skills]), project=project,
                       tools=tools)
    assert agent.send("How many apples?") == "The shop has 42 apples."
    assert calls == [{"item": "apples"}]
    assert [type(e) for e in agent.approval_errors] == [ValueError]
    assert agent.state["tool_calls"] == 2


def test_program_tools_are_checked(skills):
    reg = skit.Registry([skills])
    for tool, word in ((skit.Tool("shell", str, "Mine."), "shell"),
                       (skit.Tool("mcp__a__b", str, ""), "description"),
                       (skit.Tool("mcp__a__b", str, "B", risk="huge"),
                        "risk")):
        with pytest.raises(skit.Error) as e:
            skit.Agent("replay:" + CASSETTE, registry=reg, tools=[tool])
        assert e.value.code == "EINVALID" and word in e.value.message, \
            e.value.message
    with pytest.raises(TypeError):
        skit.Agent("replay:" + CASSETTE, registry=reg, tools=[str])


def test_ask(skills, project):
    asked = []

    def ask(q):
        asked.append(q)
        return "b.csv"

    reg = skit.Registry([skills])
    cassette = "replay:" + os.path.join(HERE, "ask.jsonl")
    agent = skit.Agent(cassette, registry=reg, project=project, on_ask=ask)
    assert agent.send("Profile a file") == "Using the file chosen."
    assert isinstance(asked[0], skit.Question)
    assert (asked[0].question, asked[0].options, asked[0].multi) == \
        ("Which file?", [], False)
    # No answer (None), or an answerer that raises: the model is told no
    # one can answer, so the cassette's expectation of b.csv fails.
    for bad in (lambda q: None, lambda q: 1 / 0):
        agent = skit.Agent(cassette, registry=reg, project=project,
                           on_ask=bad)
        with pytest.raises(skit.Error) as e:
            agent.send("Profile a file")
        assert e.value.code == "EINVALID" and "b.csv" in e.value.message
