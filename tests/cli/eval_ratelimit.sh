#!/bin/sh
# eval_ratelimit.sh - `skit eval --rpm/--tpm` against an OpenAI-compatible
# server on 127.0.0.1 (tests/support/openai_stub.py), which records when
# each request arrived: with --rpm every --jobs worker shares one pace,
# and a 429 with retry-after holds back all of them, not only the worker
# that got it. The assertions are bounds that a slow machine can only
# make easier to meet (it spreads requests out, never bunches them).
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"

reg_setup
if ! command -v python3 >/dev/null 2>&1; then
	echo "eval_ratelimit: python3 not found; skipped"
	reg_done
fi
SKIT_RUNS_DIR=$W/audit
export SKIT_RUNS_DIR

# stub NAME ANSWER...: start a server answering these, in order.
stub() {
	name=$1
	shift
	mkdir -p "$W/$name"
	printf '%s\n' "$@" >"$W/$name/answers.jsonl"
	python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" \
		"$W/$name/answers.jsonl" "$W/$name/port" "$T/$name.log" \
		"$W/$name" &
	stub_pid=$!
	n=0
	# at most 60 s: a loaded machine may be slow to start python (the
	# port file is written whole, by a rename)
	while [ ! -f "$W/$name/port" ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	OPENAI_BASE_URL="http://127.0.0.1:$(cat "$W/$name/port")/v1"
	OPENAI_API_KEY=sk-stub
	export OPENAI_BASE_URL OPENAI_API_KEY
}

stub_stop() {
	kill "$stub_pid" 2>/dev/null
	wait "$stub_pid" 2>/dev/null
	unset OPENAI_BASE_URL OPENAI_API_KEY
}

# case TRIALS: a case of TRIALS trials, one model call each.
mkdir -p "$W/suite"
# The user's own suite: its folder is trusted (docs/evals.md).
run trust "$W/suite"
expect_rc 0 "trust the suite's folder"
printf '%s\n' 'input: Say hello' 'skills:' \
	"  - $SKIT_SOURCE_DIR/examples/skills" 'trials: 8' 'expected:' \
	'  output:' '    contains: hello' >"$W/suite/hello.yaml"
hello='{"content": "hello", "usage": {"input_tokens": 10, "output_tokens": 2}}'

# --rpm 120: two at once, then one every half second, whatever --jobs.
stub rpm "$hello" "$hello" "$hello" "$hello" "$hello" "$hello" "$hello" \
	"$hello"
run eval --model openai:gpt-stub --jobs 4 --rpm 120 "$W/suite"
stub_stop
expect_rc 0 "--rpm: every trial passes"
python3 - "$W/rpm" >"$T/rpm.txt" <<'PY'
import glob, json, sys
t = sorted(json.load(open(f))["time"] for f in glob.glob(sys.argv[1] + "/0*.json"))
print("requests", len(t))
print("span %.2f" % (t[-1] - t[0]))
# At most 2 at once plus 2 a second: in any window of 1 s, at most 4
# start; requests that start later can only arrive later.
print("spread", "ok" if t[-1] - t[0] >= 2.0 else "bunched")
PY
has "$T/rpm.txt" "requests 8" "--rpm: eight requests"
has "$T/rpm.txt" "spread ok" "--rpm: 8 requests at 120 a minute take 3 s, not less than 2"

# A 429 with retry-after: 2 to the first request: no worker sends during
# the pause. Only requests already under way when the 429 came back (one
# per other worker, at most 3) may arrive in the window.
stub pause '{"status": 429, "retry_after": 2}' "$hello" "$hello" "$hello" \
	"$hello" "$hello" "$hello" "$hello" "$hello"
run eval --model openai:gpt-stub --jobs 4 "$W/suite"
stub_stop
expect_rc 0 "429: every trial passes after the pause"
python3 - "$W/pause" >"$T/pause.txt" <<'PY'
import glob, json, sys
recs = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/0*.json"))]
print("requests", len(recs))
t429 = [r["time"] for r in recs if r["status"] == 429]
print("429s", len(t429))
inside = [r for r in recs if t429 and t429[0] < r["time"] < t429[0] + 2.0]
after = [r for r in recs if t429 and r["time"] >= t429[0] + 2.0]
print("inside", "ok" if len(inside) <= 3 else "too many: %d" % len(inside))
print("after", len(after) >= 1 and "ok")
PY
has "$T/pause.txt" "requests 9" "429: eight trials and one retry"
has "$T/pause.txt" "429s 1" "429: the server said 429 once"
has "$T/pause.txt" "inside ok" "429: the other workers waited for the pause"
has "$T/pause.txt" "after ok" "429: the work went on after the pause"

# --tpm: a request that cost 40 tokens, at 600 a minute (10 a second,
# one second's worth at once), holds the next back for 3 s.
big='{"content": "hello", "usage": {"input_tokens": 35, "output_tokens": 5}}'
printf '%s\n' 'input: Say hello' 'skills:' \
	"  - $SKIT_SOURCE_DIR/examples/skills" 'trials: 2' 'expected:' \
	'  output:' '    contains: hello' >"$W/suite/hello.yaml"
stub tpm "$big" "$big"
run eval --model openai:gpt-stub --jobs 2 --tpm 600 "$W/suite"
stub_stop
expect_rc 0 "--tpm: both trials pass"
python3 - "$W/tpm" >"$T/tpm.txt" <<'PY'
import glob, json, sys
t = sorted(json.load(open(f))["time"] for f in glob.glob(sys.argv[1] + "/0*.json"))
print("spread", "ok" if len(t) == 2 and t[1] - t[0] >= 1.5 else t)
PY
has "$T/tpm.txt" "spread ok" "--tpm: the second request waited for tokens"

# Usage errors.
run eval --rpm 0 "$W/suite"
expect_rc 2 "--rpm 0"
run eval --tpm x "$W/suite"
expect_rc 2 "--tpm x"
has "$T/err" "--tpm is a whole number" "the --tpm error says what is expected"

reg_done
