#!/bin/sh
# spec_text.sh - the default text format of `skit validate`: the same
# verdicts and messages as the reference, as gcc-style lines
#   FILE:LINE:COL: error: MESSAGE [code]   (or FILE: error: MESSAGE [code])
# on stderr, in the reference's order, and "Valid skill: PATH" on stdout on
# success. FILE is the SKILL.md path when there is one, else the folder.
# Also: a name error points at the name: line; --lenient turns unknown
# fields into warnings; --strict makes warnings fail; --format json keeps
# the exit status.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup
spec_make_cases "$W"

# error_lines FILE : the diagnostics lines that are errors.
error_lines() {
	grep -e ': error: ' "$1"
}

spec_cases | grep '|exact$' >"$T/cases"
while IFS='|' read -r id cwd arg kind; do
	spec_expand "$id" "$cwd" || { spec_fail "$id: bad case"; continue; }
	c=$REPLY
	spec_expand "$id" "$arg"
	a=$REPLY
	exp=$SPEC_EXP/$id.validate
	want_rc=$(sed -n 's/^exit //p' "$exp")
	spec_run "$W/$id/$c" validate "$a"
	spec_no_crash "$id (text)" || continue
	spec_expect_rc "$id (text)" "$want_rc"
	if [ "$want_rc" -eq 0 ]; then
		# stdout is the reference's success line.
		sed -n '/^--- stdout$/,/^--- stderr$/p' "$exp" | sed '1d;$d' >"$T/want"
		if cmp -s "$T/want" "$T/out"; then
			spec_pass
		else
			spec_fail "$id (text): stdout"
			diff -u "$T/want" "$T/out" | head -10
		fi
		if error_lines "$T/err" >/dev/null; then
			spec_fail "$id (text): error lines on a valid skill"
			head -5 "$T/err"
		fi
		continue
	fi
	if grep -q '^Valid skill' "$T/out"; then
		spec_fail "$id (text): 'Valid skill' printed for an invalid skill"
	fi
	# The messages, in order, each on its own error line with a [code].
	sed -n 's/^  - //p' "$exp" >"$T/msgs"
	error_lines "$T/err" >"$T/lines"
	n_want=$(wc -l <"$T/msgs" | tr -d ' ')
	n_got=$(wc -l <"$T/lines" | tr -d ' ')
	if [ "$n_want" -ne "$n_got" ]; then
		spec_fail "$id (text): $n_got error lines, expected $n_want"
		cat "$T/msgs"
		echo "  got:"
		cat "$T/err"
		continue
	fi
	# The FILE part, checked when the argument is the folder itself.
	file=
	if [ "$arg" = "@" ]; then
		if [ -f "$W/$id/$a/SKILL.md" ]; then
			file=$a/SKILL.md
		elif [ -f "$W/$id/$a/skill.md" ]; then
			file=$a/skill.md
		else
			file=$a
		fi
	fi
	i=0
	while IFS= read -r msg; do
		i=$((i + 1))
		line=$(sed -n "${i}p" "$T/lines")
		case $line in
		?*": error: ${msg} ["?*"]") spec_pass ;;
		*)
			spec_fail "$id (text): error $i"
			echo "  want: ...: error: $msg [code]"
			echo "  got:  $line"
			continue
			;;
		esac
		if [ -n "$file" ]; then
			where=${line%%": error: "*}
			where=$(printf '%s\n' "$where" | sed -e 's/:[0-9][0-9]*:[0-9][0-9]*$//' -e 's/:[0-9][0-9]*$//')
			if [ "$where" = "$file" ]; then
				spec_pass
			else
				spec_fail "$id (text): error $i names '$where', expected '$file'"
			fi
		fi
	done <"$T/msgs"
done <"$T/cases"

# --- YAML syntax errors: one error line, the reference's prefix, a [code]
spec_cases | grep '|yaml' >"$T/cases"
while IFS='|' read -r id cwd arg kind; do
	spec_expand "$id" "$arg" || { spec_fail "$id: bad case"; continue; }
	a=$REPLY
	spec_run "$W/$id" validate "$a"
	spec_no_crash "$id (text)" || continue
	spec_expect_rc "$id (text)" 1
	error_lines "$T/err" >"$T/lines"
	spec_expect_lines "$id (text): one error line" "$T/lines" 1
	case $(cat "$T/lines") in
	"$a/SKILL.md"*": error: Invalid YAML in frontmatter: "?*" ["?*"]") spec_pass ;;
	*) spec_fail "$id (text): $(head -c 300 "$T/lines")" ;;
	esac
done <"$T/cases"

# --- a name error points at the name: line (line 3 here)
spec_run "$W/text-name-line" validate Bad-Name
spec_expect_rc "text: name line" 1
spec_expect_grep "text: name error at line 3" "$T/err" \
	"Bad-Name/SKILL.md:3:"
case $(grep -e 'must be lowercase' "$T/err") in
"Bad-Name/SKILL.md:3:"*) spec_pass ;;
*) spec_fail "text: the lowercase error is not at Bad-Name/SKILL.md:3: $(cat "$T/err")" ;;
esac

# --- --lenient: fields outside the spec do not fail; the fields clients
# use (version...) are known, and a field no client uses (colour) is a
# warning naming it
mkdir -p "$W/lenient-unknown/lenient-unknown"
printf -- '---\nname: lenient-unknown\ndescription: Unknown field.\nversion: 1\ncolour: blue\n---\n' \
	>"$W/lenient-unknown/lenient-unknown/SKILL.md"
spec_run "$W/lenient-unknown" validate --lenient lenient-unknown
spec_no_crash "lenient" && {
	spec_expect_rc "lenient: exit status" 0
	spec_expect_grep "lenient: success line" "$T/out" "Valid skill: lenient-unknown"
	spec_expect_grep "lenient: warning" "$T/err" "warning: "
	spec_expect_grep "lenient: names the field" "$T/err" "colour"
	if grep -q "version" "$T/err"; then
		spec_fail "lenient: a known client field is warned: $(cat "$T/err")"
	else
		spec_pass
	fi
	if error_lines "$T/err" >/dev/null; then
		spec_fail "lenient: error lines: $(cat "$T/err")"
	else
		spec_pass
	fi
}
spec_run "$W/lenient-fields" validate --format reference --lenient lenient-fields
spec_expect_rc "lenient, reference format" 0
spec_expect_grep "lenient, reference format: success line" "$T/out" \
	"Valid skill: lenient-fields"
# --strict: warnings fail.
spec_run "$W/lenient-unknown" validate --lenient --strict lenient-unknown
spec_expect_rc "lenient + strict: warnings fail" 1
# Without --lenient the fields are the reference's error (exit 1).
spec_run "$W/lenient-fields" validate lenient-fields
spec_expect_rc "strict by default" 1
spec_expect_grep "strict by default: message" "$T/err" \
	"error: Unexpected fields in frontmatter: disable-model-invocation, user-invocable, version."
# --strict on a skill with no warnings at all is still valid.
spec_run "$W/valid-basic" validate --strict my-skill
spec_expect_rc "strict, no warnings" 0

# --- a lint (body over 500 lines) is a warning, fatal only with --strict
mkdir -p "$W/lint/long-body"
{
	printf -- '---\nname: long-body\ndescription: A long body\n---\n'
	awk 'BEGIN { for (i = 1; i <= 600; i++) printf "Line %d.\n", i }'
} >"$W/lint/long-body/SKILL.md"
spec_run "$W/lint" validate long-body
spec_expect_rc "lint: warning only" 0
spec_expect_grep "lint: warning printed" "$T/err" "warning: "
spec_run "$W/lint" validate --format reference long-body
spec_expect_rc "lint, reference format" 0
spec_expect_grep "lint, reference format: success line" "$T/out" "Valid skill: long-body"
spec_run "$W/lint" validate --strict long-body
spec_expect_rc "lint + strict" 1

# --- --format json keeps the exit status
spec_run "$W/valid-basic" validate --format json my-skill
spec_expect_rc "json: valid" 0
spec_run "$W/name-all-rules" validate --format json other
spec_expect_rc "json: invalid" 1

spec_done
