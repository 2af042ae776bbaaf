#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz_findings.sh - what the fuzz harnesses found, through the CLI: a
# diagnostic that quotes a SKILL.md value holding an escape sequence
# prints no escape byte; a config whose JSON error quotes a raw control
# byte gives a one-line error.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

mkdir -p ab
printf -- '---\nname: "a\\u001b[31mred"\ndescription: x\n---\nbody\n' \
	>ab/SKILL.md
run validate ab
expect_rc 1 "validate: an invalid name"
has "$T/err" "red" "validate quotes the name"
if tr -d '\033' <"$T/err" | cmp -s - "$T/err"; then
	reg_pass
else
	reg_fail "validate printed an escape byte"
fi

mkdir -p proj/.git proj/.agents
printf '{"permissions": {"ask": ["Rea\\ud\r\000"]}}' \
	>proj/.agents/skit.json
cd proj || exit 1
run list
[ "$rc" -ne 0 ] && reg_pass || reg_fail "list with a broken config: exit 0"
lines "$T/err" 1 "the config error is one line"
if tr -d '\r' <"$T/err" | cmp -s - "$T/err"; then
	reg_pass
else
	reg_fail "the config error holds a carriage return"
fi
cd "$W" || exit 1

reg_done
