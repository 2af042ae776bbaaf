#!/bin/sh
# SPDX-License-Identifier: MIT
#
# allowed-tools-coverage.sh - of the skills in some folders, how many
# declare allowed-tools, and how many of those name only tools skit's
# agent offers (and how many with a search backend and a language
# server, which offer WebSearch and LSP); the tools named that skit does not offer (NotebookEdit,
# TodoWrite...), with the number of skills naming each.
#
#	bench/allowed-tools-coverage.sh DIR...
#
# Every folder below DIR holding a SKILL.md (or skill.md), at any depth up
# to 12, is a skill (dot folders skipped, links not followed), loaded with
# the loading rules; allowed-tools is parsed as the agent parses it
# (skit_allowed_tools_parse()). Offered: Read, Write, Edit, MultiEdit,
# Bash(...), Grep, Glob, LS, WebFetch, AskUserQuestion, Task, Agent,
# SendMessage, ToolSearch, Skill, TodoWrite, other agents' names for the
# same tools, skit's own tool names and mcp__* names; WebSearch only
# with a search backend, LSP only with a language server. Nothing in DIR
# is run or changed.
#
# It runs bench_allowed_tools, built with the tests (bench/): BENCH names
# it, else the one next to $SKIT (bench/ of skit's build folder), else
# build/bench/bench_allowed_tools of this checkout.
#
# Exit status: 0; 1 when the program is missing; 2 on a usage error.
# docs/bench.md ("allowed-tools coverage") has the figures.

case ${1:-} in
-h | --help) sed -n '4,27p' "$0" | sed 's/^# //; s/^#//'; exit 0 ;;
'') echo "usage: bench/allowed-tools-coverage.sh DIR... (--help: more)" >&2; exit 2 ;;
esac
for d in "$@"; do
	[ -d "$d" ] || { echo "allowed-tools-coverage.sh: $d: not a directory" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${BENCH:-}" ]; then
	# the build that $SKIT comes from first: the tests run that one
	if [ -n "${SKIT:-}" ] &&
		[ -x "$(dirname "$SKIT")/bench/bench_allowed_tools" ]; then
		BENCH=$(dirname "$SKIT")/bench/bench_allowed_tools
	else
		BENCH=$here/build/bench/bench_allowed_tools
	fi
fi
[ -x "$BENCH" ] || { echo "allowed-tools-coverage.sh: no bench_allowed_tools ($BENCH): build with the tests, or set BENCH" >&2; exit 1; }
exec "$BENCH" "$@"
