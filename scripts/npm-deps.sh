#!/bin/sh
# SPDX-License-Identifier: MIT
# npm-deps.sh PKGDIR DIR WHAT - install the npm packages of the test folder
# PKGDIR (relative to the source tree: exact versions from its package.json
# and package-lock.json) into DIR, for the tests named WHAT. Only tests use
# them; nothing is installed outside DIR. api-deps.sh, mcp-deps.sh and
# mcp-agent-deps.sh call it for their folders.
#
# Cached: when DIR already holds the packages of the same lock file, it
# does nothing. Exit 0 when installed, 77 when node/npm are missing or the
# registry cannot be reached (the test is then reported as skipped, with
# this script's message), 1 on other failures.
set -u

pkg=${1:?usage: npm-deps.sh PKGDIR DIR WHAT}
dir=${2:?usage: npm-deps.sh PKGDIR DIR WHAT}
what=${3:-the tests}
src=$(cd "$(dirname "$0")/../$pkg" && pwd -P) || exit 1
me="npm-deps ($pkg)"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "$me: node and npm are not installed (apt-get install nodejs npm);" \
		"$what: SKIPPED" >&2
	exit 77
fi

want=$(cat "$src/package.json" "$src/package-lock.json" | cksum | cut -d' ' -f1)
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$want" ] &&
	[ -d "$dir/node_modules" ]; then
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
		echo "$me: the npm registry cannot be reached; $what:" \
			"SKIPPED (see $dir/npm.log)" >&2
		exit 77
	fi
	echo "$me: npm ci failed (see $dir/npm.log):" >&2
	tail -n 5 "$dir/npm.log" >&2
	exit 1
fi
echo "$want" >"$dir/.installed"
