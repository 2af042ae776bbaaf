#!/bin/sh
# SPDX-License-Identifier: MIT
# to_prompt_many.sh - `skit to-prompt DIR...` with many folders of one
# parent, which the CLI checks with one listing of the parent instead of an
# lstat() each: the output is byte-identical to the same folders named so
# that no run of them shares a parent (each checked on its own), a linked
# folder is still resolved to its target, a name given twice is printed
# twice, and a missing folder is still a usage error naming it.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1
XDG_CACHE_HOME=$W/cache
export XDG_CACHE_HOME

i=10
while [ $i -lt 50 ]; do
	skill p "s$i" "Skill number $i."
	i=$((i + 1))
done
skill q real "Reached through a link."
ln -s ../q/real p/link
printf 'not a folder\n' >p/notes.txt

# the run: every folder as p/NAME (one parent), a link, a name twice
set -- p/s1? p/s2? p/link p/s3? p/s4? p/s10
listed="$*"
# the same folders, alternately as p/NAME and $W/p/NAME: no run of 32
alt=""
k=0
for a in "$@"; do
	k=$((k + 1))
	if [ $((k % 2)) -eq 0 ]; then alt="$alt $W/$a"; else alt="$alt $a"; fi
done

for f in xml markdown json; do
	# shellcheck disable=SC2086
	timeout 60 "$SKIT" to-prompt --format $f $listed >"$T/listed.$f" 2>&1 ||
		reg_fail "listed $f: exit $?"
	# shellcheck disable=SC2086
	timeout 60 "$SKIT" to-prompt --format $f $alt >"$T/alt.$f" 2>&1 ||
		reg_fail "one by one $f: exit $?"
	if cmp -s "$T/listed.$f" "$T/alt.$f"; then
		reg_pass
	else
		reg_fail "$f: the listed run differs from the checked one"
		diff "$T/alt.$f" "$T/listed.$f" | head -n 10
	fi
done
if grep -qx "$W/q/real/SKILL.md" "$T/listed.xml"; then
	reg_pass
else
	reg_fail "the linked folder is not resolved to its target"
fi
n=$(grep -cx 's10' "$T/listed.xml")
[ "$n" -eq 2 ] && reg_pass || reg_fail "s10 given twice printed $n times"
n=$(grep -c '<skill>' "$T/listed.xml")
[ "$n" -eq 42 ] && reg_pass || reg_fail "$n skills printed, expected 42"

# a missing folder in the run: exit 2, named as written
# shellcheck disable=SC2086
run to-prompt $listed p/missing
expect_rc 2 "missing folder in a run"
if grep -q "Path 'p/missing' does not exist" "$T/err"; then
	reg_pass
else
	reg_fail "missing folder not named: $(cat "$T/err")"
fi
# a file in the run: as before, not a skill folder (exit 1, named)
# shellcheck disable=SC2086
run to-prompt $listed p/notes.txt
expect_rc 1 "a file in a run"
grep -q "p/notes.txt" "$T/err" && reg_pass ||
	reg_fail "the file is not named: $(cat "$T/err")"

reg_done
