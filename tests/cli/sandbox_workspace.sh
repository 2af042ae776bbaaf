#!/bin/sh
# sandbox_workspace.sh - where programs run and what they may write
# (docs/sandbox.md): the README's example end to end (csv-report writes
# report.md into the project, a shell call reads it back); shell calls in
# the project folder (or a cwd inside it) with HOME and TMPDIR a private
# folder removed at the end unless --keep-temp; the three --sandbox modes;
# sandbox.mode from the user config, never full-access from the project's;
# the mode in doctor and in the audit trail; --disk-cap.
. "$(dirname "$0")/agent_lib.inc"
reg_setup
EX=$SKIT_SOURCE_DIR/examples
SBX=$SKIT_SOURCE_DIR/tests/fixtures/sandbox
TMPDIR=$T/tmp
export TMPDIR
mkdir -p "$TMPDIR"

# project NAME: a project with .git, .agents/ and data.csv; cd into it.
project() {
	P=$W/$1
	mkdir -p "$P/.git" "$P/.agents" "$P/sub" "$W/outside"
	printf '[core]\n' >"$P/.git/config"
	cp "$EX/skills/csv-report/assets/sample.csv" "$P/data.csv"
	cd "$P" || exit 1
}

# The request log is appended to: one per run.
run() {
	rm -f "$T/req.jsonl"
	timeout 60 "$SKIT" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# The README example.
project readme
run run --yes --root "$EX/skills" --model "replay:$EX/cassettes/csv-report.jsonl" \
	--request-log "$T/req.jsonl" "Summarise data.csv"
expect_rc 0 "the README example"
has "$P/report.md" "# CSV report: data.csv" "the script wrote report.md into the project"
has "$P/report.md" "Rows: 12 (not counting the header)" "from data.csv"
has "$T/out" "I wrote the report to \`report.md\`" "the answer reports it"
req 5
has "$T/req5" "# CSV report: data.csv" "the shell call read report.md back"
set -- "$P"/.agents/runs/*/
RUN=${1%/}
has "$RUN/events.jsonl" '"sandbox":"workspace-write"' "the trail records the mode"
has "$RUN/events.jsonl" '"type":"shell_run"' "the shell call is in the trail"
n=$(find "$TMPDIR" -maxdepth 1 -name 'skit-run-*' | wc -l)
[ "$n" -eq 0 ] && reg_pass || reg_fail "the private folder was not removed"

# workspace-write (the default): the project is writable, .git and the
# skill roots are not; HOME and TMPDIR are the private folder; --keep-temp.
project ws
run run --yes --keep-temp --root "$EX/skills" --model "replay:$SBX/workspace.jsonl" \
	--request-log "$T/req.jsonl" go
expect_rc 0 "workspace-write run"
req 2
has "$T/req2" "PWD=$P" "programs run in the project folder"
has "$T/req2" "WROTE-PROJECT" "and may write it"
has "$T/req2" "GIT-PROTECTED" ".git is read-only"
has "$T/req2" "PLANT-REFUSED" "a skill root cannot be created"
lacks "$P/.git/config" "evil" ".git/config is untouched"
[ ! -e "$P/.agents/skills" ] && reg_pass || reg_fail "a placeholder was left behind"
has "$P/made.txt" "made" "the file is in the project"
has "$T/req2" "HOME=$TMPDIR/skit-run-" "HOME is the private folder"
has "$T/req2" "TMPDIR=$TMPDIR/skit-run-" "and so is TMPDIR"
has "$T/err" "(kept: --keep-temp)" "--keep-temp says where the folder is"
set -- "$TMPDIR"/skit-run-*/keep-me
[ -f "$1" ] && reg_pass || reg_fail "--keep-temp kept the private folder"
rm -rf "$TMPDIR"/skit-run-*
req 3
has "$T/req3" "SUBPWD=$P/sub" "cwd runs the call in a folder of the project"
has "$T/req3" "cwd ../outside" "a cwd outside the project is refused"

# read-only: only the private folder is writable.
project ro
run run --yes --sandbox read-only --root "$EX/skills" \
	--model "replay:$SBX/workspace.jsonl" --request-log "$T/req.jsonl" go
expect_rc 0 "read-only run"
req 2
lacks "$T/req2" "WROTE-PROJECT" "read-only: the project is not writable"
has "$T/req2" "WROTE-TMP" "read-only: the private folder is"
[ ! -e "$P/made.txt" ] && reg_pass || reg_fail "read-only wrote the project"
set -- "$P"/.agents/runs/*/
has "$1/events.jsonl" '"sandbox":"read-only"' "the trail records read-only"

# full-access from the flag: no file-system confinement at all.
project fa
run run --yes --sandbox full-access --root "$EX/skills" \
	--model "replay:$SBX/workspace.jsonl" --request-log "$T/req.jsonl" go
expect_rc 0 "full-access run"
req 2
has "$T/req2" "GIT-WRITTEN" "full-access: .git is writable"
has "$P/.git/config" "evil" "full-access wrote .git/config"

# A project's config may not choose full-access; the user's may.
project cfg
printf '{"sandbox": {"mode": "full-access"}}\n' >"$P/.agents/skit.json"
run trust "$P"
run run --yes --root "$EX/skills" --model "replay:$SBX/workspace.jsonl" \
	--request-log "$T/req.jsonl" go
expect_rc 0 "a project asking for full-access"
has "$T/err" "sandbox.mode full-access: ignored" "the project's full-access is refused"
req 2
has "$T/req2" "GIT-PROTECTED" "and .git stays protected"
run doctor
has "$T/out" "the project's config asks for full-access: ignored" "doctor says so"
has "$T/out" "workspace-write" "doctor shows the mode"
mkdir -p "$XDG_CONFIG_HOME/skit"
printf '{"sandbox": {"mode": "read-only", "disk_cap": 268435456}}\n' \
	>"$XDG_CONFIG_HOME/skit/config.json"
run doctor --json
has "$T/out" '"mode": "read-only"' "doctor --json shows the user's mode"
has "$T/out" '"disk_cap": 268435456' "and the disk cap"
rm -f "$P/made.txt"
run run --yes --root "$EX/skills" --model "replay:$SBX/workspace.jsonl" \
	--request-log "$T/req.jsonl" go
req 2
lacks "$T/req2" "WROTE-PROJECT" "the user config's read-only applies"
printf '{"sandbox": {"mode": "sideways"}}\n' >"$XDG_CONFIG_HOME/skit/config.json"
run run --yes --root "$EX/skills" --model "replay:$SBX/workspace.jsonl" go
expect_rc 1 "a bad sandbox.mode"
has "$T/err" "sandbox.mode" "names the key"
rm -f "$XDG_CONFIG_HOME/skit/config.json"

# The disk cap: a loop writing 64 MiB files is stopped at --disk-cap (MiB),
# and the task's cap, used up, refuses the next call.
project cap
run run --yes --disk-cap 64 --root "$EX/skills" \
	--model "replay:$SBX/diskcap.jsonl" --request-log "$T/req.jsonl" go
expect_rc 0 "a run stopped at the disk cap"
req 2
has "$T/req2" "stopped: the program added more than 64 MiB to the disk" \
	"the model is told why the program stopped"
req 3
has "$T/req3" "refused: this task's programs already added 64 MiB" \
	"the task's cap refuses the next program"
lacks "$T/req3" "AFTER-CAP" "which does not run"
set -- "$P"/.agents/runs/*/
has "$1/events.jsonl" '"disk_capped":true' "the trail records the stop"
rm -f "$P"/big*

# Usage errors.
run run --sandbox sideways go
expect_rc 2 "--sandbox with a bad mode"
has "$T/err" "--sandbox expects read-only, workspace-write or full-access" "says which"
run run --disk-cap 0 go
expect_rc 2 "--disk-cap 0"
run run --help
has "$T/out" "--sandbox MODE" "--help lists --sandbox"
has "$T/out" "--keep-temp" "and --keep-temp"

reg_done
