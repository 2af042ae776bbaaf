#!/bin/sh
# SPDX-License-Identifier: MIT
# scan.sh - `skit scan`: text, --json and SARIF 2.1.0 output (its shape
# checked with python3's json), --fail-on and the exit status, a NAME from
# the roots, a folder of skills, usage errors and a missing path (exit
# 2), a rules file that does not load (exit 1). The fixtures are inert
# text from tests/fixtures/scan; nothing in them is run.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1
F=$SKIT_SOURCE_DIR/tests/fixtures/scan

# a malicious-looking skill: exit 1, findings name file:line and rule
run scan "$F/malicious/revshell"
expect_rc 1 "scan of a reverse shell"
has "$T/out" "scripts/check.sh:4: critical: revshell/dev-tcp (script)" \
	"text names file:line, severity, rule and where"
has "$T/out" "1 skill, 2 files scanned (rules " "text summary"

# a benign one: exit 0, with a medium finding shown
run scan "$F/benign/vendor-cli"
expect_rc 0 "scan of a vendor-like skill"
has "$T/out" "medium: download-exec/pipe-to-shell (example)" \
	"a code-block install line is medium"

# --fail-on
run scan --fail-on medium "$F/benign/vendor-cli"
expect_rc 1 "--fail-on medium"
run scan --fail-on none "$F/malicious/revshell"
expect_rc 0 "--fail-on none"
run scan --fail-on urgent "$F/malicious/revshell"
expect_rc 2 "--fail-on with an unknown severity"

# a folder of skills: each is scanned
run scan --fail-on none "$F/benign"
expect_rc 0 "a folder of skills"
has "$T/out" "6 skills, " "every skill of the folder"

# --json
run scan --json "$F/malicious/exfil"
expect_rc 1 "--json exit"
python3 - "$T/out" <<'PY' && reg_pass || reg_fail "--json shape"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rules_version"] and d["files"] == 2
f = [x for x in d["findings"] if x["rule"] == "exfil/capture-service"][0]
assert f["file"] == "scripts/audit.py" and f["line"] == 6, f
assert f["severity"] == "high" and f["where"] == "script", f
assert f["text"] == "webhook.site" and f["explain"], f
assert d["counts"]["high"] >= 2
PY

# SARIF 2.1.0: the fields code-scanning dashboards require
run scan --format sarif "$F/malicious"
expect_rc 1 "--format sarif exit"
python3 - "$T/out" <<'PY' && reg_pass || reg_fail "SARIF shape"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "2.1.0" and "sarif-2.1.0" in d["$schema"]
assert len(d["runs"]) == 1
run = d["runs"][0]
drv = run["tool"]["driver"]
assert drv["name"] == "skit" and drv["version"]
ids = [r["id"] for r in drv["rules"]]
assert len(ids) == len(set(ids)) and ids
for r in drv["rules"]:
    assert r["shortDescription"]["text"]
    float(r["properties"]["security-severity"])
assert run["results"]
for res in run["results"]:
    assert res["ruleId"] in ids
    assert res["level"] in ("error", "warning", "note", "none")
    assert res["message"]["text"]
    for loc in res["locations"]:
        pl = loc["physicalLocation"]
        assert pl["artifactLocation"]["uri"]
        if "region" in pl:
            assert pl["region"]["startLine"] >= 1
levels = {r["ruleId"]: r["level"] for r in run["results"]}
assert levels["revshell/dev-tcp"] == "error"
PY

# a NAME found in the roots
mkdir -p "$W/root"
cp -R "$F/malicious/persistence" "$W/root/"
run scan --root "$W/root" persistence
expect_rc 1 "scan NAME"
has "$T/out" "persistence/crontab" "NAME resolves to the installed skill"

# usage and missing input
run scan
expect_rc 2 "no PATH"
run scan "$W/nowhere/skill"
expect_rc 2 "missing PATH"
lines "$T/err" 1 "missing PATH: one line"
run scan --root "$W/root" nosuchskill
expect_rc 2 "unknown NAME"
run scan --format xml "$F/benign/git-helper"
expect_rc 2 "--format xml"
run scan --help
expect_rc 0 "--help"
has "$T/out" "usage: skit scan" "--help text"

# rules that do not load: exit 1 and one line naming the rule
printf 'version: "t"\nrules:\n  - id: broken\n    family: f\n    severity: high\n    explain: e\n    pattern: "(unclosed"\n    keywords: [x]\n    positive: [x]\n    negative: [y]\n' >"$W/bad-rules.yaml"
run scan --rules "$W/bad-rules.yaml" "$F/benign/git-helper"
expect_rc 1 "bad rules file"
has "$T/err" "scan rule broken: pattern" "the bad rule is named"
lines "$T/err" 1 "bad rules: one line"

# the shipped rules are found next to the binary with no variable set
unset SKIT_SCAN_RULES
run scan "$F/benign/git-helper"
expect_rc 0 "rules found relative to the binary"

reg_done
