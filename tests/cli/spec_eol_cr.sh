#!/bin/sh
# spec_eol_cr.sh - every exact case with lone-CR line endings gives the
# reference's output unchanged (SPEC-RULES.md section 2.1; HOSTILE.md C8).

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_eol_run cr
spec_done
