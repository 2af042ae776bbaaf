#!/bin/sh
# agent_permissions.sh - permissions from the command line: without a
# terminal a call needing approval is refused and the exact command line
# that approves it is printed (and works); --yes, --allow, --deny,
# --no-file-tools, config files (a project's may not grant), bad
# patterns; on a terminal the y / n prompt.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1

# bare: skit run without --yes (agent() adds it)
bare() {
	timeout 60 "$SKIT" run --root "project=$W/skills" --runs-dir "$W/runs" \
		--workdir "$W/work" --quiet --request-log "$T/req.jsonl" \
		--model "replay:$CASS/perm.jsonl" "$@" go \
		</dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

# No terminal, no flags: the script is refused, shell never offered.
rm -f "$T/req.jsonl"
bare
expect_rc 0 "refusals end the run normally"
has "$T/err" "skit: refused (execute call needs approval; no terminal to ask):" \
	"the refusal is reported"
has "$T/err" "run_skill_script for skill scr: scripts/ok.sh" "it names the call"
has "$T/err" "to approve it, run: skit run --allow 'run_skill_script(scr:scripts/ok.sh)' --root" \
	"it prints the approving command"
lacks "$T/req.jsonl" "OK-RUN" "the script did not run"
has "$T/req.jsonl" "tool 'shell' is not available now" "shell is not offered"
has "$T/req.jsonl" "the user can allow it by running again with --allow" \
	"the model is told how it could be approved"

# The printed command line approves it.
cmd=$(sed -n 's/^  to approve it, run: skit //p' "$T/err" | head -n 1)
rm -f "$T/req.jsonl"
eval "timeout 60 \"\$SKIT\" $cmd" </dev/null >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "the printed command runs"
has "$T/req.jsonl" "OK-RUN" "the printed command approves the script"
lacks "$T/err" "refused (execute call needs approval; no terminal to ask):
  run_skill_script" "no refusal for the script"

# --yes: both run, and the trail says who approved.
rm -f "$T/req.jsonl"
rm -rf "$W/runs"
bare --yes
expect_rc 0 "--yes"
has "$T/req.jsonl" "OK-RUN" "--yes runs the script"
has "$T/req.jsonl" "SHELL-RAN" "--yes offers and runs shell"
the_run
has "$RUN/events.jsonl" '"type":"approval","tool":"run_skill_script","skill":"scr"' \
	"approvals are audited"
has "$RUN/events.jsonl" '"decision":"allow","by":"flag"' "approved by the flag"

# --deny wins over --yes.
rm -f "$T/req.jsonl"
bare --yes --deny 'Bash(echo:*)'
has "$T/req.jsonl" "denied: denied by --deny 'Bash(echo:*)'" "--deny wins over --yes"
lacks "$T/req.jsonl" "SHELL-RAN\\n" "the denied command did not run"
has "$T/req.jsonl" "OK-RUN" "the script is not denied by that pattern"

# --allow pre-approves one call; --no-file-tools hides the file tools.
rm -f "$T/req.jsonl"
bare --allow 'run_skill_script(scripts/ok.sh:*)' --no-file-tools
has "$T/req.jsonl" "OK-RUN" "--allow pre-approves"
lacks "$T/req.jsonl" '"name":"read_file"' "--no-file-tools"

# A trusted config may grant; a project's config only restricts.
printf '{"permissions": {"allow": ["run_skill_script"]}}\n' >"$T/cfg.json"
rm -f "$T/req.jsonl"
bare --config "$T/cfg.json"
has "$T/req.jsonl" "OK-RUN" "--config allow pre-approves"
mkdir -p "$W/.agents"
printf '{"permissions": {"allow": ["run_skill_script"], "deny": ["Bash(echo:*)"]}}\n' \
	>"$W/.agents/skit.json"
# (an untrusted folder's config is not read: docs/registry.md)
rm -f "$T/req.jsonl"
bare --yes
lacks "$T/req.jsonl" "denied by config deny" "an untrusted project's deny is not read"
has "$T/err" "skit: the config of $W is not loaded (not a trusted folder); to trust it, run: skit trust $W" \
	"one line says so (--root: nothing else is held back)"
run trust "$W"
expect_rc 0 "skit trust"
rm -f "$T/req.jsonl"
bare --yes
has "$T/err" "1 \"allow\" permission(s) ignored" "a project's allow is ignored, with a warning"
has "$T/req.jsonl" "denied by config deny 'Bash(echo:*)'" "a project's deny applies"
rm -f "$T/req.jsonl"
bare
lacks "$T/req.jsonl" "OK-RUN" "a project's allow grants nothing"
printf '{"permissions": {"deny": ["Bsh"]}}\n' >"$W/.agents/skit.json"
bare --yes
expect_rc 1 "a bad config pattern fails the run"
has "$T/err" "permissions.deny[0]: unknown tool 'Bsh'" "and says where"
lines "$T/err" 1 "in one line"
# Nor may it raise the disk cap, even when the user set none (issue 28:
# 2^50 was taken as it stood). doctor shows the cap a run would use.
printf '{"sandbox": {"disk_cap": 1125899906842624}}\n' >"$W/.agents/skit.json"
run doctor --json
has "$T/out" "\"project\": \"$W\"" "doctor reads the trusted project"
has "$T/out" '"disk_cap": 1073741824' "a project's config cannot raise the disk cap"
printf '{"sandbox": {"disk_cap": 1048576}}\n' >"$W/.agents/skit.json"
run doctor --json
has "$T/out" '"disk_cap": 1048576' "it may lower it"
rm -rf "$W/.agents"

# Bad flags are usage errors, in one line.
bare --allow 'Bash(git'
expect_rc 2 "a malformed --allow"
has "$T/err" "skit run: --allow 'Bash(git': unclosed '('" "the --allow error names the pattern"
bare --deny 'Frob'
expect_rc 2 "an unknown tool in --deny"
bare --deny 'Skill(pdf)'
expect_rc 2 "a --deny rule that could never act"
has "$T/err" "skit run: --deny 'Skill(pdf)': 'Skill(pdf)' names a tool skit never gates (the skill, plan and ask tools): a deny rule of it would do nothing" \
	"the --deny error says why"

# allowed-tools is checked at load time: an unknown tool name and a
# malformed pattern are lint warnings (errors with --strict).
mkdir -p "$W/lint/frob"
printf -- '---\nname: frob\ndescription: Lint me.\nallowed-tools: BASH Frobnicate Read\n---\nBody.\n' \
	>"$W/lint/frob/SKILL.md"
run validate "$W/lint/frob"
expect_rc 0 "allowed-tools warnings do not fail validate"
run validate --strict "$W/lint/frob"
expect_rc 1 "they do with --strict"
has "$T/err" "SKILL.md:4:1: warning: Unknown tool 'BASH' in allowed-tools (did you mean 'Bash'?) [allowed-tools-unknown-tool]" \
	"an unknown tool is a lint warning with a hint"
has "$T/err" "Unknown tool 'Frobnicate' in allowed-tools" "each unknown name is reported"
mkdir -p "$W/lint/paren"
printf -- '---\nname: paren\ndescription: Lint me.\nallowed-tools: Read(a\n---\nBody.\n' \
	>"$W/lint/paren/SKILL.md"
run validate --strict "$W/lint/paren"
expect_rc 1 "a malformed pattern fails --strict"
has "$T/err" "unclosed '(' (column 5); skit treats the skill as granting no tool [allowed-tools-pattern]" \
	"a malformed pattern is a lint warning"

# skit doctor reports the sandbox layers, in text and JSON.
run doctor --root "$W/skills"
has "$T/out" "Sandbox (layers for scripts; Landlock ABI" "doctor has a sandbox section"
has "$T/out" "  seccomp " "doctor lists each layer"
run doctor --json --root "$W/skills"
json_ok "$T/out" "doctor --json is JSON"
has "$T/out" '"sandbox"' "doctor --json has the sandbox layers"

# On a terminal: the prompt, then y or n.
if command -v script >/dev/null 2>&1; then
	rm -f "$T/req.jsonl"
	printf 'y\nn\n' | timeout 60 script -qec "\"$SKIT\" run --root project=$W/skills --runs-dir $W/runs --workdir $W/work --quiet --request-log $T/req.jsonl --model replay:$CASS/perm.jsonl go" /dev/null >"$T/tty" 2>&1
	has "$T/tty" "skit: approval needed" "the prompt is shown on a terminal"
	has "$T/tty" "network: off" "the prompt says the network is off"
	has "$T/tty" "Allow? [y]es, [n]o, [a]lways (runs of scr's scripts/ok.sh, saved until the skill changes)" \
		"it offers always"
	has "$T/req.jsonl" "OK-RUN" "y approves"
	has "$T/req.jsonl" "the user declined this call" "n declines"
	lacks "$T/req.jsonl" "SHELL-RAN\\n" "the declined call did not run"
	# What network the program would have: the WebFetch domains the
	# user allows (through the proxy), or with --network all of it.
	printf 'n\nn\n' | timeout 60 script -qec "\"$SKIT\" run --root project=$W/skills --runs-dir $W/runs --workdir $W/work --quiet --allow 'WebFetch(domain:example.com)' --model replay:$CASS/perm.jsonl go" /dev/null >"$T/tty" 2>&1
	has "$T/tty" "network: HTTP and HTTPS to example.com only, through skit's proxy" \
		"the prompt names the proxied domains"
	printf 'n\nn\n' | timeout 60 script -qec "\"$SKIT\" run --root project=$W/skills --runs-dir $W/runs --workdir $W/work --quiet --network --model replay:$CASS/perm.jsonl go" /dev/null >"$T/tty" 2>&1
	has "$T/tty" "network: on: the whole network (--network)" \
		"the prompt says the network will be on"
fi
# The trail records the network a program had and what it did with it
# (issue 28): with WebFetch(domain:example.com) a shell call's request to
# another host goes through skit's proxy and is refused there.
printf '%s\n' '{"tool_calls": [{"id": "w1", "name": "shell", "arguments": {"command": "python3 -c \"import urllib.request as u\ntry:\n  u.urlopen(\u0027http://not-allowed.test/\u0027, timeout=20)\nexcept Exception as e:\n  print(\u0027WEB-REFUSED\u0027, e)\""}}]}' \
	'{"text": "DONE"}' >"$T/web.jsonl"
rm -rf "$W/runs"
rm -f "$T/req.jsonl"
timeout 60 "$SKIT" run --yes --root "project=$W/skills" --runs-dir "$W/runs" \
	--workdir "$W/work" --quiet --request-log "$T/req.jsonl" \
	--allow 'WebFetch(domain:example.com)' --model "replay:$T/web.jsonl" go \
	</dev/null >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "a shell call with the web proxy"
has "$T/req.jsonl" "WEB-REFUSED HTTP Error 403" "the proxy refused the other host"
the_run
has "$RUN/events.jsonl" '"network":true,"web":{"domains":["example.com"],"forwarded":0,"refused":1}' \
	"the trail records the proxy's grant and what it did"
reg_done
