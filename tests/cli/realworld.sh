#!/bin/sh
# realworld.sh - what real skills carry (tests/fixtures/realworld: one
# fixture a row of the real-world table in docs/format.md), through list,
# show, to-prompt, install, pack and validate (conformance and --lenient).
#
# The loading rules accept every fixture but the one without frontmatter;
# `skit validate` keeps the reference's verdicts (only the two
# typed-fields fixtures conform).

. "$(dirname "$0")/registry_lib.inc"
reg_setup

FX=$SKIT_SOURCE_DIR/tests/fixtures/realworld
R=$W/root
mkdir -p "$R"
cp -R "$FX"/. "$R"/ || exit 1
cd "$W" || exit 1

# loadable fixture folders and the name each is known by (= its folder)
LOADABLE="flow-json-metadata flow-lists acme-pdf-v2 ahrefs-automation
stitch-react colon-description typed-fields typed-fields-empty-metadata
client-fields long-description keywords-after-blank dash-continuation
block-indicator-text argument-hint-list"
# the ones the reference (and so `skit validate`) accepts
CONFORMING="typed-fields typed-fields-empty-metadata"

# ---------------------------------------------------------------- list
run list --root "$R"
expect_rc 0 "list"
for f in $LOADABLE; do
	grep -q "^$f  *root  " "$T/out" && reg_pass ||
		reg_fail "list: $f is listed under its folder name"
done
lacks "$T/out" "no-frontmatter" "list: no frontmatter is not active"
lines "$T/err" 1 "list: one summary line on stderr"
has "$T/err" "1 skill skipped, " "list: the skipped count"
has "$T/err" "loaded with warnings: skit doctor explains" "list: the warned count"
run list --all --root "$R"
has "$T/out" "[skipped] SKILL.md must start with YAML frontmatter (---)" \
	"list --all: no frontmatter is skipped with its reason"
run list --json --root "$R"
[ ! -s "$T/err" ] && reg_pass || reg_fail "list --json: nothing on stderr"

# -------------------------------------------------------------- doctor
run doctor --root "$R"
expect_rc 1 "doctor: a skipped skill is a problem"
has "$T/out" "Loaded with warnings:" "doctor: the warned section"
has "$T/out" "[yaml-flow]" "doctor: flow collections named"
has "$T/out" "[description-unquoted-colon]" "doctor: the unquoted colon named"
has "$T/out" "[name-dir-mismatch]" "doctor: the name/folder mismatch named"
has "$T/out" "[description-too-long]" "doctor: the long description named"
has "$T/out" "must start with YAML frontmatter" "doctor: the skipped reason"
run doctor --json --root "$R"
has "$T/out" '"code": "yaml-flow"' "doctor --json: warning codes"

# ---------------------------------------------------------------- show
for f in $LOADABLE; do
	run show "$f" --root "$R"
	expect_rc 0 "show $f"
done
run show acme-pdf-v2 --root "$R"
has "$T/out" "# known as 'acme-pdf-v2' (its folder's name); SKILL.md names it 'acme-pdf'" \
	"show: both names"
run show acme-pdf --root "$R"
expect_rc 0 "show by the declared name (no skill is known by it)"
has "$T/out" "Match each answer" "show acme-pdf finds acme-pdf-v2"
run show --json ahrefs-automation --root "$R"
has "$T/out" '"declared_name": "Ahrefs Automation"' "show --json: the declared name"
has "$T/out" '"folder": "ahrefs-automation"' "show --json: the folder"
run show colon-description --json --root "$R"
has "$T/out" '"description": "Use this when tidying notes: it merges duplicates and sorts headings."' \
	"show: the unquoted colon read as one string"
run show no-frontmatter --root "$R"
expect_rc 1 "show: no frontmatter"
has "$T/err" "is skipped" "show: says why"

# ----------------------------------------------------------- to-prompt
for f in $LOADABLE; do
	run to-prompt "$R/$f"
	expect_rc 0 "to-prompt $f"
	has "$T/out" "$R/$f/SKILL.md" "to-prompt $f: location"
	run to-prompt --strict "$R/$f"
	case " $CONFORMING " in
	*" $f "*) expect_rc 0 "to-prompt --strict $f" ;;
	esac
done
run to-prompt --strict "$R/flow-lists"
expect_rc 1 "to-prompt --strict: the reference refuses flow YAML"
run to-prompt "$R/stitch-react"
has "$T/out" "stitch::react-components" "to-prompt prints the name as written"
run to-prompt "$R/no-frontmatter"
expect_rc 1 "to-prompt: no frontmatter"
has "$T/err" "must start with YAML frontmatter" "to-prompt: the reason"

# ------------------------------------------------------------ validate
for f in $LOADABLE; do
	run validate --format reference "$R/$f"
	case " $CONFORMING " in
	*" $f "*) expect_rc 0 "validate $f (conforms)" ;;
	*) expect_rc 1 "validate $f (the reference refuses it)" ;;
	esac
	run validate --lenient "$R/$f"
	expect_rc 0 "validate --lenient $f"
done
run validate --lenient "$R/flow-lists"
has "$T/err" "warning: Field 'tags': Found disallowed flow" "validate --lenient: the loader's warning"
has "$T/err" "[yaml-flow]" "validate --lenient: its code"
run validate --lenient "$R/client-fields"
[ ! -s "$T/err" ] && reg_pass || reg_fail "validate --lenient: client fields draw no warning"
run validate "$R/no-frontmatter"
expect_rc 1 "validate: no frontmatter"
run validate --lenient "$R/no-frontmatter"
expect_rc 1 "validate --lenient: no frontmatter"

# ------------------------------------------------------------- install
# one source holding every fixture: refused, every reason listed
run install --root "$W/inst" "$R"
expect_rc 1 "install: a source with an unloadable skill is refused"
has "$T/err" "no-frontmatter" "install: names the unloadable skill"
has "$T/err" "must start with YAML frontmatter" "install: says why"
[ ! -e "$W/inst/flow-lists" ] && reg_pass || reg_fail "install: nothing installed"
run install --root "$W/inst" --skip-invalid "$R"
expect_rc 0 "install --skip-invalid"
has "$T/err" "left out: " "install --skip-invalid: names what it left out"
has "$T/err" "no-frontmatter" "install --skip-invalid: the skill left out"
for f in $LOADABLE; do
	[ -f "$W/inst/$f/SKILL.md" ] && reg_pass ||
		reg_fail "install --skip-invalid: $f installed"
done
[ ! -e "$W/inst/no-frontmatter" ] && reg_pass ||
	reg_fail "install --skip-invalid: no-frontmatter left out"
# one skill a source, with the loading rules and with --strict
for f in $LOADABLE; do
	run install --root "$W/one" "$R/$f"
	expect_rc 0 "install $f"
	run install --root "$W/strict" --strict "$R/$f"
	# (a single skill names its own folder: acme-pdf then conforms)
	case " $CONFORMING acme-pdf-v2 " in
	*" $f "*) expect_rc 0 "install --strict $f" ;;
	*) expect_rc 1 "install --strict $f" ;;
	esac
done
# a single skill is installed under its own name (made valid)
[ -f "$W/one/acme-pdf/SKILL.md" ] && reg_pass ||
	reg_fail "install: a single skill takes its own name"
[ -f "$W/one/ahrefs-automation/SKILL.md" ] && reg_pass ||
	reg_fail "install: an invalid name is made a valid folder name"
[ -f "$W/one/stitch-react-components/SKILL.md" ] && reg_pass ||
	reg_fail "install: stitch::react-components becomes stitch-react-components"
run install --root "$W/one" "$R/no-frontmatter"
expect_rc 1 "install: no frontmatter"
# the client fields no longer block an install (disable-model-invocation)
run list --root "$W/one" --json
has "$T/out" '"disable_model_invocation": true' "install: client fields kept"

# The description shapes YAML refuses, re-read as one string (found in
# real skills: docs/bench.md, "Measured on real skills").
run validate --lenient "$R/keywords-after-blank"
has "$T/err" "[description-unquoted-colon]" "a ': ' after an empty line"
run validate --lenient "$R/dash-continuation"
has "$T/err" "[description-unindented]" "lines at column 0"
run validate --lenient "$R/block-indicator-text"
has "$T/err" "[description-block-text]" "text after '|'"
run validate --lenient "$R/argument-hint-list"
has "$T/err" "[field-list-joined]" "a list argument-hint"
run validate "$R/keywords-after-blank"
expect_rc 1 "the reference's verdict is unchanged"
has "$T/err" "[yaml-invalid]" "strict: still invalid YAML"
run show keywords-after-blank --json --root "$R"
has "$T/out" "index order" "the text after the empty line is kept"
has "$T/out" "Keywords: sql tidy" "the continuation line is kept"
run show dash-continuation --json --root "$R"
has "$T/out" "- tag notes in bulk" "the column-0 lines are kept"
lacks "$T/out" "\"description\": \"|" "no indicator in the text"
run show block-indicator-text --json --root "$R"
has "$T/out" "\"description\": \"Use when a changelog entry needs rewording.\"" \
	"the text after the indicator is the description"
run list --json --root "$R"
has "$T/out" "\"argument_hint\": \"[chapter number or title]\"" \
	"the hint reads as it was written"

# ---------------------------------------------------------------- pack
run pack -o "$T/all.zip" "$R/flow-lists" "$R/acme-pdf-v2" "$R/client-fields"
expect_rc 0 "pack with the loading rules"
run pack --strict -o "$T/strict.zip" "$R/flow-lists"
expect_rc 1 "pack --strict refuses flow YAML"
run install --root "$W/packed" "$T/all.zip"
expect_rc 0 "install the pack"
[ -f "$W/packed/acme-pdf-v2/SKILL.md" ] && reg_pass ||
	reg_fail "pack: a skill keeps the name it is known by"
# a symbolic link to a skill folder packs what it leads to
ln -s "$R/flow-lists" "$W/linked"
run pack -o "$T/linked.zip" "$W/linked"
expect_rc 0 "pack of a symlinked skill folder"
run install --root "$W/fromlink" "$T/linked.zip"
expect_rc 0 "install the pack of a symlinked folder"
[ -f "$W/fromlink/flow-lists/SKILL.md" ] && reg_pass ||
	reg_fail "pack of a link: the skill inside"

reg_done
