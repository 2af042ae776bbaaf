#!/bin/sh
# eval_recipes.sh - the `skit` commands of the two recipes of
# docs/evals.md (a Kubernetes Indexed Job, a GitHub Actions matrix), taken
# from the doc as written and run as the scheduler would run them: one
# process per shard (JOB_COMPLETION_INDEX, the matrix value), the reports
# in one folder, then the merge step (each shard trusts the suite's folder
# first, as the recipes do). The model is a local
# OpenAI-compatible server (tests/support/openai_stub.py).
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"

reg_setup
if ! command -v python3 >/dev/null 2>&1; then
	echo "eval_recipes: python3 not found; skipped"
	reg_done
fi
SKIT_RUNS_DIR=$W/audit
export SKIT_RUNS_DIR

# The commands of the recipes: every `skit eval` line of a yaml block.
python3 - "$SKIT_SOURCE_DIR/docs/evals.md" "$W" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
k8s = [b for b in blocks if "JOB_COMPLETION_INDEX" in b]
gh = [b for b in blocks if "matrix.shard" in b]
assert len(k8s) == 1 and len(gh) == 1, "one recipe of each kind"
def lines(block):
    out = []
    for line in block.splitlines():
        line = line.strip()
        if "skit eval" not in line:
            continue
        line = re.sub(r"^- (run: )?", "", line)
        out.append(line)
    return out
k, g = lines(k8s[0]), lines(gh[0])
assert len(k) == 2 and len(g) == 3, (k, g)
for name, cmd in (("k8s-shard", k[0]), ("k8s-merge", k[1]),
                  ("gh-shard", g[0]), ("gh-merge-junit", g[1]),
                  ("gh-merge", g[2])):
    open("%s/%s.cmd" % (sys.argv[2], name), "w").write(cmd + "\n")
PY
[ -f "$W/gh-merge.cmd" ] && reg_pass || reg_fail "the recipes' commands are not in docs/evals.md"

# A suite of five cases, each answered "hello" by the model.
mkdir -p "$W/suite/evals"
for c in alpha beta gamma delta epsilon; do
	printf '%s\n' "input: Say hello, $c" 'skills:' \
		"  - $SKIT_SOURCE_DIR/examples/skills" 'expected:' '  output:' \
		'    contains: hello' >"$W/suite/evals/$c.yaml"
done
hello='{"content": "hello", "usage": {"input_tokens": 10, "output_tokens": 2}}'
: >"$W/answers.jsonl"
for i in $(seq 1 30); do
	printf '%s\n' "$hello" >>"$W/answers.jsonl"
done
python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" "$W/answers.jsonl" \
	"$W/port" "$T/stub.log" &
stub_pid=$!
n=0
# at most 60 s: a loaded machine may be slow to start python (the port
# file is written whole, by a rename)
while [ ! -f "$W/port" ] && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
OPENAI_BASE_URL="http://127.0.0.1:$(cat "$W/port")/v1"
OPENAI_API_KEY=sk-stub
export OPENAI_BASE_URL OPENAI_API_KEY

# skit on the PATH (the image), and in build/ (the checkout).
mkdir -p "$W/bin" "$W/suite/build" "$W/reports"
ln -s "$SKIT" "$W/bin/skit"
ln -s "$SKIT" "$W/suite/build/skit"

# Kubernetes: three pods, indexes 0 to 2, in the image's /suite, with the
# shared volume at /reports.
cd "$W/suite" || exit 1
sed "s|/reports|$W/reports|g" "$W/k8s-shard.cmd" >"$W/k8s-shard.sh"
sed "s|/reports|$W/reports|g" "$W/k8s-merge.cmd" >"$W/k8s-merge.sh"
for i in 0 1 2; do
	JOB_COMPLETION_INDEX=$i PATH="$W/bin:$PATH" timeout 120 \
		sh "$W/k8s-shard.sh" >"$T/out" 2>"$T/err"
	rc=$?
	expect_rc 0 "k8s: pod $i"
done
n=$(ls "$W/reports"/shard-*.json | wc -l)
[ "$n" -eq 3 ] && reg_pass || reg_fail "k8s: 3 reports on the volume, got $n"
PATH="$W/bin:$PATH" timeout 120 sh "$W/k8s-merge.sh" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "k8s: the merge step"
has "$T/out" "cases: 5/5 passed" "k8s: the merged text report"
has "$T/out" "merged: 3 shard reports" "k8s: three shards merged"
n=$(grep -c '<testcase ' "$W/reports/junit.xml")
[ "$n" -eq 5 ] && reg_pass || reg_fail "k8s: junit.xml has 5 testcases, got $n"

# GitHub Actions: three matrix jobs in the checkout, their artifacts
# downloaded into reports/, then the merge job.
for i in 1 2 3; do
	sed "s|\${{ matrix.shard }}|$i|g" "$W/gh-shard.cmd" >"$W/gh-shard.sh"
	timeout 120 sh "$W/gh-shard.sh" >"$T/out" 2>"$T/err"
	rc=$?
	expect_rc 0 "actions: matrix job $i"
done
mkdir -p reports
mv report-*.json reports/
timeout 120 sh "$W/gh-merge-junit.cmd" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "actions: the merge job's JUnit step"
n=$(grep -c '<testcase ' junit.xml)
[ "$n" -eq 5 ] && reg_pass || reg_fail "actions: junit.xml has 5 testcases, got $n"
timeout 120 sh "$W/gh-merge.cmd" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "actions: the merge job"
has "$T/out" "cases: 5/5 passed" "actions: the merged text report"
# A missing artifact fails the merge job.
rm reports/report-2.json
timeout 120 sh "$W/gh-merge.cmd" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "actions: a missing shard fails the merge job"
has "$T/err" "shard 2/3 is missing" "actions: the missing shard is named"
cd "$W" || exit 1

kill "$stub_pid" 2>/dev/null
wait "$stub_pid" 2>/dev/null
n=$(wc -l <"$T/stub.log" | tr -d ' ')
[ "$n" -eq 10 ] && reg_pass ||
	reg_fail "each trial of both recipes asks the model once: $n requests, not 10"

reg_done
