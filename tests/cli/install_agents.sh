#!/bin/sh
# install_agents.sh - `skit install --agent NAME` on the path a user takes:
# no --root, a scratch HOME, a project made with `git init`, relative
# paths, no terminal (issue 35, "Installing for the agents people already
# use"; docs/install.md, "Installing for other agents").
#
# - Claude Code in a project: .claude/skills/NAME is a relative link to
#   .agents/skills/NAME, and the lock records it; Codex, Cursor, Gemini
#   CLI and OpenCode read .agents/skills themselves: nothing is linked;
# - the user scope: ~/.claude/skills, ~/.codex/skills, ~/.cursor/skills,
#   ~/.gemini/skills and $XDG_CONFIG_HOME/opencode/skills get links,
#   --copy copies;
# - an entry skit did not make is never replaced: the install is refused
#   and nothing is installed;
# - verify names a link that went missing, update makes it again and
#   re-copies a changed skill, uninstall removes the links (not what they
#   lead to) and refuses an edited copy;
# - the user config's install.agents is the default, --no-agent overrides
#   it; a misspelt agent gets a suggestion;
# - Codex's .codex/skills folders are read as interop roots.
. "$(dirname "$0")/registry_lib.inc"
reg_setup

# link_to PATH TARGET DESCRIPTION: PATH is a symbolic link whose text is
# TARGET.
link_to() {
	if [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; then
		reg_pass
	else
		reg_fail "$3: $1 is not a link to $2 ($(ls -ld "$1" 2>&1))"
	fi
}
# is_dir PATH DESCRIPTION: a real folder, not a link
is_dir() {
	if [ -d "$1" ] && [ ! -L "$1" ]; then
		reg_pass
	else
		reg_fail "$2: $1 is not a folder ($(ls -ld "$1" 2>&1))"
	fi
}
# gone PATH DESCRIPTION
gone() {
	if [ ! -e "$1" ] && [ ! -L "$1" ]; then
		reg_pass
	else
		reg_fail "$2: $1 is still there"
	fi
}

skill "$W/src" pdf "Work with PDF files."
skill "$W/src" notes "Keep notes."
skill "$W/src" sheets "Work with spreadsheets."
mkdir -p "$W/proj" && cd "$W/proj" && git init -q . || exit 1

# --- Claude Code in a project: a relative link, recorded in the lock
run install ../src/pdf --agent claude-code </dev/null
expect_rc 0 "install --agent claude-code"
link_to .claude/skills/pdf ../../.agents/skills/pdf "the project link"
has .claude/skills/pdf/SKILL.md "Work with PDF files." "the link leads to the skill"
has "$T/out" "linked $W/proj/.claude/skills/pdf (claude-code)" "install names the link"
has .agents/skills/.skit-lock.json '"dir": "../../.claude/skills"' "the lock records the link, relative"
has .agents/skills/.skit-lock.json '"agent": "claude-code"' "the lock records the agent"
run list --installed </dev/null
has "$T/out" "pdf" "the skill is installed once, in skit's root"
has "$T/out" "for claude-code" "list --installed names the agent it is linked for"
run list --installed --json </dev/null
has "$T/out" "\"path\": \"$W/proj/.claude/skills/pdf\"" "list --installed --json has the link"

# Codex, Cursor, Gemini CLI and OpenCode read .agents/skills in a project
run install ../src/pdf --agent codex --agent cursor,gemini-cli --agent opencode </dev/null
expect_rc 0 "install for the agents that read .agents/skills"
for a in codex cursor gemini-cli opencode; do
	has "$T/out" "$a reads $W/proj/.agents/skills itself: nothing to link" "$a in a project"
done
has "$T/out" "$W/proj/.claude/skills/pdf (claude-code): already linked" "the recorded link is kept"
gone .codex "no .codex folder in the project"
gone .cursor "no .cursor folder in the project"

# --- an entry skit did not make is never replaced
mkdir -p .claude/skills/notes
echo "mine" >.claude/skills/notes/SKILL.md
cp .agents/skills/.skit-lock.json "$T/lock-before"
run install ../src/notes --agent claude-code </dev/null
expect_rc 1 "a hand-written folder in the way"
has "$T/err" ".claude/skills/notes exists and is not skit's" "the error names it"
has .claude/skills/notes/SKILL.md "mine" "the hand-written skill is untouched"
gone .agents/skills/notes "nothing was installed"
if cmp -s .agents/skills/.skit-lock.json "$T/lock-before"; then
	reg_pass
else
	reg_fail "the lock changed after a refused install"
fi
lines "$T/err" 1 "one line of error"
rm -rf .claude/skills/notes

# --- verify and update follow the links
rm .claude/skills/pdf
run verify </dev/null
expect_rc 1 "verify: a recorded link is missing"
has "$T/out" "link: pdf: $W/proj/.claude/skills/pdf" "verify names the link"
run update </dev/null
expect_rc 0 "update"
link_to .claude/skills/pdf ../../.agents/skills/pdf "update makes the link again"
run verify </dev/null
expect_rc 0 "verify after update"

# --- uninstall removes the link, not what it leads to elsewhere
run uninstall pdf </dev/null
expect_rc 0 "uninstall pdf"
gone .claude/skills/pdf "the link went with the skill"
gone .agents/skills/pdf "the skill went"
has "$T/out" "removed $W/proj/.claude/skills/pdf (claude-code)" "uninstall names the link"
has ../src/pdf/SKILL.md "Work with PDF files." "the source is untouched"

# --- the user scope: each agent's own folder
run install --scope user ../src/pdf --agent claude-code --agent codex \
	--agent cursor --agent gemini-cli --agent opencode </dev/null
expect_rc 0 "install --scope user for five agents"
link_to "$HOME/.claude/skills/pdf" ../../.agents/skills/pdf "Claude Code (user)"
link_to "$HOME/.codex/skills/pdf" ../../.agents/skills/pdf "Codex (user)"
link_to "$HOME/.cursor/skills/pdf" ../../.agents/skills/pdf "Cursor (user)"
link_to "$HOME/.gemini/skills/pdf" ../../.agents/skills/pdf "Gemini CLI (user)"
link_to "$XDG_CONFIG_HOME/opencode/skills/pdf" ../../../home/.agents/skills/pdf "OpenCode (user)"
has "$HOME/.cursor/skills/pdf/SKILL.md" "Work with PDF files." "the user link leads to the skill"
# CODEX_HOME moves Codex's folder
CODEX_HOME=$W/codex-home run install --scope user ../src/notes --agent codex </dev/null
expect_rc 0 "install with CODEX_HOME"
link_to "$W/codex-home/skills/notes" ../../home/.agents/skills/notes "CODEX_HOME/skills"
# --copy: a copy, which update refreshes and uninstall refuses when edited
run install --scope user ../src/sheets --agent cursor --copy </dev/null
expect_rc 0 "install --copy"
is_dir "$HOME/.cursor/skills/sheets" "a copy, not a link"
has "$HOME/.cursor/skills/sheets/SKILL.md" "Work with spreadsheets." "the copy holds the skill"
has "$T/out" "copied to $HOME/.cursor/skills/sheets (cursor)" "install names the copy"
skill "$W/src" sheets "Work with spreadsheets, now with charts."
run update --scope user sheets </dev/null
expect_rc 0 "update a copied skill"
has "$HOME/.cursor/skills/sheets/SKILL.md" "now with charts" "update refreshes the copy"
echo "edited" >>"$HOME/.cursor/skills/sheets/SKILL.md"
run verify --scope user </dev/null
expect_rc 1 "verify: an edited copy"
has "$T/out" "$HOME/.cursor/skills/sheets" "verify names the edited copy"
run uninstall --scope user sheets </dev/null
expect_rc 1 "uninstall refuses an edited copy"
has "$T/err" "was edited; nothing was removed" "the refusal says why"
is_dir "$HOME/.agents/skills/sheets" "nothing was removed"
has "$HOME/.cursor/skills/sheets/SKILL.md" "edited" "the edited copy stays"
run uninstall --scope user sheets --force --yes </dev/null
expect_rc 0 "uninstall --force removes the edited copy"
gone "$HOME/.cursor/skills/sheets" "the copy went"

# a user who links ~/.gemini/skills to ~/.agents/skills needs no link
mv "$HOME/.gemini/skills" "$W/gemini-old" && ln -s ../.agents/skills "$HOME/.gemini/skills"
run install --scope user ../src/notes --agent gemini-cli </dev/null
expect_rc 0 "install for an agent whose folder links to skit's"
has "$T/out" "gemini-cli reads $HOME/.agents/skills itself: nothing to link" "a linked folder is skit's"

# --- the user config's default, and --no-agent
mkdir -p "$XDG_CONFIG_HOME/skit"
printf '{"install": {"agents": ["claude-code"]}}\n' >"$XDG_CONFIG_HOME/skit/config.json"
run install ../src/notes </dev/null
expect_rc 0 "install with install.agents in the user config"
link_to .claude/skills/notes ../../.agents/skills/notes "the config's default agent"
# a lock that came with a checkout does not make skit write elsewhere
sed 's|"links": \[|"links": [ { "agent": "cursor", "copy": false, "dir": "../../../evil/skills" },|' \
	.agents/skills/.skit-lock.json >"$T/lock" && cp "$T/lock" .agents/skills/.skit-lock.json
has .agents/skills/.skit-lock.json "evil/skills" "the lock names a folder outside the project"
run update </dev/null
expect_rc 0 "update with a link outside the project in the lock"
gone "$W/evil" "nothing is made outside the project"
link_to .claude/skills/notes ../../.agents/skills/notes "the project's link is still followed"
run install ../src/sheets --no-agent </dev/null
expect_rc 0 "install --no-agent"
gone .claude/skills/sheets "--no-agent links for no agent"
rm "$XDG_CONFIG_HOME/skit/config.json"

# --- usage
run install ../src/pdf --agent claud </dev/null
expect_rc 2 "a misspelt agent"
has "$T/err" "did you mean 'claude-code'?" "the agent is suggested"
run install ../src/pdf --copy </dev/null
expect_rc 2 "--copy without --agent"

# --- Codex's own folders are read (read-only interop roots)
skill "$W/proj/.codex/skills" codex-only "A skill kept for Codex."
skill "$HOME/.codex/skills" codex-user "A user skill kept for Codex."
run doctor </dev/null
has "$T/out" "project:codex" "doctor lists the project's .codex/skills"
has "$T/out" "user:codex" "doctor lists ~/.codex/skills"
run show codex-user </dev/null
expect_rc 0 "a skill in ~/.codex/skills is found"

reg_done
