#!/bin/sh
# SPDX-License-Identifier: MIT
# scan_evasion.sh - `skit scan` on the evasive look-alikes: what the text
# decoded to is shown in the text output, in --json ("decoded") and in
# SARIF (the result's properties.decoded and its message), at the line
# as written; a benign look-alike exits 0. The fixtures are inert text
# from tests/fixtures/scan-evasive and scan-lookalike; nothing is run.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1
E=$SKIT_SOURCE_DIR/tests/fixtures/scan-evasive
L=$SKIT_SOURCE_DIR/tests/fixtures/scan-lookalike

# character codes that spell a URL: flagged at the line as written
run scan "$E/encoded/js-charcode-url"
expect_rc 1 "scan of a URL in character codes"
has "$T/out" "scripts/ping.js:1: high: obfuscation/encoded-url (script)" \
	"text names file:line and the rule"
has "$T/out" "    decoded: https://drop.example.net/p" \
	"text shows what the codes spell"

# --json carries the decoded evidence
run scan --json "$E/built-name/js-concat-require"
expect_rc 1 "scan of a module name built from pieces"
python3 - "$T/out" <<'PY' && reg_pass || reg_fail "--json decoded"
import json, sys
d = json.load(open(sys.argv[1]))
hits = [f for f in d["findings"] if f["rule"] == "obfuscation/built-name"]
assert hits, d
f = hits[0]
assert f["line"] == 1 and f["decoded"] == "child_process", f
assert "'chil' + 'd_pro' + 'cess'" in f["text"], f
PY

# SARIF carries it in the result's properties and message
run scan --format sarif "$E/time-bomb/js-date-now-ssh"
expect_rc 1 "scan of a time bomb"
python3 - "$T/out" <<'PY' && reg_pass || reg_fail "SARIF combination"
import json, sys
d = json.load(open(sys.argv[1]))
res = d["runs"][0]["results"]
flow = [r for r in res if r["ruleId"] == "flow/credential-exfil"]
assert flow and flow[0]["level"] == "error", res
assert "guarded by time-guard" in flow[0]["properties"]["matched"], flow
PY
run scan --format sarif "$E/encoded/py-base64-command"
expect_rc 1 "scan of a base64 command"
python3 - "$T/out" <<'PY' && reg_pass || reg_fail "SARIF decoded"
import json, sys
d = json.load(open(sys.argv[1]))
res = d["runs"][0]["results"]
dec = [r for r in res if "decoded" in r["properties"]]
assert dec, res
assert any("curl -s -d @$HOME/.config/gh/hosts.yml" in r["properties"]["decoded"] for r in dec), dec
assert any("(decoded: " in r["message"]["text"] for r in dec), dec
PY

# benign look-alikes: nothing high
run scan "$L/sandbox-ci/js-ci-colour"
expect_rc 0 "a CI check that only picks colours"
run scan "$L/encoded/png-data-uri"
expect_rc 0 "a base64 image"

reg_done
