# SPDX-License-Identifier: MIT
"""examples/python/host_loop.py completes a task through a fake
OpenAI-compatible server (tests/support/openai_stub.py) playing the
model: the skills index reaches the model, and each tool result the
loop got from skit.SkillTools reaches it in the next request."""
import os

from conftest import HERE, SRC, run_py

EXAMPLE = os.path.join(SRC, "examples", "python", "host_loop.py")


def check_host_loop(stub, result):
    assert result.returncode == 0, result.stderr
    assert "the median is the middle value" in result.stdout
    assert "host_loop: use_skill -> ok" in result.stderr
    assert "host_loop: read_skill_resource -> ok" in result.stderr
    reqs = stub.requests()
    assert len(reqs) == 3
    first = reqs[0]
    assert first["messages"][0]["role"] == "system"
    assert "<available_skills>" in first["messages"][0]["content"]
    assert "use_skill" in [t["function"]["name"] for t in first["tools"]]
    # The tool results, as skit returned them, went back to the model.
    tool_msgs = [m for m in reqs[2]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["p1", "p2"]
    assert "# CSV report" in tool_msgs[0]["content"]
    assert "How report.py computes" in tool_msgs[1]["content"]
    # The skill's allowed-tools disclosed run_skill_script after use_skill.
    assert "run_skill_script" in [t["function"]["name"]
                                  for t in reqs[1]["tools"]]
    headers = stub.recorded()[0]["headers"]
    assert headers["authorization"] == "Bearer test-key"


def test_host_loop_through_a_fake_server(openai_stub, project):
    stub = openai_stub(os.path.join(HERE, "host_loop.responses.jsonl"))
    r = run_py([EXAMPLE], cwd=project,
               env={"OPENAI_BASE_URL": stub.url, "OPENAI_API_KEY": "test-key",
                    "OPENAI_MODEL": "stub"})
    check_host_loop(stub, r)
    assert stub.requests()[0]["model"] == "stub"


def test_host_loop_reports_a_dead_endpoint(project):
    r = run_py([EXAMPLE], cwd=project,
               env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
                    "OPENAI_API_KEY": "k"})
    assert r.returncode == 1
    assert r.stderr.startswith("host_loop: the model's endpoint: ")
