#!/bin/sh
# agent_deny_walk.sh - grep and list_dir honour Read deny patterns for
# every file they walk into: with deny Read(secrets/**), grep over "."
# never prints secrets/key.pem, and list_dir does not show it.
. "$(dirname "$0")/agent_lib.inc"
agent_world
P=$W/proj
mkdir -p "$P/.git" "$P/secrets/deeper" "$P/src" "$P/notes"
printf 'KEYLINE-MARKER secret\n' >"$P/secrets/key.pem"
printf 'KEYLINE-MARKER deeper\n' >"$P/secrets/deeper/k2.pem"
printf 'KEYLINE-MARKER public\n' >"$P/src/main.c"
printf 'KEYLINE-MARKER env\n' >"$P/notes/prod.env"
printf 'plain\n' >"$P/notes/readme.md"
cd "$P" || exit 1
printf '%s\n' \
	'{"tool_calls": [{"id": "g1", "name": "grep", "arguments": {"pattern": "KEYLINE-MARKER", "path": "."}}, {"id": "g2", "name": "grep", "arguments": {"pattern": "KEYLINE", "path": "secrets"}}, {"id": "g3", "name": "grep", "arguments": {"pattern": "KEYLINE"}}]}' \
	'{"tool_calls": [{"id": "l1", "name": "list_dir", "arguments": {"path": "."}}, {"id": "l2", "name": "list_dir", "arguments": {"path": "notes"}}, {"id": "l3", "name": "list_dir", "arguments": {"path": "secrets"}}]}' \
	'{"text": "DONE"}' >"$T/walk.jsonl"

# wrun ARGS...: the walk cassette with the trail off
wrun() {
	rm -f "$T/req.jsonl"
	timeout 60 "$SKIT" run --quiet --no-audit --request-log "$T/req.jsonl" \
		--model "replay:$T/walk.jsonl" "$@" go </dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

# Without a deny rule, grep finds all four.
wrun
expect_rc 0 "no rule"
has "$T/req.jsonl" "secrets/key.pem:1: KEYLINE-MARKER secret" "grep walks everything by default"

# --deny 'Read(secrets/**)': not grep's walk, nor a listing, nor a path.
wrun --deny 'Read(secrets/**)'
expect_rc 0 "with the deny rule"
lacks "$T/req.jsonl" "KEYLINE-MARKER secret" "grep . does not print secrets/key.pem"
lacks "$T/req.jsonl" "KEYLINE-MARKER deeper" "nor a file deeper in it"
has "$T/req.jsonl" "src/main.c:1: KEYLINE-MARKER public" "other files are still searched"
has "$T/req.jsonl" "not searched: the permission rules keep them out" \
	"the model is told some paths were left out"
has "$T/req.jsonl" "denied: denied by --deny 'Read(secrets/**)'" \
	"grep and list_dir of the folder itself are denied"
lacks "$T/req.jsonl" "key.pem" "no listing shows key.pem"
has "$T/req.jsonl" "hidden by the permission rules" "list_dir says entries are hidden"

# A config deny (the project's own) and a file glob work the same way,
# once the folder is trusted: an untrusted folder's config is not read.
mkdir -p "$P/.agents"
printf '{"permissions": {"deny": ["Read(**/*.env)", "Read(secrets/**)"]}}\n' >"$P/.agents/skit.json"
wrun
has "$T/req.jsonl" "KEYLINE-MARKER env" "an untrusted folder's deny is not read"
has "$T/err" "skit: the skills and config of $P are not loaded (not a trusted folder); to trust it, run: skit trust $P" \
	"one line says so"
run trust "$P"
expect_rc 0 "skit trust"
wrun
lacks "$T/err" "not a trusted folder" "trusted: no line"
lacks "$T/req.jsonl" "KEYLINE-MARKER env" "a config deny holds for grep's walk"
lacks "$T/req.jsonl" "prod.env" "and for list_dir"
has "$T/req.jsonl" "readme.md" "other entries are listed"
lacks "$T/req.jsonl" "KEYLINE-MARKER secret" "both rules hold"
# A config ask keeps the walk out too: no one is asked per file.
printf '{"permissions": {"ask": ["Read(secrets/**)"]}}\n' >"$P/.agents/skit.json"
wrun
lacks "$T/req.jsonl" "KEYLINE-MARKER secret" "an ask rule holds for grep's walk"
reg_done
