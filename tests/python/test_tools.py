# SPDX-License-Identifier: MIT
"""skit.SkillTools: the skills layer in a Python agent's own loop."""
import json
import os

import pytest

import skit

SCRIPT = {"skill": "csv-report", "path": "scripts/report.py",
          "args": ["data.csv"]}


def names(tools, fmt="openai"):
    if fmt == "openai":
        return [t["function"]["name"] for t in tools]
    return [t["name"] for t in tools]


def test_prompt_tools_and_a_call(skills, project):
    reg = skit.Registry([skills])
    layer = skit.SkillTools(reg, project=project)
    prompt = layer.system_prompt()
    assert prompt.startswith(skit.DEFAULT_BASE_PROMPT)
    assert layer.index() in prompt and "<name>\ncsv-report\n</name>" in prompt
    assert layer.system_prompt(base="BASE").startswith("BASE\n<available")
    openai = layer.tools("openai")
    assert "use_skill" in names(openai) and "run_skill_script" not in \
        names(openai)
    assert all(t["type"] == "function" and "parameters" in t["function"]
               for t in openai)
    anthropic = layer.tools(format="anthropic")
    assert names(anthropic, "anthropic") == names(openai)
    assert all("input_schema" in t for t in anthropic)
    r = layer.call("use_skill", {"name": "csv-report"})
    assert isinstance(r, skit.ToolResult) and isinstance(r, str)
    assert not r.is_error and "# CSV report" in r
    # csv-report's allowed-tools disclose run_skill_script once active.
    assert r.tools_changed
    assert "run_skill_script" in names(layer.tools())
    # JSON text, as the model sends it, works as well as a dict.
    r2 = layer.call("read_skill_resource", '{"skill": "csv-report", '
                    '"path": "references/statistics.md"}')
    assert not r2.is_error and "median" in r2
    with pytest.raises(skit.Error) as e:
        layer.tools("gemini")
    assert e.value.code == "EINVALID"


def test_refusals_are_results_not_errors(skills, project):
    layer = skit.SkillTools(skit.Registry([skills]), project=project)
    r = layer.call("read_skill_resource",
                   {"skill": "csv-report", "path": "../../etc/passwd"})
    assert r.is_error
    r = layer.call("no_such_tool", {})
    assert r.is_error and "no_such_tool" in r
    with pytest.raises(skit.Error) as e:
        layer.call("use_skill", "{not json")
    assert e.value.code == "EINVALID"


def test_no_approver_refuses_and_names_the_flag(skills, project):
    layer = skit.SkillTools(skit.Registry([skills]), project=project)
    layer.call("use_skill", {"name": "csv-report"})
    r = layer.call("run_skill_script", SCRIPT)
    assert r.is_error and "no one to ask" in r


def test_approval_callback_runs_the_script(skills, project):
    seen = []

    def approve(req):
        seen.append(req)
        return True

    layer = skit.SkillTools(skit.Registry([skills]), project=project,
                            approve=approve)
    layer.activate("csv-report")
    r = layer.call("run_skill_script", SCRIPT)
    assert not r.is_error, r
    assert "Rows: 3" in r
    assert len(seen) == 1
    req = seen[0]
    assert isinstance(req, skit.Approval)
    assert req.tool == "run_skill_script" and req.skill == "csv-report"
    assert req.target == "scripts/report.py data.csv"
    assert req.risk == "execute" and req.reason
    assert json.loads(req.arguments)["args"] == ["data.csv"]
    assert layer.approval_errors == []
    # The direct calls: the same gate, arguments built for you.
    r = layer.run_script("csv-report", "scripts/report.py", ["data.csv"])
    assert not r.is_error and "Rows: 3" in r and len(seen) == 2
    r = layer.read_resource("csv-report", "references/statistics.md")
    assert not r.is_error and "median" in r
    r = layer.read_resource("csv-report", "../../../etc/passwd")
    assert r.is_error and "root:" not in r


def test_always_is_remembered(skills, project):
    calls = []
    layer = skit.SkillTools(skit.Registry([skills]), project=project,
                            approve=lambda req: calls.append(req) or "always")
    layer.activate("csv-report")
    assert not layer.call("run_skill_script", SCRIPT).is_error
    assert not layer.call("run_skill_script", SCRIPT).is_error
    assert len(calls) == 1


def test_a_raising_approval_is_a_refusal(skills, project):
    def approve(req):
        raise RuntimeError("approver broke")

    layer = skit.SkillTools(skit.Registry([skills]), project=project,
                            approve=approve)
    layer.activate("csv-report")
    r = layer.call("run_skill_script", SCRIPT)
    assert r.is_error and "declined" in r
    assert [str(e) for e in layer.approval_errors] == ["approver broke"]
    # An answer that is not one refuses too.
    layer2 = skit.SkillTools(skit.Registry([skills]), project=project,
                             approve=lambda req: "maybe")
    layer2.activate("csv-report")
    assert layer2.call("run_skill_script", SCRIPT).is_error
    assert "'maybe'" in str(layer2.approval_errors[0])
    # Ctrl-C while asked: the call is refused, then the interrupt goes on
    # from call(), and the layer works afterwards.
    ran = []

    def interrupted(req):
        raise KeyboardInterrupt

    layer3 = skit.SkillTools(skit.Registry([skills]), project=project,
                             approve=interrupted, trace=ran.append)
    layer3.activate("csv-report")
    with pytest.raises(KeyboardInterrupt):
        layer3.call("run_skill_script", SCRIPT)
    assert not [x for x in ran if "exit" in x or "ran" in x]
    assert not layer3.call("use_skill", {"name": "pdf-text"}).is_error
    # The layer still works after the exception.
    assert not layer.call("use_skill", {"name": "pdf-text"}).is_error


def test_policy_patterns(skills, project):
    # yes=True approves what would be asked (`--yes`); an allow pattern
    # alone does not, unless the active skill lists the tool too.
    allowed = skit.SkillTools(skit.Registry([skills]), project=project,
                              yes=True)
    allowed.activate("csv-report")
    r = allowed.call("run_skill_script", SCRIPT)
    assert not r.is_error, r
    denied = skit.SkillTools(skit.Registry([skills]), project=project,
                             deny="run_skill_script", approve=lambda r: True)
    denied.activate("csv-report")
    # A deny pattern hides the tool, and refuses a call all the same.
    assert "run_skill_script" not in names(denied.tools())
    r = denied.call("run_skill_script", SCRIPT)
    assert r.is_error and "not available" in r
    with pytest.raises(skit.Error) as e:
        skit.SkillTools(skit.Registry([skills]), allow=["NoSuchTool(x)"])
    assert e.value.code == "EINVALID"
    with pytest.raises(skit.Error) as e:
        skit.SkillTools(skit.Registry([skills]), no_such_option=True)
    assert e.value.code == "EINVALID" and "no_such_option" in e.value.message


def test_audit_trail(skills, project, tmp_path):
    runs = tmp_path / "runs"
    layer = skit.SkillTools(skit.Registry([skills]), project=project,
                            runs_dir=runs)
    run_dir = layer.run_dir
    assert run_dir and run_dir.startswith(str(runs))
    layer.call("use_skill", {"name": "csv-report"})
    layer.finish("ok")
    events = open(os.path.join(run_dir, "events.jsonl")).read()
    assert '"type":"skill_activated","skill":"csv-report"' in events
    assert '"type":"run_end","status":"ok"' in events
    with open(os.path.join(run_dir, "run.json")) as f:
        assert json.load(f)["events"] == 2
    with pytest.raises(skit.Error):
        layer.call("use_skill", {"name": "csv-report"})


def test_a_registry_in_use_stays_open(skills, project):
    reg = skit.Registry([skills])
    layer = skit.SkillTools(reg, project=project)
    with pytest.raises(skit.Error) as e:
        reg.close()
    assert e.value.code == "EUSAGE" and "SkillTools" in e.value.message
    assert not layer.call("use_skill", {"name": "csv-report"}).is_error
    layer.close()
    reg.close()
    with pytest.raises(skit.Error) as e:
        reg.skills()
    assert e.value.code == "EUSAGE"
    # Closing twice is harmless; a closed layer refuses calls.
    layer.close()
    with pytest.raises(skit.Error):
        layer.tools()


def test_system_prompt_holds_the_instructions(skills, project):
    """The user's own AGENTS.md (read without a project to trust) goes
    between the base prompt and the index, as skit's agent puts it;
    instructions=False leaves it out."""
    home = os.environ["HOME"]
    own = os.path.join(home, ".agents", "AGENTS.md")
    os.makedirs(os.path.dirname(own), exist_ok=True)
    with open(own, "w") as f:
        f.write("Answer in French. USER-INSTRUCTIONS-MARKER\n")
    try:
        layer = skit.SkillTools(skit.Registry([skills]), project=project)
        text = layer.instructions()
        assert "USER-INSTRUCTIONS-MARKER" in text
        prompt = layer.system_prompt()
        assert prompt.startswith(skit.DEFAULT_BASE_PROMPT)
        assert prompt.index("USER-INSTRUCTIONS-MARKER") < \
            prompt.index("<available_skills>")
        assert "USER-INSTRUCTIONS-MARKER" not in \
            layer.system_prompt(instructions=False)
        layer.close()
    finally:
        os.remove(own)
