#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_coverage.sh - bench/allowed-tools-coverage.sh on a folder of
# skills: how many declare allowed-tools, the share naming only tools skit
# offers, and the tools it does not offer with their counts.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
D=$W/skills
mk() { # mk FOLDER ALLOWED ("-": none)
	mkdir -p "$D/$1"
	if [ "$2" = - ]; then
		printf -- '---\nname: %s\ndescription: A skill.\n---\nBody.\n' "$1" >"$D/$1/SKILL.md"
	else
		printf -- '---\nname: %s\ndescription: A skill.\nallowed-tools: %s\n---\nBody.\n' "$1" "$2" >"$D/$1/SKILL.md"
	fi
}
mk none -
mk fine 'Read Grep Bash(git:*) WebFetch(domain:x.org) mcp__github__list AskUserQuestion'
mk web 'Read, WebSearch, Task'
mk code 'Read, LSP, SendMessage, ToolSearch'
mk task 'Task Task(x) NotebookEdit'
mkdir -p "$D/deep/er"
printf -- '---\nname: er\ndescription: Deep.\nallowed-tools: Agent\n---\nB.\n' >"$D/deep/er/SKILL.md"
mkdir -p "$D/.hidden/h"
printf -- '---\nname: h\ndescription: Hidden.\nallowed-tools: Task\n---\nB.\n' >"$D/.hidden/h/SKILL.md"

sh "$SKIT_SOURCE_DIR/bench/allowed-tools-coverage.sh" "$D" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "coverage"
has "$T/out" "skills: 6 (loaded 6, not loaded 0)" "skills counted, dot folders skipped"
has "$T/out" "declare allowed-tools: 5 (83.3% of loaded)" "declaring skills"
# Task and Agent name the task tool (a subagent), SendMessage send_message
# and ToolSearch tool_search; WebSearch is offered only with a search
# backend and LSP only with a language server, so they count both ways
has "$T/out" "name only tools skit offers: 2 of 5 (40.0%)" "the covered share"
has "$T/out" "... with a search backend and a language server (WebSearch, LSP offered): 4 of 5 (80.0%)" \
	"the share with a search backend and a language server"
has "$T/out" "tools named that skit does not offer: 3" "three names missing"
grep -q '^  WebSearch  *1 skill$' "$T/out" && reg_pass || reg_fail "WebSearch: $(cat "$T/out")"
grep -q '^  LSP  *1 skill$' "$T/out" && reg_pass || reg_fail "LSP: $(cat "$T/out")"
lacks "$T/out" "  SendMessage" "SendMessage is offered"
lacks "$T/out" "  ToolSearch" "ToolSearch is offered"
grep -q '^  NotebookEdit  *1 skill$' "$T/out" && reg_pass || reg_fail "NotebookEdit: $(cat "$T/out")"
lacks "$T/out" "  Task" "Task is offered"
lacks "$T/out" "  Agent" "Agent is offered"
lacks "$T/out" "  Read" "offered tools are not listed"
lacks "$T/out" "  mcp__" "mcp tools count as offered"

sh "$SKIT_SOURCE_DIR/bench/allowed-tools-coverage.sh" "$W/nope" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "a missing folder"
reg_done
