#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_install.sh - packs and installed roots end to end through the CLI
# (docs/install.md): skit pack (reproducible, refuses an invalid skill),
# install from a pack, a folder and a file:// git repository, verify
# (changed / added / missing, --json), --force and --dry-run, uninstall,
# keygen and signed packs, update (needs --yes for script changes
# without a terminal), --from-lock, --scope user, and --help.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

# lock_has ROOT TEXT DESCRIPTION: the root's lock file holds TEXT.
lock_has() {
	has "$1/.skit-lock.json" "$2" "$3"
}

# json_parses FILE DESCRIPTION: with python3, FILE parses as JSON; without
# it, FILE at least looks like a JSON object.
json_parses() {
	if command -v python3 >/dev/null 2>&1; then
		if python3 -c 'import json,sys; json.load(sys.stdin)' <"$1" \
			2>"$T/json-err"; then
			reg_pass
		else
			reg_fail "$2: invalid JSON: $(tail -n 1 "$T/json-err")"
		fi
	elif head -n 1 "$1" | grep -q '^{' && tail -n 1 "$1" | grep -q '^}'; then
		reg_pass
	else
		reg_fail "$2: does not look like a JSON object"
	fi
}

# same_tree A B DESCRIPTION: diff -r finds no difference.
same_tree() {
	if diff -r "$1" "$2" >"$T/diff" 2>&1; then
		reg_pass
	else
		reg_fail "$3: the folders differ"
		sed 's/^/  | /' "$T/diff" | head -n 10
	fi
}

# ---------------------------------------------------------------- pack
# Two valid skills from skit init, with a script and a reference.
run init --description "Alpha skill for tests. Use when testing packs." ./alpha
expect_rc 0 "init alpha"
run init --description "Beta skill for tests. Use when testing packs." ./beta
expect_rc 0 "init beta"
printf '#!/bin/sh\necho alpha\n' >alpha/scripts/run.sh
chmod 0755 alpha/scripts/run.sh
printf 'Notes for beta.\n' >beta/references/notes.md

run pack -o "$T/p.zip" alpha beta
expect_rc 0 "pack two skills"
has "$T/out" "Packed 2 skills" "pack reports the skills"
[ -s "$T/p.zip" ] && reg_pass || reg_fail "pack wrote no file"
run pack -o "$T/p2.zip" alpha beta
expect_rc 0 "pack again"
cmp -s "$T/p.zip" "$T/p2.zip" && reg_pass ||
	reg_fail "the same input packed twice gives different bytes"

# An invalid skill: refused (--strict: conformance), one line naming it,
# no pack written.
mkdir bad
printf -- '---\nname: Bad_Name\ndescription: Not valid.\n---\nBody.\n' \
	>bad/SKILL.md
run pack --strict -o "$T/bad.zip" alpha bad
expect_rc 1 "pack refuses an invalid skill"
lines "$T/err" 1 "the pack error is one line"
has "$T/err" "skill bad" "the pack error names the skill"
[ ! -e "$T/bad.zip" ] && reg_pass || reg_fail "a refused pack was written"
# The loading rules accept the name (it is known by its folder name, bad);
# a skill without a description cannot be loaded at all.
run pack -o "$T/bad.zip" alpha bad
expect_rc 0 "pack with the loading rules"
mkdir nodesc
printf -- '---\nname: nodesc\n---\nBody.\n' >nodesc/SKILL.md
run pack -o "$T/nodesc.zip" alpha nodesc
expect_rc 1 "pack refuses a skill that cannot be loaded"
has "$T/err" "description" "the pack error says why"
[ ! -e "$T/nodesc.zip" ] && reg_pass || reg_fail "a refused pack was written"
rm -f "$T/bad.zip"

# A skill named like a Windows device (con, com1...): valid, with a lint
# warning (validate's verdict does not change), but pack refuses it.
mkdir com1
printf -- '---\nname: com1\ndescription: A port. Use when testing.\n---\nBody.\n' \
	>com1/SKILL.md
run validate com1
expect_rc 0 "validate accepts a Windows device name"
has "$T/err" "[name-windows-reserved]" "validate warns about it"
run validate --strict com1
expect_rc 1 "validate --strict fails on the warning"
run pack -o "$T/com1.zip" com1
expect_rc 1 "pack refuses a Windows device name"
has "$T/err" "Windows device name" "the pack error says why"
[ ! -e "$T/com1.zip" ] && reg_pass || reg_fail "a refused pack was written"
run install --root "$W/Rcom" com1
expect_rc 1 "install refuses a Windows device name"
has "$T/err" "Windows device name" "the install error says why"
[ ! -e "$W/Rcom/com1" ] && reg_pass || reg_fail "com1 was installed"

# ---------------------------------------------------------- install
R=$W/R
run install --root "$R" "$T/p.zip"
expect_rc 0 "install a pack"
[ -f "$R/alpha/SKILL.md" ] && [ -f "$R/beta/SKILL.md" ] && reg_pass ||
	reg_fail "install: both skill folders present"
[ -x "$R/alpha/scripts/run.sh" ] && reg_pass ||
	reg_fail "install keeps the executable bit"
lock_has "$R" '"source": "'"$T/p.zip"'"' "the lock records the pack's path"
lock_has "$R" '"resolved": "sha256:' "the lock records the pack's digest"

run verify --root "$R"
expect_rc 0 "verify a fresh install"
has "$T/out" "2 skills verified" "verify counts the skills"

# The lock records a local source as an absolute path (docs/install.md,
# "The lock file"), so it works from any folder.
mkdir -p "$W/elsewhere"
cp "$T/p.zip" "$W/rel.zip"
run install --root "$W/Rrel" rel.zip
expect_rc 0 "install a pack named by a relative path"
lock_has "$W/Rrel" '"source": "'"$W/rel.zip"'"' \
	"a relative pack path is recorded absolute"
cd "$W/elsewhere" || exit 1
run install --root "$W/Rrel2" --from-lock "$W/Rrel/.skit-lock.json"
expect_rc 0 "--from-lock of a relative pack source, from another folder"
cd "$W" || exit 1

# Changed, added and missing files.
echo "tampered" >>"$R/alpha/SKILL.md"
run verify --root "$R"
expect_rc 1 "verify finds a changed file"
has "$T/out" "changed: alpha/SKILL.md" "verify names the changed file"
echo "extra" >"$R/beta/extra.md"
rm "$R/beta/references/notes.md"
run verify --root "$R"
expect_rc 1 "verify finds added and missing files"
has "$T/out" "added: beta/extra.md" "verify names the added file"
has "$T/out" "missing: beta/references/notes.md" \
	"verify names the missing file"
run verify --root "$R" --json
expect_rc 1 "verify --json with findings"
cp "$T/out" "$T/verify.json"
json_parses "$T/verify.json" "verify --json"
has "$T/verify.json" '"problem": "changed"' "verify --json: changed"
has "$T/verify.json" '"problem": "added"' "verify --json: added"
has "$T/verify.json" '"problem": "missing"' "verify --json: missing"

# Installing over it needs --force.
run install --root "$R" "$T/p.zip"
expect_rc 1 "install over a different version without --force"
has "$T/err" "--force" "the refusal names --force"

# A failed or dry first install leaves no root behind: not the root, not
# the folders made above it, not an empty lock; an existing folder stays.
run install --root "$T/fresh/a/b" "$T/no-such-source"
expect_rc 2 "install of a missing source"
if [ -e "$T/fresh" ]; then
	reg_fail "a failed first install left $(find "$T/fresh" | tr '\n' ' ')"
else
	reg_pass
fi
run install --root "$T/fresh-dry" --dry-run "$T/p.zip"
expect_rc 0 "a dry first install"
if [ -e "$T/fresh-dry" ]; then
	reg_fail "a dry first install left its root"
else
	reg_pass
fi
mkdir -p "$T/there"
run install --root "$T/there" "$T/no-such-source"
expect_rc 2 "install of a missing source into an empty folder"
if [ -d "$T/there" ] && [ ! -e "$T/there/.skit-lock.json" ]; then
	reg_pass
else
	reg_fail "a failed install removed or changed an existing folder"
fi

# --dry-run --force prints the plan and changes nothing.
run install --root "$R" --dry-run --force "$T/p.zip"
expect_rc 0 "install --dry-run --force"
has "$T/out" "would replace alpha" "the dry run prints the plan"
has "$T/out" "Would install 2 skills" "the dry run says it would"
run verify --root "$R"
expect_rc 1 "the dry run changed nothing"
has "$T/out" "changed: alpha/SKILL.md" "still changed after the dry run"
has "$T/out" "added: beta/extra.md" "still added after the dry run"
has "$T/out" "missing: beta/references/notes.md" \
	"still missing after the dry run"

# --force repairs.
run install --root "$R" --force "$T/p.zip"
expect_rc 0 "install --force"
has "$T/out" "replaced alpha" "--force replaces"
run verify --root "$R"
expect_rc 0 "verify after --force"
[ ! -e "$R/beta/extra.md" ] && reg_pass ||
	reg_fail "--force left the added file"

# The same files again: succeeds and keeps them.
run install --root "$R" "$T/p.zip"
expect_rc 0 "installing the same files again"
has "$T/out" "kept alpha (already up to date)" "the same files are kept"

# ---------------------------------------------------------- uninstall
run uninstall --root "$R" beta
expect_rc 0 "uninstall"
[ ! -e "$R/beta" ] && reg_pass || reg_fail "uninstall left the folder"
lacks "$R/.skit-lock.json" '"beta"' "uninstall removes the lock entry"
run verify --root "$R"
expect_rc 0 "verify after uninstall"
has "$T/out" "1 skill verified" "the rest verifies"
run uninstall --root "$R" nosuch
expect_rc 2 "uninstall of a skill that is not installed"
has "$T/err" "nosuch" "the error names it"

# Several names are one transaction: one missing name removes nothing.
run uninstall --root "$R" alpha nosuch
expect_rc 2 "uninstall of a present and a missing skill"
has "$T/err" "nosuch is not installed" "the error names the missing one"
lines "$T/err" 1 "the uninstall error is one line"
[ -f "$R/alpha/SKILL.md" ] && reg_pass ||
	reg_fail "a refused uninstall removed the present skill"
lock_has "$R" '"alpha"' "a refused uninstall keeps the lock entry"
run uninstall --root "$R" alpha alpha
expect_rc 2 "uninstall of one name twice"
[ -f "$R/alpha/SKILL.md" ] && reg_pass ||
	reg_fail "uninstall of a name twice removed it"

# ------------------------------------------- an unfinished transaction
# A staging folder with a journal, as a command killed mid-commit leaves
# it: list --installed reports it (text and JSON) and changes nothing;
# the next locking command (verify) recovers it.
mkdir -m 0700 "$R/.staging-testdead"
printf '{"moves": [], "lock_sha256": "%064d"}' 0 \
	>"$R/.staging-testdead/journal.json"
run list --installed --root "$R"
expect_rc 0 "list --installed with an unfinished transaction"
has "$T/err" "left unfinished (.staging-testdead)" \
	"list --installed names the unfinished transaction"
has "$T/err" "the next command that locks this folder" \
	"list --installed says the next locking command recovers it"
has "$T/err" "rolled back" "list --installed says it will be rolled back"
has "$T/out" "alpha" "list --installed still lists the skills"
run list --installed --json --root "$R"
expect_rc 0 "list --installed --json with an unfinished transaction"
json_ok "$T/out" "list --installed --json parses"
has "$T/out" '"staging": ".staging-testdead"' \
	"the JSON names the unfinished transaction"
has "$T/out" '"recovery": "rolled back"' "the JSON says how it recovers"
[ -d "$R/.staging-testdead" ] && reg_pass ||
	reg_fail "list --installed changed the root"
run verify --root "$R"
expect_rc 0 "verify recovers the unfinished transaction"
[ ! -e "$R/.staging-testdead" ] && reg_pass ||
	reg_fail "verify left the staging folder"
run list --installed --json --root "$R"
has "$T/out" '"unfinished": []' "nothing unfinished after recovery"
run list --installed --root "$R"
lacks "$T/err" "unfinished" "no warning after recovery"

# ------------------------------------------- credentials in a source
# A lock written with a token in a URL (by an older skit): list
# --installed shows the URL without it, text and JSON.
cp "$R/.skit-lock.json" "$T/lock.bak"
sed 's#"source": "[^"]*"#"source": "https://user:t0ken-s3cret@example.org/p.zip"#' \
	"$T/lock.bak" >"$R/.skit-lock.json"
run list --installed --root "$R"
expect_rc 0 "list --installed of a lock holding a token"
has "$T/out" "https://example.org/p.zip" "the URL is shown"
lacks "$T/out" "t0ken-s3cret" "the token is not printed"
lacks "$T/out" "user:" "the user is not printed"
run list --installed --json --root "$R"
lacks "$T/out" "t0ken-s3cret" "the token is not in the JSON"
cp "$T/lock.bak" "$R/.skit-lock.json"
# --header: checked, and a bad one is a usage error.
run install --root "$W/Rh" --header 'X-Bad: a
Host: evil' "$T/p.zip"
expect_rc 2 "a header with a newline is refused"
run install --root "$W/Rh" --header 'no colon' "$T/p.zip"
expect_rc 2 "a header without a name is refused"
run install --root "$W/Rh" --header 'Authorization: Bearer t0k' "$T/p.zip"
expect_rc 0 "a header with a local source is accepted (and unused)"
lacks "$W/Rh/.skit-lock.json" "t0k" "the header is not stored"

# ---------------------------------------------------------- signatures
run keygen "$T/key"
expect_rc 0 "keygen"
[ -f "$T/key" ] && [ -f "$T/key.pub" ] && reg_pass ||
	reg_fail "keygen writes KEY and KEY.pub"
case $(ls -l "$T/key") in
-rw-------*) reg_pass ;;
*) reg_fail "the private key is not mode 0600" ;;
esac
keyid=$(sed -n 's/^Key id: *//p' "$T/out")
run keygen "$T/other"
expect_rc 0 "keygen a second key"
run keygen "$T/key"
expect_rc 1 "keygen refuses an existing file"

run pack --sign "$T/key" -o "$T/signed.zip" alpha beta
expect_rc 0 "pack --sign"
has "$T/out" "signed by $keyid" "pack names the key"
run install --root "$W/RS" --require-signature --trust "$T/key.pub" \
	"$T/signed.zip"
expect_rc 0 "install a signed pack with --require-signature"
lock_has "$W/RS" '"signed_by": "'"$keyid"'"' "the lock records signed_by"
run install --root "$W/RS2" --require-signature --trust "$T/other.pub" \
	"$T/signed.zip"
expect_rc 1 "install with another key trusted"
has "$T/err" "does not verify" "the wrong key is reported"
[ ! -e "$W/RS2/alpha" ] && reg_pass || reg_fail "a refused pack installed"
run install --root "$W/RS3" --require-signature --trust "$T/key.pub" \
	"$T/p.zip"
expect_rc 1 "an unsigned pack with --require-signature"
has "$T/err" "not a signed pack" "the missing signature is reported"
run install --root "$W/RS4" --require-signature "$T/signed.zip"
expect_rc 2 "--require-signature without --trust is a usage error"

# ---------------------------------------------------------- folder source
mkdir -p src
cp -R alpha beta src/
R2=$W/R2
run install --root "$R2" "$W/src"
expect_rc 0 "install a folder of skill folders"
[ -f "$R2/alpha/SKILL.md" ] && [ -f "$R2/beta/references/notes.md" ] &&
	reg_pass || reg_fail "the folder's skills are installed"
run verify --root "$R2"
expect_rc 0 "verify a folder install"
run install --root "$W/R2rel" src
expect_rc 0 "install a folder named by a relative path"
lock_has "$W/R2rel" '"source": "'"$W/src"'"' \
	"a relative folder path is recorded absolute"

# ---------------------------------------------------------- git source
if command -v git >/dev/null 2>&1; then
	g() {
		git -C "$W/repo" -c user.name=t -c user.email=t@t \
			-c commit.gpgsign=false "$@" >/dev/null 2>&1
	}
	mkdir repo
	cp -R alpha beta repo/
	git init -q "$W/repo" >/dev/null 2>&1
	g add -A
	g commit -q -m one
	head1=$(git -C "$W/repo" rev-parse HEAD)
	R3=$W/R3
	run install --root "$R3" "file://$W/repo"
	expect_rc 0 "install from a file:// git repository"
	[ -f "$R3/alpha/SKILL.md" ] && [ -f "$R3/beta/SKILL.md" ] &&
		reg_pass || reg_fail "the repository's skills are installed"
	lock_has "$R3" '"resolved": "'"$head1"'"' \
		"the lock records the commit"
	lock_has "$R3" '"source": "file://'"$W/repo"'"' \
		"the lock records the URL"

	# A script changes upstream.
	printf '#!/bin/sh\necho alpha two\n' >repo/alpha/scripts/run.sh
	g commit -q -a -m two
	head2=$(git -C "$W/repo" rev-parse HEAD)
	cp "$R3/.skit-lock.json" "$T/lock-before"
	run update --root "$R3" </dev/null
	expect_rc 1 "update with a script change, no terminal, no --yes"
	has "$T/err" "--yes" "the refusal mentions --yes"
	has "$T/out" "scripts/run.sh" "the plan names the changed script"
	grep -q 'echo alpha$' "$R3/alpha/scripts/run.sh" && reg_pass ||
		reg_fail "a refused update changed the script"
	cmp -s "$T/lock-before" "$R3/.skit-lock.json" && reg_pass ||
		reg_fail "a refused update changed the lock"
	run verify --root "$R3"
	expect_rc 0 "verify after the refused update"

	run update --root "$R3" --yes </dev/null
	expect_rc 0 "update --yes"
	has "$T/out" "scripts/run.sh" "update prints the changed file"
	has "$T/out" "Updated 1 of 2 skills" "update counts what changed"
	grep -q 'echo alpha two' "$R3/alpha/scripts/run.sh" && reg_pass ||
		reg_fail "update --yes did not install the new script"
	lock_has "$R3" '"resolved": "'"$head2"'"' \
		"the lock records the new commit"
	run verify --root "$R3"
	expect_rc 0 "verify after update"

	# --from-lock reproduces the same files in another root.
	R4=$W/R4
	run install --root "$R4" --from-lock "$R3/.skit-lock.json"
	expect_rc 0 "install --from-lock"
	run verify --root "$R4"
	expect_rc 0 "verify the root made from the lock"
	same_tree "$R3/alpha" "$R4/alpha" "--from-lock: alpha"
	same_tree "$R3/beta" "$R4/beta" "--from-lock: beta"

	# #REF and //SUBDIR: the first commit, only the folder alpha.
	R5=$W/R5
	run install --root "$R5" "file://$W/repo#$head1//alpha"
	expect_rc 0 "install URL#REF//SUBDIR"
	grep -q 'echo alpha$' "$R5/alpha/scripts/run.sh" && reg_pass ||
		reg_fail "#REF did not pick the first commit"
	[ ! -e "$R5/beta" ] && reg_pass || reg_fail "//SUBDIR took only alpha"
	lock_has "$R5" '"resolved": "'"$head1"'"' "#REF is recorded"

	# list --installed: source, version, time, as text and JSON.
	run list --installed --root "$R3" --root "$R5"
	expect_rc 0 "list --installed"
	has "$T/out" "alpha" "list --installed names the skills"
	has "$T/out" "file://$W/repo" "list --installed shows the source"
	lines "$T/out" 3 "one line a skill over both roots"
	run list --installed --json --root "$R3"
	expect_rc 0 "list --installed --json"
	json_ok "$T/out" "list --installed --json parses"
	has "$T/out" '"installed_at"' "the JSON has the install time"
	has "$T/out" '"resolved": "'"$head2"'"' "the JSON has the commit"
else
	echo "note: git not found; the git, update and --from-lock checks" \
		"are skipped"
fi

# --from-lock of the folder install, too.
run install --root "$W/R5" --from-lock "$R2/.skit-lock.json"
expect_rc 0 "install --from-lock of a folder source"
run verify --root "$W/R5"
expect_rc 0 "verify the folder root made from the lock"
same_tree "$R2/alpha" "$W/R5/alpha" "--from-lock (folder): alpha"

# ---------------------------------------------------------- scope user
SKIT_HOME=$SKIT_TEST_DIR/home
export SKIT_HOME
cd "$W/elsewhere" || exit 1
run install --scope user "$T/p.zip"
expect_rc 0 "install --scope user"
has "$T/out" "$SKIT_HOME/skills (user)" "the user scope is reported"
[ -f "$SKIT_HOME/skills/alpha/SKILL.md" ] &&
	[ -f "$SKIT_HOME/skills/.skit-lock.json" ] && reg_pass ||
	reg_fail "--scope user installs into \$SKIT_HOME/skills"
run verify --scope user
expect_rc 0 "verify --scope user"
run uninstall --scope user alpha
expect_rc 0 "uninstall --scope user"
[ ! -e "$SKIT_HOME/skills/alpha" ] && reg_pass ||
	reg_fail "uninstall --scope user removes the folder"
run install --scope user --root "$W/x" "$T/p.zip"
expect_rc 2 "--scope and --root together"
unset SKIT_HOME
cd "$W" || exit 1

# ---------------------------------------------------------- --help
for c in pack install uninstall update verify keygen; do
	run "$c" --help
	expect_rc 0 "$c --help"
	has "$T/out" "usage: skit $c" "$c --help prints its usage"
done

reg_done
