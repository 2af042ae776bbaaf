#!/bin/sh
# cli_completion.sh - the shell completions (completions/) offer commands,
# options and skill names through `skit __complete`; bash and fish are
# driven for real, zsh's file is parsed (zsh has no batch completion mode).

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup
C=$SKIT_SOURCE_DIR/completions
mkdir -p "$W/p/.agents/skills"
cp -R "$SKIT_SOURCE_DIR/examples/skills/csv-report" \
	"$SKIT_SOURCE_DIR/examples/skills/code-review" "$W/p/.agents/skills/"
BIN=$(dirname "$SKIT")
export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config"
mkdir -p "$HOME"

# --- __complete itself
spec_run "$W/p" __complete commands
spec_expect_grep "__complete commands" "$T/out" "validate"
spec_run "$W/p" __complete options validate
spec_expect_grep "__complete options: long" "$T/out" "--strict"
spec_expect_grep "__complete options: short" "$T/out" "-q"
spec_run "$W/p" __complete skills
spec_expect_grep "__complete skills" "$T/out" "csv-report"
spec_expect_empty "__complete skills: stderr" "$T/err"
spec_run "$W/p" __complete nonsense
spec_expect_rc "__complete nonsense" 2

# --- bash: run the completion function on a command line
bash_complete() {
	(cd "$W/p" && PATH="$BIN:$PATH" bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_skit; printf "%s\n" "${COMPREPLY[@]}"' bash "$C/skit.bash" "$@") \
		>"$T/comp" 2>&1
}
if command -v bash >/dev/null 2>&1; then
	bash_complete skit val
	spec_expect_grep "bash: command" "$T/comp" "validate"
	bash_complete skit validate --st
	spec_expect_grep "bash: option" "$T/comp" "--strict"
	bash_complete skit show cs
	spec_expect_grep "bash: skill name" "$T/comp" "csv-report"
	bash_complete skit run /co
	spec_expect_grep "bash: /skill" "$T/comp" "/code-review"
else
	spec_fail "bash is missing"
fi

# --- fish
if command -v fish >/dev/null 2>&1; then
	(cd "$W/p" && PATH="$BIN:$PATH" fish -c "source '$C/skit.fish'
		complete -C'skit val'; complete -C'skit show cs'
		complete -C'skit validate --st'; complete -C'skit run /co'") \
		>"$T/comp" 2>&1
	spec_expect_grep "fish: command" "$T/comp" "validate"
	spec_expect_grep "fish: skill name" "$T/comp" "csv-report"
	spec_expect_grep "fish: option" "$T/comp" "--strict"
	spec_expect_grep "fish: /skill" "$T/comp" "/code-review"
else
	echo "NOTE: fish not installed (scripts/install-deps.sh installs it); fish completion not driven"
fi

# --- zsh: the file parses
if command -v zsh >/dev/null 2>&1; then
	if zsh -n "$C/_skit"; then spec_pass; else spec_fail "zsh: _skit does not parse"; fi
else
	echo "NOTE: zsh not installed; _skit not parsed"
fi

# --- man pages generated at build time (when help2man is present)
M=$(dirname "$SKIT")/man
if [ -f "$M/skit.1" ]; then
	for f in skit.1 skit-validate.1 skit-run.1 skit-install.1; do
		if [ -s "$M/$f" ]; then spec_pass; else spec_fail "man page $f missing"; fi
	done
	spec_expect_grep "man: validate options" "$M/skit-validate.1" '\-\-strict'
	spec_expect_grep "man: synopsis" "$M/skit-validate.1" ".SH SYNOPSIS"
elif command -v help2man >/dev/null 2>&1; then
	spec_fail "help2man is installed but the build made no man pages"
fi

spec_done
