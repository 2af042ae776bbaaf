#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp-agent-deps.sh DIR - install the npm packages of tests/mcp/agent (the
# MCP servers @modelcontextprotocol/server-everything and
# server-filesystem; exact versions from its package.json and
# package-lock.json) into DIR, for the real-peer tests of the agent's MCP
# client (tests/mcp/agent_peers.sh). Only the test uses them; nothing is
# installed outside DIR.
#
# Cached: when DIR already holds the packages of the same lock file, it
# does nothing. Exit 0 when installed, 77 when node/npm are missing or the
# registry cannot be reached (the test is then reported as skipped, with
# this script's message), 1 on other failures.
set -u

dir=${1:?usage: mcp-agent-deps.sh DIR}
src=$(cd "$(dirname "$0")/../tests/mcp/agent" && pwd -P) || exit 1

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "mcp-agent-deps: node and npm are not installed (apt-get install" \
		"nodejs npm); the MCP agent peer tests are SKIPPED" >&2
	exit 77
fi

want=$(cat "$src/package.json" "$src/package-lock.json" | cksum | cut -d' ' -f1)
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$want" ] &&
	[ -d "$dir/node_modules/@modelcontextprotocol/server-filesystem" ]; then
	exit 0
fi

mkdir -p "$dir" || exit 1
rm -f "$dir/.installed"
cp "$src/package.json" "$src/package-lock.json" "$dir/" || exit 1
# --ignore-scripts: no package's install script runs.
(cd "$dir" && timeout 600 npm ci --ignore-scripts --no-audit --no-fund \
	--fetch-retries=2 --fetch-timeout=60000 --loglevel=error >npm.log 2>&1)
st=$?
if [ "$st" -ne 0 ]; then
	if [ "$st" -eq 124 ] ||
		grep -qiE 'ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ECONNRESET|ENETUNREACH|network|proxy' \
			"$dir/npm.log"; then
		echo "mcp-agent-deps: the npm registry cannot be reached; the" \
			"MCP agent peer tests are SKIPPED (see $dir/npm.log)" >&2
		exit 77
	fi
	echo "mcp-agent-deps: npm ci failed (see $dir/npm.log):" >&2
	tail -n 5 "$dir/npm.log" >&2
	exit 1
fi
echo "$want" >"$dir/.installed"
