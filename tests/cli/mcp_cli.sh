#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp_cli.sh - `skit mcp` on the command line: --help, usage errors, the
# token file, a stdio session from a pipe (answers in order, end of input
# ends it), and run_skill_script only with --allow-scripts. The real MCP
# peers are in tests/mcp/peers.sh.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

skill r alpha "Says alpha."
skill r beta "Says beta."

run mcp --help
expect_rc 0 "mcp --help"
has "$T/out" "usage: skit mcp" "mcp --help"
has "$T/out" "--allow-scripts" "mcp --help"
has "$T/out" "--token-file" "mcp --help"

run mcp --http nowhere:port --root r
expect_rc 2 "--http with a bad port"
has "$T/err" "--http needs HOST:PORT" "--http message"
run mcp --http 70000 --root r
expect_rc 2 "--http 70000"
run mcp --http '[::1' --root r
expect_rc 2 "--http with a broken IPv6 literal"
run mcp --token-file tok --root r
expect_rc 2 "--token-file without --http"
has "$T/err" "--token-file needs --http" "--token-file message"
: >empty.tok
run mcp --http 127.0.0.1:0 --token-file empty.tok --root r
expect_rc 2 "an empty token file"
has "$T/err" "one non-empty line" "empty token message"
printf 'a\nb\n' >two.tok
run mcp --http 127.0.0.1:0 --token-file two.tok --root r
expect_rc 2 "a token file of two lines"
run mcp --http 127.0.0.1:0 --token-file missing.tok --root r
expect_rc 2 "a missing token file"
run mcp --root r extra
expect_rc 2 "an extra argument"
run mcp --bogus
expect_rc 2 "an unknown option"
run mcp --root does-not-exist
expect_rc 2 "a missing --root"

# A whole stdio session from a pipe: every line answered, in order; end
# of input ends the server with status 0.
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'not json' \
	'{"jsonrpc":"2.0","id":2,"method":"prompts/list"}' \
	'{"jsonrpc":"2.0","id":3,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"skill://alpha/SKILL.md"}}' \
	>in.jsonl
timeout 60 "$SKIT" mcp --no-config --root r <in.jsonl >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "stdio session"
n=$(wc -l <"$T/out")
[ "$n" -eq 5 ] && reg_pass || reg_fail "stdio: $n answers, expected 5"
sed -n 1p "$T/out" | grep -q '"id":1,"result"' && reg_pass ||
	reg_fail "stdio: first answer is not initialize's"
sed -n 2p "$T/out" | grep -q '"code":-32700' && reg_pass ||
	reg_fail "stdio: not json is not -32700"
sed -n 3p "$T/out" | grep -q '"name":"alpha"' && reg_pass ||
	reg_fail "stdio: prompts/list"
sed -n 4p "$T/out" | grep -q 'run_skill_script' &&
	reg_fail "stdio: run_skill_script offered without --allow-scripts" ||
	reg_pass
sed -n 5p "$T/out" | grep -q 'Body of alpha' && reg_pass ||
	reg_fail "stdio: resources/read"

timeout 60 "$SKIT" mcp --no-config --root r --allow-scripts <in.jsonl \
	>"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "stdio session with --allow-scripts"
sed -n 4p "$T/out" | grep -q 'run_skill_script' && reg_pass ||
	reg_fail "stdio: run_skill_script not offered with --allow-scripts"

# Issue 28.4: MCP clients often start servers in the home folder or in
# /. There a script's run gets no writable project: it works in a fresh
# private folder, and the folder it was started in stays untouched.
skill r writer "Writes where it runs."
mkdir -p r/writer/scripts
printf '#!/bin/sh\necho x >"$PWD/pwned" && echo "WROTE:$PWD"\n' \
	>r/writer/scripts/w.sh
chmod +x r/writer/scripts/w.sh
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"use_skill","arguments":{"name":"writer"}}}' \
	'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_skill_script","arguments":{"skill":"writer","path":"scripts/w.sh"}}}' \
	>writer.jsonl
(cd "$HOME" && timeout 60 "$SKIT" mcp --no-config --root "$W/r" \
	--allow-scripts <"$W/writer.jsonl" >"$T/out" 2>"$T/err")
rc=$?
expect_rc 0 "stdio session with --allow-scripts in the home folder"
has "$T/out" "WROTE:" "the script ran"
[ -e "$HOME/pwned" ] && reg_fail "a script wrote the home folder it was started in" ||
	reg_pass
lacks "$T/out" "WROTE:$HOME" "the home folder is not the script's working folder"

# Scripts over HTTP need a token: without one, any local user could run
# them.
timeout 20 "$SKIT" mcp --no-config --root r --http 127.0.0.1:0 \
	--allow-scripts >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "--allow-scripts over HTTP without --token-file"
has "$T/err" "--allow-scripts over HTTP needs --token-file" \
	"one line says why"
lacks "$T/err" "listening" "it does not listen"

# Started in a folder the user has not trusted, the server leaves that
# project's skills out, as the agent does, and says so in one line on
# stderr; once trusted, they are served.
mkdir -p proj/.git
skill proj/.agents/skills gamma "Says gamma."
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://gamma/SKILL.md"}}' \
	>gamma.jsonl
(cd proj && timeout 60 "$SKIT" mcp <../gamma.jsonl >"$T/out" 2>"$T/err")
rc=$?
expect_rc 0 "stdio session in an untrusted project"
lacks "$T/out" "Body of gamma" "an untrusted project's skill is not served"
has "$T/err" "are not served (not a trusted folder); to trust it, run: skit trust $W/proj" \
	"one line says how to trust it"
run trust proj
expect_rc 0 "trust the project"
(cd proj && timeout 60 "$SKIT" mcp <../gamma.jsonl >"$T/out" 2>"$T/err")
rc=$?
expect_rc 0 "stdio session in a trusted project"
has "$T/out" "Body of gamma" "a trusted project's skill is served"
lacks "$T/err" "not a trusted folder" "no trust line once trusted"

reg_done
