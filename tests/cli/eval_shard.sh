#!/bin/sh
# eval_shard.sh - `skit eval --shard I/N` and `skit eval merge`: three
# shards run as separate processes and merged give the report of one
# unsharded run (every figure but wall times and run folders); shards
# are disjoint, cover the suite, and do not move when entries are added;
# merge refuses reports that do not belong together (exit 2). The
# commands are those of the recipes in docs/evals.md.
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"

reg_setup
if ! command -v python3 >/dev/null 2>&1; then
	echo "eval_shard: python3 not found; skipped"
	reg_done
fi
EV=$SKIT_SOURCE_DIR/examples/evals
SKIT_RUNS_DIR=$W/audit
export SKIT_RUNS_DIR

# The shipped suite, plus a case that fails (an unexpected skill, a
# missing output) so that failures, false positives and reasons are
# merged too.
mkdir -p "$W/suite/cassettes"
cp "$EV"/*.yaml "$EV"/*.json "$W/suite/"
cp -R "$EV/data" "$W/suite/"
# The user's own suite: its folder is trusted (docs/evals.md).
run trust "$W/suite"
expect_rc 0 "trust the suite's folder"
cp "$EV"/cassettes/*.jsonl "$W/suite/cassettes/"
sed -i "s|\.\./skills|$SKIT_SOURCE_DIR/examples/skills|" "$W/suite"/*.yaml \
	"$W/suite"/*.json
printf '%s\n' 'input: Summarise sales.csv' 'skills:' \
	"  - $SKIT_SOURCE_DIR/examples/skills" \
	'cassette: cassettes/wrong.jsonl' 'trials: 2' 'expected:' \
	'  not_skills:' '    - csv-report' '  output:' '    contains: 12 rows' \
	>"$W/suite/wrong.yaml"
printf '%s\n' \
	'{"tool_calls": [{"name": "use_skill", "arguments": {"name": "csv-report"}}], "usage": {"input_tokens": 50, "output_tokens": 5}}' \
	'{"text": "I cannot tell.", "stop_reason": "end_turn", "usage": {"input_tokens": 70, "output_tokens": 9}}' \
	>"$W/suite/cassettes/wrong.jsonl"

# cmp.py A B: the two JSON reports are equal but for wall times, run
# folders and the shard fields.
cat >"$W/cmp.py" <<'PY'
import json, sys
SKIP = ("wall_ms", "run_dirs", "runs_dir", "shard", "shards_merged")
def norm(o):
    if isinstance(o, dict):
        return {k: norm(v) for k, v in o.items() if k not in SKIP}
    if isinstance(o, list):
        return [norm(v) for v in o]
    return o
a = norm(json.load(open(sys.argv[1])))
b = norm(json.load(open(sys.argv[2])))
for k in sorted(set(a) | set(b)):
    if a.get(k) != b.get(k):
        print("differs:", k, json.dumps(a.get(k))[:300], "|",
              json.dumps(b.get(k))[:300])
        sys.exit(1)
PY
# names.py REPORT...: the names of the entries of each report, one a line.
cat >"$W/names.py" <<'PY'
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    for e in d["cases"] + d["queries"]:
        print(f.rsplit("/", 1)[-1], e["name"], e.get("query", ""))
PY

run eval --report json --out "$T/full.json" "$W/suite"
expect_rc 1 "the unsharded run fails (the broken case)"
has "$T/full.json" '"version": 2' "the JSON report has a version"
has "$T/full.json" '"trial_data"' "the JSON report keeps each trial"
has "$T/full.json" '"skill_counts"' "the JSON report keeps each case's counts"
has "$T/full.json" '"shard": null' "an unsharded report has no shard"

# Three shards, three processes, as the recipes run them.
for i in 1 2 3; do
	run eval --shard "$i/3" --jobs 2 --report json \
		--out "$T/shard-$i.json" "$W/suite"
	[ "$rc" -le 1 ] && reg_pass || reg_fail "shard $i/3: exit $rc"
done
python3 - "$T"/shard-*.json >"$T/shards.txt" <<'PY'
import json, sys
for f in sys.argv[1:]:
    print(json.dumps(json.load(open(f))["shard"], sort_keys=True))
PY
has "$T/shards.txt" '{"count": 3, "index": 2}' "a shard report records its shard"

python3 "$W/names.py" "$T/full.json" | cut -d' ' -f2- | sort >"$T/all.txt"
python3 "$W/names.py" "$T"/shard-*.json | cut -d' ' -f2- | sort >"$T/union.txt"
cmp -s "$T/all.txt" "$T/union.txt" && reg_pass ||
	reg_fail "the shards together are not the suite: $(diff "$T/all.txt" "$T/union.txt")"
[ -z "$(uniq -d "$T/union.txt")" ] && reg_pass ||
	reg_fail "an entry ran in two shards: $(uniq -d "$T/union.txt")"
n=0
for i in 1 2 3; do
	[ "$(python3 "$W/names.py" "$T/shard-$i.json" | wc -l)" -gt 0 ] &&
		n=$((n + 1))
done
[ "$n" -ge 2 ] && reg_pass || reg_fail "the entries went to one shard only"

run eval merge --json -o "$T/merged.json" "$T/shard-3.json" \
	"$T/shard-1.json" "$T/shard-2.json"
expect_rc 1 "merge: the merged suite fails as the whole run does"
has "$T/err" "over 3 merged reports" "merge: the summary line"
python3 "$W/cmp.py" "$T/full.json" "$T/merged.json" >"$T/cmp.txt" &&
	reg_pass || reg_fail "merged != unsharded: $(cat "$T/cmp.txt")"
has "$T/merged.json" '"shards_merged": 3' "the merged report counts its shards"
run eval merge --min-pass-rate 0 "$T/shard-1.json" "$T/shard-2.json" \
	"$T/shard-3.json"
expect_rc 0 "merge: --min-pass-rate"
has "$T/out" "merged: 3 shard reports" "merge: the text report"
has "$T/out" "FAIL" "merge: the text report shows the failing case"
grep '^cases:\|^trigger queries:\|^steps:' "$T/out" >"$T/merged-sum.txt"
run eval --min-pass-rate 0 "$W/suite"
grep '^cases:\|^trigger queries:\|^steps:' "$T/out" >"$T/full-sum.txt"
cmp -s "$T/merged-sum.txt" "$T/full-sum.txt" && reg_pass ||
	reg_fail "text summaries differ: $(diff "$T/full-sum.txt" "$T/merged-sum.txt")"
run eval merge --report junit "$T"/shard-*.json
n=$(grep -c '<testcase ' "$T/out")
[ "$n" -eq 10 ] && reg_pass || reg_fail "junit: 10 testcases, got $n"
# A merged report is whole: it merges alone, to itself.
run eval merge --json "$T/merged.json"
python3 "$W/cmp.py" "$T/merged.json" "$T/out" >"$T/cmp.txt" && reg_pass ||
	reg_fail "a merged report merged again differs: $(cat "$T/cmp.txt")"

# Stable: a new case and a reordered folder move no other entry.
mkdir -p "$W/more"
cp -r "$W/suite/." "$W/more/"
run trust "$W/more"
sed 's/^input: .*/input: Summarise sales.csv again/' "$W/suite/wrong.yaml" \
	>"$W/more/0-new.yaml"
for i in 1 2 3; do
	run eval --shard "$i/3" --report json --out "$T/more-$i.json" "$W/more"
done
python3 "$W/names.py" "$T"/shard-*.json | sed 's/^shard-//' | sort >"$T/before.txt"
python3 "$W/names.py" "$T"/more-*.json | sed 's/^more-//' | sort >"$T/after.txt"
missing=$(comm -23 "$T/before.txt" "$T/after.txt")
[ -z "$missing" ] && reg_pass ||
	reg_fail "adding a case moved entries to another shard: $missing"
[ "$(wc -l <"$T/after.txt")" -eq $(($(wc -l <"$T/before.txt") + 1)) ] &&
	reg_pass || reg_fail "the new case is in no shard"
# The held-out split is the whole set's, whatever the shard.
python3 - "$T/full.json" "$T"/shard-*.json >"$T/held.txt" <<'PY'
import json, sys
full = {q["name"]: q["held_out"] for q in json.load(open(sys.argv[1]))["queries"]}
for f in sys.argv[2:]:
    for q in json.load(open(f))["queries"]:
        if full[q["name"]] != q["held_out"]:
            print("moved", q["name"])
print(sum(full.values()), "held out")
PY
lacks "$T/held.txt" "moved" "a shard keeps the held-out split"
lacks "$T/held.txt" "0 held out" "some queries are held out"

# Reports that do not belong together: exit 2, one clear line.
run eval merge "$T/shard-1.json" "$T/shard-1.json" "$T/shard-2.json" \
	"$T/shard-3.json"
expect_rc 2 "merge: the same shard twice"
has "$T/err" "shard 1/3 is given twice" "merge: names the shard given twice"
run eval merge "$T/shard-1.json" "$T/shard-2.json"
expect_rc 2 "merge: a shard missing"
has "$T/err" "shard 3/3 is missing" "merge: names the missing shard"
run eval merge "$T/shard-1.json" "$T/more-2.json" "$T/shard-3.json"
expect_rc 2 "merge: shards of two suites"
has "$T/err" "another suite" "merge: says the suites differ"
run eval --shard 2/2 --report json --out "$T/two.json" "$W/suite"
run eval merge "$T/shard-1.json" "$T/two.json"
expect_rc 2 "merge: different shard counts"
has "$T/err" "shard 2 of 2, where the others are of 3" "merge: names the counts"
python3 - "$T/shard-1.json" "$T/shard-2.json" "$T/lap.json" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
b["cases"] = b["cases"] + a["cases"][:1] if a["cases"] else b["cases"]
b["queries"] = b["queries"] + (a["queries"][:1] if not a["cases"] else [])
json.dump(b, open(sys.argv[3], "w"))
PY
run eval merge "$T/shard-1.json" "$T/lap.json" "$T/shard-3.json"
expect_rc 2 "merge: an entry in two reports"
has "$T/err" "overlapping shards" "merge: says the shards overlap"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); del d["version"]
json.dump(d, open(sys.argv[2], "w"))' "$T/full.json" "$T/old.json"
run eval merge "$T/old.json"
expect_rc 2 "merge: a report without a version"
has "$T/err" "version 2" "merge: asks for a report of version 2"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["cases"][0]["trial_data"][0]["input_tokens"] = -1
json.dump(d, open(sys.argv[2], "w"))' "$T/full.json" "$T/neg.json"
run eval merge "$T/neg.json"
expect_rc 2 "merge: a negative count"
has "$T/err" "input_tokens" "merge: names the bad field"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["cases"][0]["wall_ms"] = 2 ** 62
json.dump(d, open(sys.argv[2], "w"))' "$T/full.json" "$T/huge.json"
run eval merge "$T/huge.json"
expect_rc 2 "merge: a figure that could wrap a sum"
has "$T/err" "wall_ms" "merge: names the field out of range"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["cases"][0]["trials"] = "2"
json.dump(d, open(sys.argv[2], "w"))' "$T/full.json" "$T/type.json"
run eval merge "$T/type.json"
expect_rc 2 "merge: a count of the wrong type"
printf '{"version": 2, "suite": ' >"$T/cut.json"
run eval merge "$T/cut.json"
expect_rc 2 "merge: a cut report"
has "$T/err" "not JSON" "merge: says it is not JSON"
run eval merge "$T/none.json"
expect_rc 2 "merge: a missing file"
run eval merge
expect_rc 2 "merge: no report"
run eval merge --help
expect_rc 0 "merge --help"
has "$T/out" "eval merge" "merge --help shows the merge usage"

# --shard usage errors.
for bad in 0/3 4/3 3 a/b 1/0 "1/3x" "-1/3"; do
	run eval --shard "$bad" "$W/suite"
	expect_rc 2 "--shard $bad"
done
has "$T/err" "--shard is I/N" "the --shard error says what is expected"

reg_done
