#!/bin/sh
# SPDX-License-Identifier: MIT
# registry_cache.sh - the on-disk index cache through `skit list --json`:
# where it is written and with which modes, warm output byte-identical to
# an uncached run, changes picked up, a corrupt or planted cache ignored,
# SKIT_NO_CACHE=1. XDG_CACHE_HOME points into the test folder.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1
XDG_CACHE_HOME=$W/cache
export XDG_CACHE_HOME
unset SKIT_NO_CACHE

for i in 1 2 3 4 5 6 7 8; do
	skill p "s$i" "Skill number $i."
done
skill u s1 "User copy."
mkdir -p p/broken
printf -- '---\nname: broken\n---\n' >p/broken/SKILL.md
# old mtimes: files written in the last seconds are never cached
find p u -name SKILL.md -exec touch -d '2020-01-01 00:00:00' {} +

# same: OUTPUT DESCRIPTION - $T/out equals the uncached listing
same() {
	if cmp -s "$T/out" "$T/nocache"; then
		reg_pass
	else
		reg_fail "$1: output differs from the uncached scan"
		diff "$T/nocache" "$T/out" | head -n 10
	fi
}

nocache() {
	SKIT_NO_CACHE=1 timeout 60 "$SKIT" list --all --json --root p --root u \
		>"$T/nocache" 2>&1
}

nocache
if [ -e "$XDG_CACHE_HOME" ]; then
	reg_fail "SKIT_NO_CACHE=1 wrote a cache"
else
	reg_pass
fi

run list --all --json --root p --root u
expect_rc 0 "cold list"
same "cold list"
# one file for the list of roots, not one per root
n=$(ls "$XDG_CACHE_HOME/skit" | grep -c '^index-.*\.bin$')
[ "$n" -eq 1 ] && reg_pass || reg_fail "cold list: $n cache files, expected 1"
perm=$(stat -c %a "$XDG_CACHE_HOME/skit")
[ "$perm" = 700 ] && reg_pass || reg_fail "cache folder mode $perm"
for f in "$XDG_CACHE_HOME"/skit/index-*.bin; do
	perm=$(stat -c %a "$f")
	[ "$perm" = 600 ] && reg_pass || reg_fail "cache file mode $perm"
done

# no temporary file is left behind
n=$(ls -a "$XDG_CACHE_HOME/skit" | grep -c 'tmp')
[ "$n" -eq 0 ] && reg_pass || reg_fail "cold list left $n temporary files"

# warm: byte-identical, and the cache is not rewritten
before=$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/skit")
run list --all --json --root p --root u
expect_rc 0 "warm list"
same "warm list"
after=$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/skit")
[ "$before" = "$after" ] && reg_pass || reg_fail "warm list rewrote the cache"

# a change is picked up: same size, new mtime
skill p s3 "Skill Number 3."
touch -d '2021-01-01 00:00:00' p/s3/SKILL.md
rm -rf p/s5
skill p s9 "Skill number 9."
nocache
run list --all --json --root p --root u
same "after changes"
has "$T/out" "Skill Number 3." "same-size change picked up"
lacks "$T/out" '"s5"' "deleted skill gone"
has "$T/out" '"s9"' "new skill listed"

# another list of roots has its own file, and both stay valid
SKIT_NO_CACHE=1 timeout 60 "$SKIT" list --all --json --root u >"$T/nocache.u" 2>&1
run list --all --json --root u
cmp -s "$T/out" "$T/nocache.u" && reg_pass || reg_fail "--root u: output differs"
n=$(ls "$XDG_CACHE_HOME/skit" | grep -c '^index-.*\.bin$')
[ "$n" -eq 2 ] && reg_pass || reg_fail "two lists of roots: $n cache files"
before=$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/skit")
run list --all --json --root p --root u
same "back to p and u"
after=$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/skit")
[ "$before" = "$after" ] && reg_pass || reg_fail "p and u cache was rewritten"

# corrupt, planted, foreign-mode: ignored
for f in "$XDG_CACHE_HOME"/skit/index-*.bin; do
	head -c 100 "$f" >"$f.x" && mv "$f.x" "$f"
done
run list --all --json --root p --root u
expect_rc 0 "truncated cache"
same "truncated cache"
for f in "$XDG_CACHE_HOME"/skit/index-*.bin; do
	printf 'SKITIDX1 garbage' >"$f"
done
run list --all --json --root p --root u
same "garbage cache"
run list --all --json --root p --root u
same "rewritten cache"

# the cache names the skit that wrote it: its version, and the program's
# GNU build ID (as readelf reads it) where it has one, so that another build
# of the same version never reads its verdicts (test_registry tests that).
# readelf comes with binutils, which the C toolchain needs.
if ! command -v readelf >/dev/null 2>&1; then
	reg_fail "readelf (binutils) is missing: the writer cannot be checked"
else
	id=$(readelf -n "$SKIT" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	version=$("$SKIT" --version | sed 's/^skit //')
	want=$version${id:++$id}
	found=no
	for f in "$XDG_CACHE_HOME"/skit/index-*.bin; do
		grep -aq -- "$want" "$f" && found=yes
	done
	if [ "$found" = yes ] && [ -n "$version" ]; then
		reg_pass
	else
		reg_fail "the cache does not name its writer '$want'"
	fi
fi

# a cache that cannot be written never fails the scan
rm -rf "$XDG_CACHE_HOME"
printf 'a file\n' >"$XDG_CACHE_HOME"
run list --all --json --root p --root u
expect_rc 0 "unwritable cache"
same "unwritable cache"

reg_done
