#!/bin/sh
# SPDX-License-Identifier: MIT
# to_prompt_cache.sh - `skit to-prompt DIR...` and the index cache of the
# folders' parent (written by `skit list --root PARENT`): the output, in
# every format and under a budget, is byte-identical with the cache off,
# cold and warm; a SKILL.md edited after a warm run (same size) changes
# the next run's output; a corrupt cache changes nothing; to-prompt writes
# no cache itself. XDG_CACHE_HOME points into the test folder.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1
XDG_CACHE_HOME=$W/cache
export XDG_CACHE_HOME
unset SKIT_NO_CACHE

for i in 1 2 3 4 5 6 7 8; do
	skill p "s$i" "Skill number $i, <b>&amp; \"quoted\"."
done
# a fullwidth name (printed as written), an unknown field, a mismatch
skill p wide "Fullwidth name." "$(printf '\357\275\227\357\275\211\357\275\204\357\275\205')"
mkdir -p p/extra
printf -- '---\nname: extra\ndescription: Unknown field.\ncolour: blue\n---\n' \
	>p/extra/SKILL.md
skill p mismatch "Name differs from its folder." other
# old mtimes: files written in the last seconds are never cached
find p -name SKILL.md -exec touch -d '2020-01-01 00:00:00' {} +

# every output of one run of the fixtures into $T/$1.*
outputs() {
	for f in xml markdown json; do
		timeout 60 "$SKIT" to-prompt --format $f p/* >"$T/$1.$f" 2>&1 ||
			reg_fail "$1: to-prompt --format $f exited $?"
	done
	timeout 60 "$SKIT" to-prompt --budget 300 p/* >"$T/$1.budget" 2>&1 ||
		reg_fail "$1: to-prompt --budget exited $?"
}

# same A B DESCRIPTION: every output of run A equals run B's
same() {
	for f in xml markdown json budget; do
		if cmp -s "$T/$1.$f" "$T/$2.$f"; then
			reg_pass
		else
			reg_fail "$3: $f output differs"
			diff "$T/$2.$f" "$T/$1.$f" | head -n 10
		fi
	done
}

SKIT_NO_CACHE=1 outputs nocache
has "$T/nocache.xml" 'ｗｉｄｅ' "raw fullwidth name"
has "$T/nocache.xml" '&lt;b&gt;&amp;amp;' "escaped description"

# one folder of eleven: the parent is not scanned for it, no cache
run to-prompt p/s1
expect_rc 0 "one folder"
[ -e "$XDG_CACHE_HOME" ] && reg_fail "one folder wrote a cache" || reg_pass

outputs cold
same cold nocache "cold cache"
n=$(ls "$XDG_CACHE_HOME/skit" 2>/dev/null | grep -c '^index-.*\.bin$')
[ "$n" -eq 1 ] && reg_pass || reg_fail "to-prompt kept $n cache files, expected 1"

# the parent's cache as `skit list` keeps it for a root: nothing to rewrite
before=$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/skit")
run list --json --root p
expect_rc 0 "list --root p"
after=$(ls -l --time-style=+%s.%N "$XDG_CACHE_HOME/skit")
[ "$before" = "$after" ] && reg_pass || reg_fail "list rewrote to-prompt's cache"
outputs warm
same warm nocache "warm cache"
# also by absolute paths and through a SKILL.md argument
run to-prompt "$W"/p/s1 p/s2/SKILL.md ./p/s3
expect_rc 0 "mixed arguments"
SKIT_NO_CACHE=1 timeout 60 "$SKIT" to-prompt "$W"/p/s1 p/s2/SKILL.md ./p/s3 \
	>"$T/mixed" 2>&1
cmp -s "$T/out" "$T/mixed" && reg_pass || reg_fail "mixed arguments differ"

# an edit after the warm run, same size, new mtime: seen at once
skill p s3 "Skill NUMBER 3, <b>&amp; \"quoted\"."
touch -d '2021-01-01 00:00:00' p/s3/SKILL.md
outputs edited
has "$T/edited.xml" 'Skill NUMBER 3' "edited SKILL.md picked up (xml)"
has "$T/edited.json" 'Skill NUMBER 3' "edited SKILL.md picked up (json)"
SKIT_NO_CACHE=1 outputs nocache2
same edited nocache2 "after an edit"
# and a deleted SKILL.md is an error again, not a cached skill
mv p/s5/SKILL.md p/s5/gone.md
run to-prompt p/s4 p/s5
expect_rc 1 "deleted SKILL.md"
has "$T/err" "SKILL.md not found" "deleted SKILL.md reported"
mv p/s5/gone.md p/s5/SKILL.md
touch -d '2020-01-01 00:00:00' p/s5/SKILL.md

# a corrupt cache is ignored
for f in "$XDG_CACHE_HOME"/skit/index-*.bin; do
	printf 'SKITIDX1 garbage' >"$f"
done
outputs corrupt
same corrupt nocache2 "corrupt cache"

reg_done
