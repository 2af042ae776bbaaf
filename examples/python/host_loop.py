#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""host_loop.py - a Python agent's own loop with Agent Skills from skit.

The loop talks to any OpenAI-compatible Chat Completions endpoint with
the standard library alone (OPENAI_BASE_URL, default the public API;
OPENAI_API_KEY; OPENAI_MODEL, default gpt-4.1-mini). skit.SkillTools gives
it the skills index for the system prompt and the tools to offer, and
runs every tool call the model makes under skit's policy, approvals and
sandbox (docs/python.md, "Your own loop").

    python3 host_loop.py ["TASK"]

Skills come from ../skills (SKIT_SKILLS overrides it); scripts run in the
current folder. A call that needs approval is asked on the terminal, and
refused when there is none. Exits 0 once the model answers.
"""
import json
import os
import sys
import urllib.error
import urllib.request

import skit

BASE_URL = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
MODEL = os.environ.get("OPENAI_MODEL") or "gpt-4.1-mini"
SKILLS = os.environ.get("SKIT_SKILLS") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "skills")
MAX_TURNS = 10
TASK = ("What statistics does a CSV report give for a numeric column, "
        "and how is the median taken?")


def chat(messages, tools):
    """One Chat Completions request; the assistant's message."""
    body = json.dumps({"model": MODEL, "messages": messages,
                       "tools": tools}).encode("utf-8")
    req = urllib.request.Request(
        BASE_URL.rstrip("/") + "/chat/completions", data=body,
        headers={"Content-Type": "application/json",
                 "Authorization": "Bearer %s"
                 % os.environ.get("OPENAI_API_KEY", "")})
    with urllib.request.urlopen(req, timeout=300) as resp:
        return json.load(resp)["choices"][0]["message"]


def approve(req):
    """Ask the user about a call skit's policy does not pre-approve."""
    if not sys.stdin.isatty():
        return False  # no one to ask: refused, and the model is told
    answer = input("Allow %s (%s) for skill %s? [y/N/always] "
                   % (req.tool, req.target, req.skill)).strip().lower()
    return "always" if answer.startswith("a") else answer.startswith("y")


def run(task):
    registry = skit.Registry([("examples", SKILLS)])
    layer = skit.SkillTools(registry, project=os.getcwd(), approve=approve)
    tools = layer.tools("openai")
    messages = [{"role": "system", "content": layer.system_prompt()},
                {"role": "user", "content": task}]
    for _ in range(MAX_TURNS):
        msg = chat(messages, tools)
        calls = msg.get("tool_calls") or []
        messages.append({"role": "assistant", "content": msg.get("content"),
                         **({"tool_calls": calls} if calls else {})})
        if not calls:
            print(msg.get("content") or "")
            return 0
        for call in calls:
            fn = call["function"]
            # skit checks, approves, runs and records the call, and
            # returns the text the model should see.
            result = layer.call(fn["name"], fn.get("arguments") or "{}")
            print("host_loop: %s -> %s" % (fn["name"], "error"
                  if result.is_error else "ok"), file=sys.stderr)
            messages.append({"role": "tool", "tool_call_id": call["id"],
                             "content": str(result)})
            if result.tools_changed:  # a skill disclosed a tool
                tools = layer.tools("openai")
    print("host_loop: no answer after %d turns" % MAX_TURNS, file=sys.stderr)
    return 1


def main(argv):
    try:
        return run(" ".join(argv[1:]) or TASK)
    except skit.Error as e:
        print("host_loop: %s" % e, file=sys.stderr)
    except (urllib.error.URLError, OSError, ValueError, KeyError) as e:
        print("host_loop: the model's endpoint: %s" % e, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
