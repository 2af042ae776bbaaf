#!/bin/sh
# SPDX-License-Identifier: MIT
# runs_cli.sh - `skit runs list` and `skit runs show` over run folders
# written by hand: a complete run (every event type), an incomplete one
# with a torn last line, escape sequences in untrusted text, --json, ID
# forms, the default runs folder, and the exit statuses.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1
unset SKIT_RUNS_DIR

ESC=$(printf '\033')
A=20260101T090000Z-1a2b3c4d
B=20260102T093000Z-5e6f7a8b
mkdir -p runs/$A runs/$B runs/notes

# run A: complete; its task carries an escape sequence and a newline
cat >runs/$A/events.jsonl <<'EOF'
{"seq":1,"ts":"2026-01-01T09:00:00.010Z","type":"run_start","task":"Fill the \u001b[31mform\nnow","model":"replay:demo","provider":"replay","skills_indexed":3,"index_chars":900,"index_cut":false,"tools":["use_skill"]}
{"seq":2,"ts":"2026-01-01T09:00:00.020Z","type":"model_request","turn":1,"messages":2,"tools":4,"chars":1500}
{"seq":3,"ts":"2026-01-01T09:00:00.500Z","type":"model_response","turn":1,"stop_reason":"tool_use","tool_calls":1,"text_chars":0,"usage":{"input_tokens":400,"output_tokens":30}}
{"seq":4,"ts":"2026-01-01T09:00:00.510Z","type":"tool_call","turn":1,"id":"call_1","name":"use_skill","arguments":{"name":"pdf"}}
{"seq":5,"ts":"2026-01-01T09:00:00.520Z","type":"skill_activated","skill":"pdf","source":"project","trigger":"model","arguments":""}
{"seq":6,"ts":"2026-01-01T09:00:00.530Z","type":"tool_result","id":"call_1","name":"use_skill","ok":true,"chars":2345}
{"seq":7,"ts":"2026-01-01T09:00:00.600Z","type":"resource_read","skill":"pdf","path":"references/forms.md","offset":0,"bytes":1200,"truncated":false}
{"seq":8,"ts":"2026-01-01T09:00:00.700Z","type":"approval","tool":"run_skill_script","skill":"pdf","arguments":{"path":"scripts/fill.py"},"decision":"allow","by":"flag"}
{"seq":9,"ts":"2026-01-01T09:00:00.800Z","type":"script_run","skill":"pdf","path":"scripts/fill.py","args":["in.pdf"],"exit_code":3,"signal":0,"timed_out":false,"duration_ms":12,"stdout_sha256":"ab","stderr_sha256":"cd","stdout_bytes":340,"stderr_bytes":0,"truncated":false}
{"seq":10,"ts":"2026-01-01T09:00:00.900Z","type":"plan_updated","steps":[{"step":"read the form","status":"completed"},{"step":"fill it","status":"in_progress"}]}
{"seq":11,"ts":"2026-01-01T09:00:01.000Z","type":"error","code":"EPROVIDER","message":"rate limited \u001b]0;pwned\u0007"}
{"seq":12,"ts":"2026-01-01T09:00:02.000Z","type":"custom_thing","x":1}
{"seq":13,"ts":"2026-01-01T09:00:03.000Z","type":"run_end","status":"ok","turns":2}
EOF
cat >runs/$A/run.json <<'EOF'
{
  "id": "20260101T090000Z-1a2b3c4d",
  "dir": "/elsewhere",
  "started": "2026-01-01T09:00:00.000Z",
  "ended": "2026-01-01T09:00:03.100Z",
  "events": 13,
  "task": "Fill the \u001b[31mform\nnow",
  "model": "replay:demo",
  "status": "ok",
  "exit": 0,
  "turns": 2,
  "tool_calls": 1,
  "script_runs": 1,
  "usage": {"input_tokens": 1400, "output_tokens": 230},
  "skills_activated": ["pdf"]
}
EOF
# run B: killed mid-write: no run.json, a torn last line
printf '%s\n%s\n%s' \
	'{"seq":1,"ts":"2026-01-02T09:30:00.250Z","type":"run_start","task":"Second task","model":"openai:gpt-x"}' \
	'{"seq":2,"ts":"2026-01-02T09:30:01.000Z","type":"model_response","turn":1,"usage":{"input_tokens":50,"output_tokens":7}}' \
	'{"seq":3,"ts":"2026-01-02T09:30:01.5' >runs/$B/events.jsonl

# help
run runs --help
expect_rc 0 "runs --help"
has "$T/out" "usage: skit runs" "runs --help"
run runs list --help
expect_rc 0 "runs list --help"
has "$T/out" "--runs-dir" "runs list --help"
run runs show --help
expect_rc 0 "runs show --help"
has "$T/out" "usage: skit runs show ID" "runs show --help"
run --help
has "$T/out" "runs" "skit --help lists runs"

# list: header, newest first, one line a run
run runs list --runs-dir runs
expect_rc 0 "runs list"
lines "$T/out" 3 "runs list: header and two runs"
head -n 1 "$T/out" | grep -q '^ID  *STARTED' && reg_pass ||
	reg_fail "runs list: header first"
sed -n 2p "$T/out" | grep -q "^$B  2026-01-02 09:30:00  incomplete  *1  *50/7  *openai:gpt-x  *Second task\$" &&
	reg_pass || reg_fail "runs list: incomplete run B first"
sed -n 3p "$T/out" | grep -q "^$A  2026-01-01 09:00:00  ok  *2  *1400/230  *replay:demo  *Fill the .*\\[31mform now\$" &&
	reg_pass || reg_fail "runs list: run A, task on one line"
lacks "$T/out" "$ESC" "runs list: no raw escape from the task"
lacks "$T/out" "notes" "runs list: other folders ignored"

# no subcommand = list; SKIT_RUNS_DIR
SKIT_RUNS_DIR=$W/runs run runs
expect_rc 0 "runs (no subcommand)"
lines "$T/out" 3 "runs with SKIT_RUNS_DIR"
run runs list --runs-dir runs -n 1
lines "$T/out" 2 "runs list -n 1"
run runs list --runs-dir runs -n 0
expect_rc 2 "runs list -n 0"

# default: <project>/.agents/runs, found from a subfolder
mkdir -p proj/.git proj/sub proj/.agents/runs
cp -R runs/$A proj/.agents/runs/
cd proj/sub || exit 1
run runs list
cd "$W" || exit 1
expect_rc 0 "runs list in a project"
has "$T/out" "$A" "runs list finds <project>/.agents/runs"

# --json
run runs list --json --runs-dir runs
expect_rc 0 "runs list --json"
json_ok "$T/out" "runs list --json"
has "$T/out" '"status": "incomplete"' "runs list --json status"
has "$T/out" '"input_tokens": 1400' "runs list --json tokens"
has "$T/out" '"ended": null' "runs list --json: no end for B"

# no runs
mkdir -p empty
run runs list --runs-dir empty
expect_rc 0 "runs list, no runs"
has "$T/err" "No runs in" "runs list, no runs: a note"
lines "$T/out" 0 "runs list, no runs: nothing on stdout"
run runs list --json --runs-dir empty
expect_rc 0 "runs list --json, no runs"
has "$T/out" "[]" "runs list --json, no runs"
# a --runs-dir that does not exist is a mistyped path, as --root is
run runs list --json --runs-dir missing
expect_rc 2 "runs list --runs-dir missing"
has "$T/err" "missing" "runs list --runs-dir missing: named"

# show: header, one line per event, the torn note
run runs show $A --runs-dir runs
expect_rc 0 "runs show full id"
has "$T/out" "Status    ok" "show: status"
has "$T/out" "Tokens    1400 in, 230 out" "show: tokens"
has "$T/out" "09:00:00.520  skill_activated  pdf by model (project)" "show: activation"
has "$T/out" "pdf references/forms.md: 1200 bytes" "show: resource read"
has "$T/out" "pdf scripts/fill.py [\"in.pdf\"]: exit 3, 12 ms" "show: script run"
has "$T/out" "use_skill [call_1] {\"name\":\"pdf\"}" "show: tool call"
has "$T/out" "use_skill ok, 2345 chars" "show: tool result"
has "$T/out" "run_skill_script (pdf): allow by flag" "show: approval"
has "$T/out" "turn 1: tool_use, 1 tool calls, 0 chars, tokens 400/30" "show: usage"
has "$T/out" "2 steps: [completed] read the form; [in_progress] fill it" "show: plan"
has "$T/out" "EPROVIDER: rate limited" "show: error"
has "$T/out" "custom_thing     x=1" "show: unknown type"
lines "$T/out" 23 "show: 10 header lines, 13 events"
lacks "$T/out" "$ESC" "show: no raw escape"
lacks "$T/out" "$(printf '\007')" "show: no raw BEL"
lacks "$T/out" "torn" "show: no torn lines in A"

run runs show 5e6f7a8b --runs-dir runs
expect_rc 0 "runs show by 8-hex id"
has "$T/out" "Status    incomplete" "show B: incomplete"
has "$T/out" "Ended     -" "show B: no end"
has "$T/out" "1 torn line(s) skipped" "show B: torn note"
run runs show 20260102 --runs-dir runs
expect_rc 0 "runs show by prefix"
has "$T/out" "$B" "runs show by prefix"
run runs show last --runs-dir runs
has "$T/out" "Run       $B" "runs show last"

run runs show $B --json --runs-dir runs
expect_rc 0 "runs show --json"
json_ok "$T/out" "runs show --json"
has "$T/out" '"torn_lines": 1' "show --json torn"
has "$T/out" '"status": "incomplete"' "show --json: info record for B"
run runs show $A --json --runs-dir runs
json_ok "$T/out" "runs show --json A"
has "$T/out" '"script_runs": 1' "show --json: run.json as written"
has "$T/out" '"type": "run_end"' "show --json: events"

# errors
run runs show nope --runs-dir runs
expect_rc 2 "runs show unknown id"
lines "$T/err" 1 "runs show unknown id: one line"
has "$T/err" "no run 'nope'" "runs show unknown id"
run runs show 2026 --runs-dir runs
expect_rc 2 "runs show ambiguous"
has "$T/err" "ambiguous" "runs show ambiguous"
run runs show --runs-dir runs
expect_rc 2 "runs show without ID"
run runs show a b --runs-dir runs
expect_rc 2 "runs show with two IDs"
run runs list --bogus
expect_rc 2 "runs list unknown option"
run runs frobnicate
expect_rc 2 "runs unknown subcommand"

reg_done
