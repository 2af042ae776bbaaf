#!/bin/sh
# cli_demo.sh - `make demo`'s script runs end to end and, off a terminal,
# prints no escape codes.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup

env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY sh "$SKIT_SOURCE_DIR/scripts/demo.sh" "$SKIT" \
	>"$T/out" 2>"$T/err" </dev/null
rc=$?
spec_expect_rc "demo" 0
spec_expect_grep "demo: the agent answered" "$T/out" "demo: done"
esc=$(printf '\033')
if grep -q "$esc" "$T/out" "$T/err"; then
	spec_fail "demo: escape codes off a terminal"
else
	spec_pass
fi
spec_done
