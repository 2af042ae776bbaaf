#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp-deps.sh DIR - install the npm packages of tests/mcp (the MCP SDK, the
# inspector and the conformance suite; pinned) into DIR, for the real-peer
# tests of `skit mcp` (tests/mcp/peers.sh). See npm-deps.sh: cached;
# exit 77 = skip.
exec "$(dirname "$0")/npm-deps.sh" tests/mcp "${1:?usage: mcp-deps.sh DIR}" \
	"the MCP peer tests"
