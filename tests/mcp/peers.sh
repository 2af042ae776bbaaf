#!/bin/sh
# SPDX-License-Identifier: MIT
# peers.sh - `skit mcp` against real MCP software from npm (docs/mcp.md,
# "Tested against"):
#  - the official TypeScript SDK's client (tests/mcp/client.mjs) over
#    stdio (with and without --allow-scripts, and a root that changes)
#    and over Streamable HTTP with a bearer token;
#  - the inspector's CLI mode: tools/list, tools/call, resources/list,
#    resources/read, prompts/list;
#  - the conformance suite's server scenarios that apply to a server
#    with these capabilities;
#  - the HTTP transport's refusals (foreign Origin, no token, GET).
#
# The npm packages come from scripts/mcp-deps.sh (pinned, into the build
# tree). Exit 77 (CTest: skipped) only when they cannot be installed.
#
# Environment (set by CMake): SKIT, SKIT_SOURCE_DIR, SKIT_TEST_DIR,
# SKIT_MCP_NODE (where the npm packages go).
set -u

: "${SKIT_SOURCE_DIR:=$(pwd)}"
: "${SKIT:=$SKIT_SOURCE_DIR/build/skit}"
: "${SKIT_TEST_DIR:=${TMPDIR:-/tmp}/skit-mcp-$$}"
: "${SKIT_MCP_NODE:=$SKIT_SOURCE_DIR/build/mcp-node}"
FIX=$SKIT_SOURCE_DIR/tests/mcp/skills
failures=0
server=

fail() {
	failures=$((failures + 1))
	echo "FAIL: $*"
}

stop_server() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null
		wait "$server" 2>/dev/null
		server=
	fi
}
trap stop_server EXIT

"$SKIT_SOURCE_DIR/scripts/mcp-deps.sh" "$SKIT_MCP_NODE"
st=$?
if [ "$st" -eq 77 ]; then
	echo "SKIPPED: the MCP peer tests did not run (see above)" >&2
	exit 77
fi
[ "$st" -eq 0 ] || {
	echo "FAIL: the MCP test packages could not be installed" >&2
	exit 1
}
BIN=$SKIT_MCP_NODE/node_modules/.bin

rm -rf "$SKIT_TEST_DIR"
mkdir -p "$SKIT_TEST_DIR" || exit 1
cd "$SKIT_TEST_DIR" || exit 1
cp "$SKIT_SOURCE_DIR/tests/mcp/client.mjs" "$SKIT_MCP_NODE/client.mjs" || exit 1
export HOME="$SKIT_TEST_DIR" XDG_CONFIG_HOME="$SKIT_TEST_DIR/.config"

# A fresh copy of the fixtures for each run that may change them.
fresh_root() {
	rm -rf "$SKIT_TEST_DIR/$1"
	cp -r "$FIX" "$SKIT_TEST_DIR/$1"
	echo "$SKIT_TEST_DIR/$1"
}

# ---- the SDK client over stdio ------------------------------------------
for extra in "" "--scripts --watch"; do
	root=$(fresh_root "root-stdio")
	# shellcheck disable=SC2086
	if ! timeout 300 node "$SKIT_MCP_NODE/client.mjs" stdio "$SKIT" "$root" \
		$extra >sdk.out 2>&1; then
		cat sdk.out
		fail "SDK client over stdio ($extra)"
	else
		echo "ok: SDK client over stdio ($extra): $(tail -n 1 sdk.out)"
	fi
done

# ---- HTTP ---------------------------------------------------------------
start_http() {
	rm -f http.err
	# shellcheck disable=SC2086
	"$SKIT" mcp --no-config --root "$1" --http 127.0.0.1:0 ${2:-} 2>http.err &
	server=$!
	port=
	for _ in $(seq 1 300); do
		port=$(sed -n 's|^skit mcp: listening on http://127.0.0.1:\([0-9]*\)/mcp$|\1|p' http.err)
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || {
		cat http.err
		fail "the HTTP server did not start"
		return 1
	}
	URL=http://127.0.0.1:$port/mcp
}

echo "s3cret-$$" >token.txt
root=$(fresh_root "root-http")
if start_http "$root" "--token-file token.txt"; then
	if ! timeout 300 node "$SKIT_MCP_NODE/client.mjs" http "$URL" \
		"s3cret-$$" "$root" >sdk.out 2>&1; then
		cat sdk.out
		fail "SDK client over HTTP"
	else
		echo "ok: SDK client over HTTP: $(tail -n 1 sdk.out)"
	fi
	init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL" \
		-H 'Content-Type: application/json' -d "$init")
	[ "$code" = 401 ] || fail "no token: HTTP $code, not 401"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL" \
		-H "Authorization: Bearer wrong" -H 'Content-Type: application/json' \
		-d "$init")
	[ "$code" = 401 ] || fail "wrong token: HTTP $code, not 401"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL" \
		-H "Authorization: Bearer s3cret-$$" -H 'Origin: http://rebind.example' \
		-H 'Content-Type: application/json' -d "$init")
	[ "$code" = 403 ] || fail "foreign Origin: HTTP $code, not 403"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL" \
		-H "Authorization: Bearer s3cret-$$" -H "Host: rebind.example:$port" \
		-H 'Content-Type: application/json' -d "$init")
	[ "$code" = 403 ] || fail "foreign Host on loopback: HTTP $code, not 403"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST \
		"http://localhost:$port/mcp" -H "Authorization: Bearer s3cret-$$" \
		-H 'Content-Type: application/json' -d "$init")
	[ "$code" = 200 ] || fail "Host localhost: HTTP $code, not 200"
	big=$(head -c 5000000 /dev/zero | tr '\0' 'a')
	code=$(printf '%s' "$big" | curl -s -o /dev/null -w '%{http_code}' -X POST \
		"$URL" -H "Authorization: Bearer s3cret-$$" \
		-H 'Content-Type: application/json' --data-binary @-)
	[ "$code" = 413 ] || fail "a 5 MB body: HTTP $code, not 413"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL" \
		-H "Authorization: Bearer s3cret-$$" -H "Origin: http://localhost:$port" \
		-H 'Content-Type: application/json' -d "$init")
	[ "$code" = 200 ] || fail "loopback Origin: HTTP $code, not 200"
	code=$(curl -s -o /dev/null -w '%{http_code}' "$URL" \
		-H "Authorization: Bearer s3cret-$$")
	[ "$code" = 405 ] || fail "GET: HTTP $code, not 405"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL" \
		-H "Authorization: Bearer s3cret-$$" -H 'Content-Type: application/json' \
		-d '{"jsonrpc":"2.0","id":2,"method":"ping"}')
	[ "$code" = 400 ] || fail "no session: HTTP $code, not 400"
	stop_server
fi

# ---- the inspector's CLI ------------------------------------------------
inspect() {
	timeout 120 "$BIN/mcp-inspector" --cli "$SKIT" mcp --no-config \
		--root "$FIX" "$@" >insp.out 2>insp.err
}
inspect --method tools/list &&
	grep -q '"name": "use_skill"' insp.out &&
	grep -q '"name": "search_skills"' insp.out ||
	fail "inspector tools/list: $(cat insp.out insp.err)"
inspect --method tools/call --tool-name search_skills \
	--tool-arg query=changelog &&
	grep -q 'release-notes' insp.out ||
	fail "inspector tools/call: $(cat insp.out insp.err)"
inspect --method resources/list &&
	grep -q 'skill://unit-convert/assets/factors.csv' insp.out ||
	fail "inspector resources/list: $(cat insp.out insp.err)"
inspect --method resources/read --uri skill://unit-convert/assets/factors.csv &&
	grep -q 'lb,kg,0.45359237' insp.out ||
	fail "inspector resources/read: $(cat insp.out insp.err)"
inspect --method prompts/list &&
	grep -q '"name": "release-notes"' insp.out &&
	! grep -q '"name": "internal-audit"' insp.out ||
	fail "inspector prompts/list: $(cat insp.out insp.err)"
[ "$failures" -eq 0 ] && echo "ok: inspector --cli: tools/list, tools/call, resources/list, resources/read, prompts/list"

# ---- the conformance suite ----------------------------------------------
# The scenarios that apply to a skills server. The others test fixed
# tools, resources and prompts of the suite's reference server
# (test_simple_text, test://...), sampling, elicitation, completion,
# subscriptions and server-initiated SSE streams, none of which skit
# offers.
root=$(fresh_root "root-conf")
if start_http "$root"; then
	for sc in server-initialize ping logging-set-level tools-list \
		resources-list prompts-list dns-rebinding-protection; do
		if ! timeout 300 "$BIN/conformance" server --url "$URL" \
			--scenario "$sc" >conf.out 2>&1 ||
			! grep -q ', 0 failed' conf.out; then
			cat conf.out
			fail "conformance scenario $sc"
		else
			echo "ok: conformance $sc: $(grep -a 'Passed:' conf.out)"
		fi
	done
	stop_server
fi

if [ "$failures" -ne 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "all MCP peer checks passed"
