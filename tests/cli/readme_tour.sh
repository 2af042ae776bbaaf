#!/bin/sh
# readme_tour.sh - README.md is executable truth: every command line of its
# tour (the ```sh blocks from "## A short tour" to "## Building by hand")
# runs here, verbatim, in a scratch project, block by block in one shell
# (so `cd` carries over), and its exit status is checked against the table
# below. A README line missing from the table fails, and so does a table
# line missing from the README: the two cannot drift apart.
#
# What stands in for the outside world: OPENAI_BASE_URL and
# ANTHROPIC_BASE_URL point to tests/support/openai_stub.py on 127.0.0.1,
# with a fake key each. Lines that name a host on the internet
# (example.org, github.com) must fail cleanly offline: exit 1 and one line
# naming the host.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
README=$SKIT_SOURCE_DIR/README.md
BIN=$(cd "$(dirname "$SKIT")" && pwd)

# --- the table: expected exit status, a tab, the README line (verbatim,
# trailing comment included). "net" instead of a status: offline failure.
cat >"$T/table" <<'TABLE'
0	skit init csv-tools --description "Summarise CSV files. Use when asked about a .csv."
0	skit validate csv-tools            # gcc-style diagnostics; exit 0 valid, 1 invalid, 2 usage
0	skit validate --format reference x # skills-ref's exact output
0	skit validate --strict x           # lint warnings fail too
0	skit read-properties csv-tools     # the frontmatter as JSON
0	skit to-prompt csv-tools other     # the <available_skills> block for a system prompt
0	skit to-prompt --format markdown --budget 2000tok skills/*/
0	skit list                          # skills in the project, user and builtin roots
0	skit list --all --json             # with shadowed and skipped copies, as JSON
0	skit show csv-report               # the body and the skill's files
0	skit search "summarise a spreadsheet"
0	skit doctor                        # roots, collisions, skipped skills, index size
0	mkdir -p demo/.agents && cp examples/skills/csv-report/assets/sample.csv demo/data.csv && cd demo
0	skit install ../examples/skills/csv-report     # the skill, into demo/.agents/skills
0	skit trust                                     # your project: the agent may load its skills (see below)
0	skit run --yes --root ../examples/skills --model replay:../examples/cassettes/csv-report.jsonl "Summarise data.csv"
0	skit run "Summarise data.csv"                  # streams the answer; trace on stderr
0	skit run --model openai:gpt-4.1-mini "..."      # OPENAI_API_KEY, OPENAI_BASE_URL (Ollama, vLLM...)
0	skit run --model anthropic:claude-sonnet-4-5 "..."   # ANTHROPIC_API_KEY
0	skit run "/csv-report data.csv"                # activate a skill yourself; or mention $csv-report
0	skit run --allow 'Bash(git:*)' --deny 'Write(src/**)' "..."   # permissions; --yes approves all
0	skit run --no-network --no-file-tools "..."    # tighter: no network, only the skill tools
0	skit run --allow 'WebFetch(domain:example.com)' "..."  # scripts: HTTP(S) to example.com only, via skit's proxy
0	skit run --network "..."                       # scripts and shell calls: the whole network (your call, never a skill's)
0	skit run --sandbox read-only "..."             # programs write only a private temporary folder
0	skit chat                                      # a conversation: /skills, /plan, /exit
0	skit runs list                                 # the audit trail: .agents/runs/<time>-<id>/
0	skit runs show last --json
0	skit approvals list                            # "always" answers saved for skill scripts
0	skit pack skills/csv-report skills/pdf-text -o tools.skill   # reproducible zip + manifest
0	skit keygen team.key && skit pack --sign team.key skills/* -o tools.skill
0	skit install tools.skill                       # into <project>/.agents/skills (or --scope user)
net	skit install https://example.org/tools.zip --require-signature --trust team.key.pub
net	skit install https://github.com/org/skills#v1.2//skills/csv-report   # git, shallow
net	skit push tools.skill oci://ghcr.io/org/skills:v1 # an OCI artifact; install oci://… pulls it
0	skit list --installed                          # source, version, time (from .skit-lock.json)
0	skit verify                                    # re-hash against the lock; names changed files
0	skit update --dry-run                          # which files would change
0	skit install --from-lock                       # reproduce a root from its lock file
0	skit uninstall csv-report
0	skit scan tests/fixtures/scan/benign/vendor-cli
1	skit scan --format sarif tests/fixtures/scan/malicious > scan.sarif
0	skit trust .                                   # evals run only in a folder you trust
0	skit eval examples/evals                       # offline, with the cases' cassettes
1	skit eval --model openai:gpt-4.1-mini --jobs 4 --report junit --out evals.xml evals/
1	skit eval --model openai:gpt-4.1-mini examples/evals/triggers-csv-report.yaml
0	skit mcp                                       # stdio: {"command": "skit", "args": ["mcp"]}
124	skit mcp --http 127.0.0.1:8787                 # http://127.0.0.1:8787/mcp
TABLE

# --- the README's tour lines, block by block ("@@" starts a block).
awk '
	/^## A short tour/ { on = 1 }
	/^## Building by hand/ { on = 0 }
	on && /^```sh/ { inblock = 1; print "@@"; next }
	inblock && /^```/ { inblock = 0; next }
	inblock && NF && $1 !~ /^#/ { print }
' "$README" >"$T/lines"

# Every README line is in the table, and every table line in the README.
cut -f2- "$T/table" >"$T/table-lines"
grep -v '^@@$' "$T/lines" | while IFS= read -r l; do
	grep -qxF -- "$l" "$T/table-lines" || echo "$l"
done >"$T/uncovered"
[ -s "$T/uncovered" ] && reg_fail "README lines with no expectation here: $(cat "$T/uncovered")" || reg_pass
while IFS= read -r l; do
	grep -qxF -- "$l" "$T/lines" || echo "$l"
done <"$T/table-lines" >"$T/stale"
[ -s "$T/stale" ] && reg_fail "table lines no longer in README.md: $(cat "$T/stale")" || reg_pass

# --- the scratch project: what the tour's lines refer to.
P=$W/project
mkdir -p "$P/.agents/skills" "$P/skills" "$P/evals"
cp -R "$SKIT_SOURCE_DIR/examples" "$P/examples"
mkdir -p "$P/tests/fixtures"
cp -R "$SKIT_SOURCE_DIR/tests/fixtures/scan" "$P/tests/fixtures/scan"
cp -R "$SKIT_SOURCE_DIR/examples/skills/." "$P/skills/"
cp -R "$SKIT_SOURCE_DIR/examples/skills/csv-report" "$P/.agents/skills/"
for n in x other; do
	mkdir -p "$P/$n"
	printf -- '---\nname: %s\ndescription: The %s skill. Use it when the tour asks for %s.\n---\n# %s\n\nSteps.\n' \
		"$n" "$n" "$n" "$n" >"$P/$n/SKILL.md"
done
# An eval case the stub model cannot pass (it never activates csv-report).
cat >"$P/evals/profile.yaml" <<'CASE'
description: Profile a CSV
input: What is in sample.csv?
skills:
  - ../examples/skills
expected:
  skills:
    - csv-report
CASE
(cd "$P" && git init -q . && git add -A >/dev/null 2>&1)

# The stub model: a plain answer to every request.
i=0
while [ $i -lt 200 ]; do
	echo '{"text": "STUB-ANSWER"}'
	i=$((i + 1))
done >"$T/answers.jsonl"
python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" "$T/answers.jsonl" \
	"$T/port" "$T/stub.log" &
STUB=$!
trap 'kill $STUB 2>/dev/null' EXIT INT TERM
n=0
while [ ! -s "$T/port" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
PORT=$(cat "$T/port")

# --- run each block in one shell; each line's status goes to $T/status.
: >"$T/status"
k=0
awk -v out="$T/blocks" '
	/^@@$/ { b++; next }
	{ print > (out "." b) }
' "$T/lines"
for blk in "$T"/blocks.*; do
	{
		# `skit` is the built binary, under a time limit: a hang is a
		# failure. `skit mcp --http` serves until stopped, so it gets
		# three seconds and the table expects the timeout (124).
		cat <<'FN'
skit() {
	case " $* " in
	*" mcp "*--http*) timeout 3 "$SKITBIN/skit" "$@" ;;
	*) timeout 120 "$SKITBIN/skit" "$@" ;;
	esac
}
FN
		while IFS= read -r l; do
			k=$((k + 1))
			# The line verbatim in a group of its own, so its
			# trailing comment cannot swallow the redirections.
			printf '{\n%s\n} </dev/null >>"$2/out" 2>"$2/err.%s"\n' "$l" "$k"
			printf 'rc=$?; printf "%%s\\t%%s\\t%%s\\n" "$rc" %s %s >>"$2/status"\n' \
				"$k" "'$(printf '%s' "$l" | sed "s/'/'\\\\''/g")'"
		done <"$blk"
	} >"$blk.sh"
	(cd "$P" && SKITBIN=$BIN OPENAI_API_KEY=sk-test-tour OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" \
		ANTHROPIC_API_KEY=sk-ant-test-tour ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" \
		SKIT_MODEL= SKIT_CASSETTE= NO_COLOR=1 \
		timeout 300 sh "$blk.sh" "$BIN" "$T")
done

# --- compare
while IFS="$(printf '\t')" read -r want l; do
	got=$(awk -F '\t' -v l="$l" '$3 == l { print $1; exit }' "$T/status")
	k=$(awk -F '\t' -v l="$l" '$3 == l { print $2; exit }' "$T/status")
	if [ -z "$got" ]; then
		reg_fail "not run: $l"
	elif [ "$want" = net ]; then
		host=$(printf '%s\n' "$l" | sed -n -E 's#.*(https|oci)://([^/]*)/.*#\2#p')
		if [ "$got" = 1 ] && grep -q "$host" "$T/err.$k" &&
			[ "$(wc -l <"$T/err.$k")" -le 2 ]; then
			reg_pass
		else
			reg_fail "exit $got, expected a clean offline failure naming $host: $l: $(cat "$T/err.$k")"
		fi
	elif [ "$got" = "$want" ]; then
		reg_pass
	elif [ "$want" = 124 ] && [ "$got" = 1 ] &&
		grep -q "Address already in use" "$T/err.$k"; then
		# The README's fixed port is taken on this machine: the
		# command still said why, in one line.
		echo "NOTE: port in use, not served: $l"
		reg_pass
	else
		reg_fail "exit $got, expected $want: $l"
	fi
done <"$T/table"
# The SARIF file the tour writes is JSON.
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] == "2.1.0"' "$P/scan.sarif" 2>/dev/null; then
	reg_pass
else
	reg_fail "scan.sarif is not SARIF 2.1.0 JSON"
fi
reg_done
