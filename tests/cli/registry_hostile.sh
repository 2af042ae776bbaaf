#!/bin/sh
# SPDX-License-Identifier: MIT
# registry_hostile.sh - HOSTILE.md part B through the CLI: every hostile
# tree is built here; each check asserts that skit returns (a hang or a
# crash fails), reports the problem, and still lists the good skill.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

skill r good "The good skill."

# B1: loops - to the parent, to itself, into another root and back
ln -s .. r/up
ln -s . r/self
ln -s knot r/knot
skill r2 other "In the second root."
ln -s ../r2 r/to-r2
ln -s ../r r2/to-r
# B2: dangling link; SKILL.md linked to /dev/zero and /etc/passwd
ln -s /nonexistent/skit r/dangling
mkdir -p r/zero r/passwd
ln -s /dev/zero r/zero/SKILL.md
ln -s /etc/passwd r/passwd/SKILL.md
# B3: a FIFO and a folder named SKILL.md
mkdir -p r/fifo r/dirmd/SKILL.md
mkfifo r/fifo/SKILL.md
# B4: a sparse 2 GB SKILL.md
mkdir -p r/huge
printf -- '---\nname: huge\n' >r/huge/SKILL.md
truncate -s 2G r/huge/SKILL.md
# B6: dot-folders and AppleDouble files are not skills
skill r .git git
skill r .system system
skill r ._good good
printf 'junk' >r/._SKILL.md
# B7: nested skills: only the outer one counts
skill r outer "The outer skill."
skill r/outer inner "Nested."
# lowercase skill.md is accepted
mkdir -p r/lower
printf -- '---\nname: lower\ndescription: Lowercase file.\n---\n' >r/lower/skill.md
# B8: a case-only twin
skill r Good "Uppercase twin."
# B1: linked skill folders: followed once; an alias is reported
skill ext linked "Linked in."
ln -s ../ext/linked r/linked
ln -s good r/a-alias
# B9: an unreadable folder
skill r locked "Mode 000."
chmod 000 r/locked

run list --all --root r --root r2
expect_rc 0 "list --all over the hostile tree"
chmod 755 r/locked
grep -q '^good  *root1  *The good skill\.$' "$T/out" && reg_pass ||
	reg_fail "the good skill is listed"
has "$T/out" "other" "the second root is scanned"
has "$T/out" "outer" "the outer skill"
lacks "$T/out" "inner" "no nested skill"
has "$T/out" "lower  " "skill.md accepted"
has "$T/out" "linked " "a linked folder is followed"
lacks "$T/out" "a-alias" "an alias is not listed twice"
lacks "$T/out" "system" "dot-folders skipped"
lacks "$T/out" "git " "the .git folder skipped"
has "$T/out" "zero" "the /dev/zero link is listed as skipped"
has "$T/out" "SKILL.md is a symbolic link" "linked SKILL.md refused"
has "$T/out" "SKILL.md is not a regular file" "FIFO refused"
has "$T/out" "SKILL.md is a directory" "folder named SKILL.md refused"
has "$T/out" "SKILL.md is 2147483648 bytes" "huge file refused unread"
grep -q '^Good  *root1  *Uppercase twin\.$' "$T/out" && reg_pass ||
	reg_fail "case twin loaded under its folder name"
if [ "$(id -u)" -eq 0 ]; then
	echo "note: running as root; mode 000 does not deny reads, so the" \
		"EACCES assertion is skipped"
else
	has "$T/out" "Permission denied" "unreadable folder skipped"
fi

run doctor --root r --root r2
expect_rc 1 "doctor over the hostile tree"
chmod 755 r/locked
has "$T/out" "$W/r/up: leads back to a skill root" "B1 x -> .."
has "$T/out" "$W/r/self: leads back to a skill root" "B1 x -> ."
has "$T/out" "$W/r/to-r2: leads back to a skill root" "B1 root to root"
has "$T/out" "$W/r2/to-r: leads back to a skill root" "B1 root to root"
has "$T/out" "$W/r/knot: symbolic link loop" "B1 self-loop"
has "$T/out" "$W/r/dangling: dangling symbolic link" "B2 dangling"
has "$T/out" "$W/r/a-alias: same folder as $W/r/good" "B1 alias"
has "$T/out" "differ only in letter case" "B8 case collision"

# B1: the root itself may be a symbolic link
ln -s r rlink
run list --root rlink
has "$T/out" "good" "a linked root is followed"

# NFKC: a fullwidth folder naming itself "ｆｏｏ" collides with ASCII foo
fw=$(printf '\357\275\206\357\275\217\357\275\217')
mkdir -p n/"$fw"
printf -- '---\nname: %s\ndescription: Fullwidth.\n---\n' "$fw" >n/"$fw"/SKILL.md
skill n foo "ASCII."
run list --all --root n
grep -q '^foo  *root  *ASCII\.$' "$T/out" && reg_pass ||
	reg_fail "NFKC: the ASCII spelling is kept"
has "$T/out" "NFKC collision" "NFKC: the other is skipped"
run doctor --root n
has "$T/out" "[nfkc-collision]" "NFKC collision reported"

# a terminal gets no raw escapes, descriptions are cut to its width, and
# colour appears (only on a TTY, never with NO_COLOR)
mkdir -p t/esc
printf -- '---\nname: esc\ndescription: "evil \\e]52;c;aGk=\\a and \\e[2J and a long tail of words that goes on and on past any terminal width for sure"\n---\n' \
	>t/esc/SKILL.md
if command -v script >/dev/null 2>&1; then
	script -q -e -c "stty cols 60 2>/dev/null; $SKIT list --root $W/t" \
		"$T/tty" >"$T/out" 2>&1 </dev/null
	tr -d '\r' <"$T/out" >"$T/tty-out"
	lacks "$T/tty-out" "$(printf '\033]52')" "no OSC 52 on a terminal"
	lacks "$T/tty-out" "$(printf '\033[2J')" "no screen clear on a terminal"
	has "$T/tty-out" "$(printf '\342\200\246')" "cut with an ellipsis on a TTY"
	has "$T/tty-out" "$(printf '\033[1m')" "colour on a TTY"
	NO_COLOR=1 script -q -e -c "$SKIT list --root $W/t" "$T/tty" \
		>"$T/out" 2>&1 </dev/null
	lacks "$T/out" "$(printf '\033[1m')" "NO_COLOR: no colour"
	unset NO_COLOR
else
	echo "note: script(1) missing; the terminal checks are skipped"
fi

reg_done
