#!/bin/sh
# newcomer_doctor.sh - `skit doctor`'s last line agrees with what it
# listed (issue 35, point 9), on a user's path: a project made with `git
# init`, HOME a scratch folder, no --root, no terminal. Skills that loaded
# with warnings are not problems unless --strict, and the verdict says how
# many there are instead of seeming to forget them.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
P=$W/proj
mkdir -p "$P" && cd "$P" && git init -q . || exit 1
R=.agents/skills
skill "$R" good "Good skill. Use when testing."
# Three that load with warnings (flow YAML, an unquoted ': ').
for n in flow-a flow-b; do
	mkdir -p "$R/$n"
	printf -- '---\nname: %s\ndescription: Flow. Use it.\nmetadata: {a: b}\n---\nBody.\n' \
		"$n" >"$R/$n/SKILL.md"
done
mkdir -p "$R/colon"
printf -- '---\nname: colon\ndescription: Does this: and that. Use it.\n---\nBody.\n' \
	>"$R/colon/SKILL.md"
# Two that cannot load (no description): errors.
for n in broken-a broken-b; do
	mkdir -p "$R/$n"
	printf -- '---\nname: %s\n---\nBody.\n' "$n" >"$R/$n/SKILL.md"
done
skit_trust() { "$SKIT" trust >/dev/null 2>&1 </dev/null; }
skit_trust

run doctor </dev/null
expect_rc 1 "doctor with skipped skills"
# the skills listed under "Loaded with warnings:"
listed=$(awk '/^Loaded with warnings:/ { on = 1; next }
	on && /^  [^ ]/ { n++; next }
	on && !/^    / { on = 0 }
	END { print n + 0 }' "$T/out")
[ "$listed" = 3 ] && reg_pass || reg_fail "doctor listed $listed skills with warnings, expected 3"
last=$(tail -n 1 "$T/out")
case $last in
"2 problems found: 2 errors, 0 warnings; 3 skills loaded with warnings"*) reg_pass ;;
*) reg_fail "doctor's verdict contradicts its listing: $last" ;;
esac
run doctor --strict </dev/null
expect_rc 1 "doctor --strict"
last=$(tail -n 1 "$T/out")
case $last in
"5 problems found: 2 errors, 3 warnings (3 of them in 3 skills loaded with warnings)."*) reg_pass ;;
*) reg_fail "doctor --strict's verdict: $last" ;;
esac

# Without the broken ones: no problems, and still the count of warned skills.
rm -rf "$R/broken-a" "$R/broken-b"
run doctor </dev/null
expect_rc 0 "doctor with warnings only"
last=$(tail -n 1 "$T/out")
case $last in
"No problems found; 3 skills loaded with warnings (listed above; --strict counts them).") reg_pass ;;
*) reg_fail "doctor's verdict with warnings only: $last" ;;
esac
reg_done
