#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp-agent-deps.sh DIR - install the npm packages of tests/mcp/agent (the
# MCP servers server-everything and server-filesystem; pinned) into DIR,
# for the real-peer tests of the agent's MCP client
# (tests/mcp/agent_peers.sh). See npm-deps.sh: cached; exit 77 = skip.
exec "$(dirname "$0")/npm-deps.sh" tests/mcp/agent \
	"${1:?usage: mcp-agent-deps.sh DIR}" "the MCP agent peer tests"
