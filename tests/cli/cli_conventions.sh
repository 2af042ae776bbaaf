#!/bin/sh
# cli_conventions.sh - the conventions of docs/cli.md: `skit help CMD`,
# `-V`, "did you mean" for mistyped commands, exit 2 for usage errors.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup

# --- skit help CMD is the command's own --help
spec_run "$W" help validate
spec_expect_rc "help validate" 0
"$SKIT" validate --help >"$T/direct" 2>&1
if cmp -s "$T/out" "$T/direct"; then spec_pass; else spec_fail "help validate differs from validate --help"; fi
spec_run "$W" help
spec_expect_rc "help" 0
spec_expect_grep "help: lists commands" "$T/out" "  validate "
spec_run "$W" help nosuch
spec_expect_rc "help nosuch" 2
spec_run "$W" help validate list
spec_expect_rc "help with two names" 2

# --- -V and --version
spec_run "$W" -V
spec_expect_rc "-V" 0
spec_expect_grep "-V: version" "$T/out" "skit 0."
spec_run "$W" --version
spec_expect_grep "--version: version" "$T/out" "skit 0."

# --- did you mean
spec_run "$W" valdiate x
spec_expect_rc "valdiate" 2
spec_expect_grep "valdiate: suggestion" "$T/err" "Did you mean 'skit validate'"
spec_run "$W" lsit
spec_expect_grep "lsit: suggestion" "$T/err" "Did you mean 'skit list'"
spec_run "$W" frobnicate
spec_expect_rc "frobnicate" 2
if grep -q "Did you mean" "$T/err"; then spec_fail "frobnicate: suggestion for a far word"; else spec_pass; fi
spec_run "$W" --frob
spec_expect_rc "--frob" 2
spec_expect_grep "--frob: named" "$T/err" "unknown option '--frob'"

spec_done
