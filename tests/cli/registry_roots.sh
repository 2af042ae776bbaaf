#!/bin/sh
# SPDX-License-Identifier: MIT
# registry_roots.sh - the default roots (DESIGN.md section 4) and config
# files, through the CLI: project detection, $SKIT_HOME, XDG config,
# --config, --no-config, malformed configs.
. "$(dirname "$0")/registry_lib.inc"
reg_setup

# a project (a .git folder) with skills in all three project roots
P=$W/proj
mkdir -p "$P/.git" "$P/src/deep"
skill "$P/.agents/skills" one "From .agents."
skill "$P/.agent/skills" two "From .agent."
skill "$P/.claude/skills" three "From .claude."
skill "$P/.claude/skills" one "Shadowed by .agents."
skill "$HOME/.agents/skills" mine "User skill."
cd "$P/src/deep" || exit 1

run doctor
has "$T/out" "Project: $P" "project found from a subfolder"
has "$T/out" "project:agents  $P/.agents/skills" "project root 1"
has "$T/out" "project:agent   $P/.agent/skills" "project root 2"
has "$T/out" "project:claude  $P/.claude/skills" "project root 3"
has "$T/out" "user:agents     $HOME/.agents/skills" "user root"
has "$T/out" "user:agent      $HOME/.agent/skills" "user root 2"
has "$T/out" "user:claude     $HOME/.claude/skills" "user root 3"
has "$T/out" "/skit/skills" "builtin root"

run list
expect_rc 0 "list with default roots"
lines "$T/out" 4 "list: four active skills"
head -n 1 "$T/out" | grep -q '^one  *project:agents  *\[shadows project:claude\] From \.agents\.' &&
	reg_pass || reg_fail ".agents wins over .claude"
run list --all
has "$T/out" "[shadowed by project:agents] Shadowed by .agents." "same-tier shadowing"
# SKIT_HOME moves the user root
skill "$W/sk/skills" other "Under SKIT_HOME."
SKIT_HOME=$W/sk
export SKIT_HOME
run list
unset SKIT_HOME
has "$T/out" "other" "SKIT_HOME/skills is the user root"
lacks "$T/out" "mine" "SKIT_HOME replaces ~/.agents"

# the user config replaces the user tier
mkdir -p "$XDG_CONFIG_HOME/skit"
printf '{"roots": {"user": ["~/elsewhere"]}}\n' >"$XDG_CONFIG_HOME/skit/config.json"
skill "$HOME/elsewhere" far "Configured."
run list
has "$T/out" "far" "user config root"
lacks "$T/out" "mine" "user config replaces the default"
run list --no-config
has "$T/out" "mine" "--no-config ignores the user config"

# the project config sets project roots, relative to the project; it may
# not touch the user tier
printf '{"roots": {"project": ["custom"], "user": ["/tmp"]}}\n' \
	>"$P/.agents/skit.json"
skill "$P/custom" cust "Custom project root."
run list
has "$T/out" "cust" "project config root"
lacks "$T/out" "From .agents." "project config replaces the defaults"
has "$T/out" "far" "project config cannot change the user tier"
run doctor
has "$T/out" "\"roots.user\" is ignored" "doctor reports the refused key"

# --config overrides both
printf '{"roots": {"project": [], "user": ["%s"]}}\n' "$W/sk/skills" >"$W/x.json"
run list --config "$W/x.json"
has "$T/out" "other" "--config wins"
lacks "$T/out" "cust" "--config empties the project tier"

# malformed configs: exit 1, one line naming the file; missing: exit 2
printf '{"roots": {"project": "notalist"}}\n' >"$W/bad.json"
run list --config "$W/bad.json"
expect_rc 1 "malformed --config"
has "$T/err" "$W/bad.json" "the message names the file"
lines "$T/err" 1 "one line"
printf '{"roots": [' >"$P/.agents/skit.json"
run list
expect_rc 1 "malformed project config"
has "$T/err" "$P/.agents/skit.json:1:" "JSON error with its position"
run list --no-config
expect_rc 0 "--no-config skips a broken project config"
run list --config "$W/none.json"
expect_rc 2 "missing --config file"
has "$T/err" "no such config file" "missing --config message"

# with --root, no config is read at all
run list --root "$P/.agent/skills"
expect_rc 0 "--root ignores the broken config"
has "$T/out" "two" "--root"

rm -f "$P/.agents/skit.json" "$XDG_CONFIG_HOME/skit/config.json"
# --source picks any copy: a root's label, or its tier (the highest root)
run show --json one --source project:claude
has "$T/out" "Shadowed by .agents" "--source project:claude picks the shadowed copy"
run show --json one --source project
lacks "$T/out" "Shadowed by .agents" "--source project is the highest project root"
run show one --source project:nope
expect_rc 2 "--source with an unknown label"

# the user roots other clients write: ~/.agent/skills, ~/.claude/skills
skill "$HOME/.claude/skills" claude-user "From ~/.claude."
skill "$HOME/.agent/skills" agent-user "From ~/.agent."
skill "$HOME/.agents/skills" twice "From ~/.agents."
skill "$HOME/.claude/skills" twice "Shadowed by ~/.agents."
run list --all
grep -q '^claude-user  *user:claude  *From ~/\.claude\.' "$T/out" &&
	reg_pass || reg_fail "~/.claude/skills is read (user:claude)"
grep -q '^agent-user  *user:agent  *From ~/\.agent\.' "$T/out" &&
	reg_pass || reg_fail "~/.agent/skills is read (user:agent)"
has "$T/out" "[shadowed by user:agents] Shadowed by ~/.agents." "user-tier shadowing"


reg_done
