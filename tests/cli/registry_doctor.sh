#!/bin/sh
# SPDX-License-Identifier: MIT
# registry_doctor.sh - `skit doctor`: roots, counts, shadowed and skipped
# skills, scan findings, index size; exit 0 when clean, 1 with findings.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

skill p pdf "Project PDF."
skill u pdf "User PDF."
skill u alpha

run doctor --help
expect_rc 0 "doctor --help"
has "$T/out" "usage: skit doctor" "doctor --help"
run doctor extra
expect_rc 2 "doctor with an argument"

# clean: exit 0
run doctor --root project=p --root user=u --root builtin=nowhere
expect_rc 0 "doctor, nothing wrong"
has "$T/out" "Roots (highest precedence first):" "doctor roots heading"
grep -q "^  project  $W/p  *1 skill\$" "$T/out" && reg_pass ||
	reg_fail "doctor: project root line"
grep -q "^  user  *$W/u  *1 skill (1 shadowed, 0 skipped)\$" "$T/out" &&
	reg_pass || reg_fail "doctor: user root line"
grep -q "^  builtin  *$W/nowhere  *missing\$" "$T/out" && reg_pass ||
	reg_fail "doctor: a missing root"
has "$T/out" "Skills: 2 active, 1 shadowed, 0 skipped" "doctor counts"
has "$T/out" "shadowed by project $W/p/pdf" "doctor names the winner"
has "$T/out" "default budget 32000 characters: fits" "doctor index size"
has "$T/out" "No problems found." "doctor verdict"
has "$T/out" "not searched (roots given with --root)" "doctor project line"

# findings: a skipped skill and a link loop make exit 1
mkdir -p p/broken
printf -- '---\nname: broken\n---\n' >p/broken/SKILL.md
ln -s .. p/loop
run doctor --root project=p --root user=u
expect_rc 1 "doctor with findings"
has "$T/out" "Skipped (not loaded):" "doctor skipped heading"
has "$T/out" "Missing required field in frontmatter: description" \
	"doctor skipped reason"
has "$T/out" "Scan findings:" "doctor findings heading"
has "$T/out" "$W/p/loop: leads back to a skill root" "doctor loop finding"
has "$T/out" "[symlink-loop]" "doctor finding code"
has "$T/out" "2 problems found: 1 error, 1 warning." "doctor verdict with findings"

run doctor --json --root project=p --root user=u
expect_rc 1 "doctor --json with findings"
json_ok "$T/out" "doctor --json"
has "$T/out" '"code": "symlink-loop"' "doctor --json diagnostics"
has "$T/out" '"winner_source": "project"' "doctor --json shadowed"
has "$T/out" '"budget": 32000' "doctor --json index"
has "$T/out" '"findings": 2' "doctor --json findings"

# over budget: many skills with long descriptions
long=$(printf 'lorem ipsum dolor sit amet %.0s' $(seq 1 30))
i=0
while [ $i -lt 60 ]; do
	skill big "s$i" "$long"
	i=$((i + 1))
done
run doctor --root big
expect_rc 0 "doctor over budget is not a failure"
has "$T/out" "over; " "doctor: index over the budget"
has "$T/out" "search_skills finds them" "doctor: what happens when over"

reg_done
