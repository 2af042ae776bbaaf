#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_manage.sh - managing installed skills (docs/install.md, docs/cli.md):
# uninstall removes only what skit's lock records (--force asks on a
# terminal, needs --yes without one); update prints results only once
# they are committed, refuses local edits without --force, and takes
# --strict, --skip-invalid and --header; install OWNER/REPO[/PATH][@REF]
# (GitHub shorthand, mapped to a local folder of repositories through
# SKIT_GITHUB_URL) and #HEAD.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

# ptydrive OUT ANSWER ARGS...: run skit on a terminal, typing ANSWER.
ptydrive() {
	out=$1
	answer=$2
	shift 2
	printf '%s\n' "$answer" |
		NO_COLOR=1 timeout 60 python3 \
			"$SKIT_SOURCE_DIR/tests/support/ptydrive.py" "$out" -- \
			"$SKIT" "$@"
	rc=$?
}

# ------------------------------------------------------------ uninstall
skill src alpha
skill src beta
R=$W/R
run install --root "$R" "$W/src"
expect_rc 0 "install two skills"
# A hand-written skill, and one another tool installed as a link (the
# npx skills layout: the folder elsewhere, a link in the skills folder).
skill "$R" notes
skill "$W/.agents/skills" linked
ln -s "$W/.agents/skills/linked" "$R/linked"

run uninstall --root "$R" notes
expect_rc 1 "uninstall a hand-written skill"
has "$T/err" "notes in $R was not installed by skit" "the refusal names it"
has "$T/err" "hint:" "the refusal gives a hint"
has "$T/err" "--force" "the hint names --force"
[ -f "$R/notes/SKILL.md" ] && reg_pass || reg_fail "a refused uninstall removed notes"

run uninstall --root "$R" linked
expect_rc 1 "uninstall another tool's linked skill"
[ -L "$R/linked" ] && reg_pass || reg_fail "a refused uninstall removed the link"

run uninstall --root "$R" alpha notes
expect_rc 1 "uninstall of a recorded and an unrecorded skill"
has "$T/err" "nothing was removed" "several names: nothing was removed"
[ -f "$R/alpha/SKILL.md" ] && reg_pass || reg_fail "one transaction: alpha stays"

run uninstall --root "$R" --force notes </dev/null
expect_rc 2 "--force without a terminal nor --yes"
has "$T/err" "--yes" "the refusal says to confirm with --yes"
has "$T/err" "$R/notes (a folder)" "--force names what it would remove"
[ -d "$R/notes" ] && reg_pass || reg_fail "--force alone removed notes"

run uninstall --root "$R" --yes notes </dev/null
expect_rc 2 "--yes without --force"

run uninstall --root "$R" --force --yes notes </dev/null
expect_rc 0 "--force --yes removes a hand-written skill"
[ ! -e "$R/notes" ] && reg_pass || reg_fail "notes is still there"

if python3 -c 'import pty' 2>/dev/null; then
	ptydrive "$T/screen" 'n\r' uninstall --root "$R" --force linked
	expect_rc 1 "--force on a terminal, answered no"
	has "$T/screen" "[y/N]" "--force asks on a terminal"
	has "$T/screen" "a symbolic link" "the question says it is a link"
	[ -L "$R/linked" ] && reg_pass || reg_fail "a declined --force removed the link"
	ptydrive "$T/screen" 'y\r' uninstall --root "$R" --force linked
	expect_rc 0 "--force on a terminal, answered yes"
	[ ! -e "$R/linked" ] && [ ! -L "$R/linked" ] && reg_pass ||
		reg_fail "the link is still there"
	[ -f "$W/.agents/skills/linked/SKILL.md" ] && reg_pass ||
		reg_fail "the link's target was removed"
else
	echo "note: python3 with pty not found; the terminal checks are skipped"
fi

run uninstall --root "$R" alpha
expect_rc 0 "uninstall a skill skit installed"
[ ! -e "$R/alpha" ] && reg_pass || reg_fail "alpha is still there"
run uninstall --root "$R" --force beta </dev/null
expect_rc 0 "--force needs no confirmation for a recorded skill"

if ! command -v git >/dev/null 2>&1; then
	echo "note: git not found; the update and shorthand checks are skipped"
	reg_done
fi

g() {
	repo=$1
	shift
	git -C "$repo" -c user.name=t -c user.email=t@t \
		-c commit.gpgsign=false "$@" >/dev/null 2>&1
}

# --------------------------------------------------------------- update
mkdir repo
skill repo alpha
skill repo beta
mkdir repo/alpha/scripts
printf '#!/bin/sh\necho one\n' >repo/alpha/scripts/run.sh
git init -q repo >/dev/null 2>&1
g repo add -A
g repo commit -q -m one
R3=$W/R3
run install --root "$R3" "file://$W/repo"
expect_rc 0 "install from git"

# A local edit of alpha, and an upstream change of beta.
printf 'My own note.\n' >>"$R3/alpha/SKILL.md"
printf 'More.\n' >>repo/beta/SKILL.md
g repo commit -q -a -m two
cp "$R3/.skit-lock.json" "$T/lock-before"
run update --root "$R3" </dev/null
expect_rc 1 "update over a local edit"
has "$T/err" "alpha has local changes (SKILL.md changed)" \
	"the refusal names the edited file"
has "$T/err" "--force" "the refusal names --force"
lacks "$T/out" "replaced" "a refused update reports nothing as done"
has "$R3/alpha/SKILL.md" "My own note." "the local edit is kept"
cmp -s "$T/lock-before" "$R3/.skit-lock.json" && reg_pass ||
	reg_fail "a refused update changed the lock"
lacks "$R3/beta/SKILL.md" "More." "nothing was updated"

run update --root "$R3" --force </dev/null
expect_rc 0 "update --force overwrites the local edit"
lacks "$R3/alpha/SKILL.md" "My own note." "--force replaced the edit"
has "$R3/beta/SKILL.md" "More." "--force updated beta"
run verify --root "$R3"
expect_rc 0 "verify after update --force"

# A script changes: without a terminal, a plan and a refusal, never a
# report of what was not done.
printf '#!/bin/sh\necho two\n' >repo/alpha/scripts/run.sh
g repo commit -q -a -m three
run update --root "$R3" </dev/null
expect_rc 1 "a script change without a terminal"
has "$T/out" "would replace alpha" "the plan is shown as a plan"
has "$T/out" "scripts/run.sh" "the plan names the script"
lacks "$T/out" "replaced alpha" "nothing is reported as replaced"
lacks "$T/out" "Updated" "no summary of an update that did not happen"
lacks "$T/err" "nothing was installed: canceled" "no contradiction"
has "$T/err" "nothing was updated" "the refusal says nothing was updated"
grep -q 'echo one' "$R3/alpha/scripts/run.sh" && reg_pass ||
	reg_fail "a refused update changed the script"

run update --root "$R3" --yes </dev/null
expect_rc 0 "update --yes"
has "$T/out" "replaced alpha" "the result is reported once committed"
has "$T/out" "Updated 1 of 2 skills" "the summary counts it"

# --header: accepted and never stored; a malformed one is a usage error.
run update --root "$R3" --header 'X-Secret-Test: t0ken' </dev/null
expect_rc 0 "update --header"
lacks "$R3/.skit-lock.json" "t0ken" "--header is not stored"
run update --root "$R3" --header 'no colon here' </dev/null
expect_rc 2 "update --header with a malformed header"

# --strict: a field the spec does not allow loads, but fails --strict.
printf -- '---\nname: beta\ndescription: The beta skill.\nfoo: bar\n---\nBeta.\n' \
	>repo/beta/SKILL.md
g repo commit -q -a -m four
run update --root "$R3" --strict --dry-run </dev/null
expect_rc 1 "update --strict refuses an unknown field"
has "$T/err" "Unexpected fields" "--strict gives the validate reason"
run update --root "$R3" --dry-run </dev/null
expect_rc 0 "update without --strict loads it"
has "$T/out" "would replace beta" "--dry-run prints the plan"

# --skip-invalid: beta loses its frontmatter upstream.
printf 'no frontmatter\n' >repo/beta/SKILL.md
g repo commit -q -a -m five
run update --root "$R3" </dev/null
expect_rc 1 "update with a skill that cannot be loaded"
has "$T/err" "--skip-invalid" "the refusal names --skip-invalid"
run update --root "$R3" --skip-invalid </dev/null
expect_rc 0 "update --skip-invalid"
has "$T/err" "left out:" "--skip-invalid names what it left out"
has "$R3/beta/SKILL.md" "name: beta" "the invalid version was not installed"

# ---------------------------------------------- OWNER/REPO and #HEAD
mkdir -p gh/acme
mkdir gh/acme/tools
skill gh/acme/tools/skills alpha
skill gh/acme/tools/skills beta
git init -q gh/acme/tools >/dev/null 2>&1
g gh/acme/tools add -A
g gh/acme/tools commit -q -m one
g gh/acme/tools tag v1
tag1=$(git -C gh/acme/tools rev-parse HEAD)
printf 'Second.\n' >>gh/acme/tools/skills/alpha/SKILL.md
g gh/acme/tools commit -q -a -m two
head2=$(git -C gh/acme/tools rev-parse HEAD)
SKIT_GITHUB_URL=file://$W/gh/
export SKIT_GITHUB_URL

R6=$W/R6
run install --root "$R6" acme/tools
expect_rc 0 "install OWNER/REPO"
[ -f "$R6/alpha/SKILL.md" ] && [ -f "$R6/beta/SKILL.md" ] && reg_pass ||
	reg_fail "OWNER/REPO installed its skills/ folder"
has "$R6/.skit-lock.json" "\"source\": \"file://$W/gh/acme/tools\"" \
	"the lock records the repository's URL"
has "$R6/.skit-lock.json" "\"resolved\": \"$head2\"" "the default branch"

R7=$W/R7
run install --root "$R7" acme/tools/skills/alpha@v1
expect_rc 0 "install OWNER/REPO/PATH@TAG"
[ -f "$R7/alpha/SKILL.md" ] && [ ! -e "$R7/beta" ] && reg_pass ||
	reg_fail "PATH picked alpha alone"
lacks "$R7/alpha/SKILL.md" "Second." "@v1 picked the tag"
has "$R7/.skit-lock.json" "\"source\": \"file://$W/gh/acme/tools#v1//skills/alpha\"" \
	"the lock records URL#REF//PATH"
run update --root "$R7" </dev/null
expect_rc 0 "update of a shorthand install"
has "$T/out" "Updated 0 of 1 skill" "the recorded tag is fetched again"

run install --root "$W/R8" "acme/tools@$tag1" --dry-run
expect_rc 0 "install OWNER/REPO@COMMIT"
has "$T/out" "would install alpha" "@COMMIT plans alpha"

run install --root "$W/R9" acme/tools@HEAD
expect_rc 0 "install OWNER/REPO@HEAD"
has "$W/R9/.skit-lock.json" "\"resolved\": \"$head2\"" "@HEAD is the default branch"
run install --root "$W/R10" "file://$W/gh/acme/tools#HEAD//skills/beta"
expect_rc 0 "install URL#HEAD//PATH"
[ -f "$W/R10/beta/SKILL.md" ] && reg_pass || reg_fail "#HEAD installed beta"

run install --root "$W/R11" acme/tools@
expect_rc 2 "OWNER/REPO@ with no REF"
run install --root "$W/R11" acme/nosuch
expect_rc 1 "a repository that does not exist"
has "$T/err" "file://$W/gh/acme/nosuch" "the error names the URL"

# A folder that exists wins over the shorthand.
mkdir -p here/acme
skill here/acme tools "A local folder." tools
(cd here && timeout 60 "$SKIT" install --root "$W/R12" acme/tools \
	>"$T/out" 2>"$T/err")
rc=$?
expect_rc 0 "install a local folder that looks like OWNER/REPO"
has "$W/R12/.skit-lock.json" "\"source\": \"$W/here/acme/tools\"" \
	"an existing path is a path"

reg_done
