#!/bin/sh
# cli_demo.sh - `make demo`'s script runs end to end and, off a terminal,
# prints no escape codes.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup

# A home of its own: the demo's agent records its session in the user
# config's ledger, which must not be the real user's.
mkdir -p "$T/home"
env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY HOME="$T/home" \
	XDG_CONFIG_HOME="$T/home/.config" \
	sh "$SKIT_SOURCE_DIR/scripts/demo.sh" "$SKIT" \
	>"$T/out" 2>"$T/err" </dev/null
rc=$?
spec_expect_rc "demo" 0
spec_expect_grep "demo: the agent answered" "$T/out" "demo: done"
# The demo ends saying how to type a bare `skit`, as the README's tour
# does (issue 35, point 3): its export line, run in a shell, puts this
# very binary first on PATH.
line=$(grep -E '^  export PATH="[^"]*:\$PATH"' "$T/out" | head -n 1)
line=${line%%#*}
if [ -z "$line" ]; then
	spec_fail "demo: no 'export PATH=...' line for the tour"
else
	got=$(env -i PATH=/usr/bin:/bin sh -c "$line && command -v skit")
	if [ "$got" -ef "$SKIT" ]; then
		spec_pass
	else
		spec_fail "demo: the export line finds '$got', not $SKIT"
	fi
fi
spec_expect_grep "demo: the install line" "$T/out" "sudo cmake --install"
esc=$(printf '\033')
if grep -q "$esc" "$T/out" "$T/err"; then
	spec_fail "demo: escape codes off a terminal"
else
	spec_pass
fi
spec_done
