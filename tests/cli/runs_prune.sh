#!/bin/sh
# SPDX-License-Identifier: MIT
# runs_prune.sh - the audit trail stays out of version control (a
# .gitignore holding "*" in .agents/runs), and `skit runs prune` removes
# old runs: --older-than, --keep, both, --dry-run, --json, usage errors,
# and never a link's target.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
unset SKIT_RUNS_DIR
P=$W/proj
mkdir -p "$P" "$W/skills"
cd "$P" || exit 1
if command -v git >/dev/null 2>&1; then
	git init -q . && HAVE_GIT=1 || HAVE_GIT=0
else
	HAVE_GIT=0
	mkdir .git
fi
printf '{"text": "DONE"}\n' >"$T/done.jsonl"

# json_n FILE KEY: the length of the list at KEY
json_n() {
	python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2" 2>/dev/null
}

# A run creates .agents/runs with its .gitignore; git status stays clean.
run run --quiet --model "replay:$T/done.jsonl" --root "$W/skills" go
expect_rc 0 "a run in the project"
[ "$(cat "$P/.agents/runs/.gitignore" 2>/dev/null)" = "*" ] && reg_pass ||
	reg_fail ".agents/runs/.gitignore does not hold '*'"
if [ "$HAVE_GIT" = 1 ]; then
	[ -z "$(git status --porcelain)" ] && reg_pass ||
		reg_fail "git status is not clean: $(git status --porcelain)"
fi
# A .gitignore the user wrote is left alone.
printf 'runs-of-mine\n' >"$P/.agents/runs/.gitignore"
run run --quiet --model "replay:$T/done.jsonl" --root "$W/skills" go
has "$P/.agents/runs/.gitignore" "runs-of-mine" "an existing .gitignore is kept"
run runs list --json
has "$T/out" '"status": "ok"' "the runs are listed"
lacks "$T/out" "gitignore" "the .gitignore is no run"

# Three old runs, written by hand; one holds a link out of the trail.
R=$P/.agents/runs
for id in 20200101T000000Z-0000000a 20200102T000000Z-0000000b \
	20200103T000000Z-0000000c; do
	mkdir -p "$R/$id/work/deep"
	printf '{"seq":1,"ts":"2020-01-01T00:00:00.000Z","type":"run_start","task":"old"}\n' \
		>"$R/$id/events.jsonl"
	printf 'x\n' >"$R/$id/work/deep/f"
done
mkdir -p "$W/outside"
printf 'KEEP\n' >"$W/outside/precious"
ln -s "$W/outside" "$R/20200101T000000Z-0000000a/work/link"
mkdir "$R/not-a-run"

run runs prune
expect_rc 2 "prune needs --older-than or --keep"
has "$T/err" "give --older-than D, --keep N or both" "and says so"
run runs prune --older-than 3x
expect_rc 2 "a bad age"
run runs prune --keep -1
expect_rc 2 "a bad count"
run runs prune --help
expect_rc 0 "--help"
has "$T/out" "usage: skit runs prune" "the help names the command"
run runs --help
has "$T/out" "prune" "skit runs --help lists prune"

run runs prune --older-than 30d --dry-run
expect_rc 0 "--dry-run"
has "$T/out" "would remove 20200101T000000Z-0000000a" "dry run names the old runs"
has "$T/out" "Would remove 3 runs, kept 2" "and counts them"
[ -d "$R/20200101T000000Z-0000000a" ] && reg_pass || reg_fail "--dry-run removed a run"

run runs prune --older-than 30d --keep 4 --json
expect_rc 0 "--older-than with --keep"
[ "$(json_n "$T/out" removed)" = 1 ] && reg_pass ||
	reg_fail "expected one removed run: $(cat "$T/out")"
has "$T/out" '"20200101T000000Z-0000000a"' "the oldest goes first"
has "$T/out" '"kept": 4' "four kept"
[ ! -e "$R/20200101T000000Z-0000000a" ] && reg_pass || reg_fail "not removed"
has "$W/outside/precious" "KEEP" "a link's target is never removed"

run runs prune --older-than 30d
expect_rc 0 "--older-than"
has "$T/out" "Removed 2 runs, kept 2" "the other old runs go"
[ -d "$R/not-a-run" ] && reg_pass || reg_fail "a folder that is no run was removed"

run runs prune --keep 1
expect_rc 0 "--keep"
has "$T/out" "Removed 1 run, kept 1" "all but the newest go"
run runs list --json
[ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/out")" = 1 ] &&
	reg_pass || reg_fail "one run should be left"
[ "$(cat "$R/.gitignore")" = "runs-of-mine" ] && reg_pass || reg_fail ".gitignore pruned"
reg_done
