#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_lock.sh - a hostile .skit-lock.json through the CLI: an entry that
# is not a valid skill (it once made the loader read freed memory) gives
# one clean line naming the entry and a non-zero exit for verify,
# list --installed, install --from-lock and an install into that root.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

R=$W/R
mkdir -p "$R"
printf '{"version":1,"skills":{"aaaaaaaaaaaaaaaaaaaaaaaa":1}}' \
	>"$R/.skit-lock.json"
cp "$R/.skit-lock.json" "$T/lock.orig"

run verify --root "$R"
expect_rc 1 "verify with an invalid lock entry"
lines "$T/err" 1 "verify: the error is one line"
has "$T/err" '"aaaaaaaaaaaaaaaaaaaaaaaa" is not a valid entry' \
	"verify names the entry"

run list --installed --root "$R"
expect_rc 1 "list --installed with an invalid lock entry"
lines "$T/err" 1 "list --installed: the error is one line"
has "$T/err" "aaaaaaaaaaaaaaaaaaaaaaaa" "list --installed names the entry"

run install --root "$W/R2" --from-lock "$R/.skit-lock.json"
expect_rc 1 "install --from-lock with an invalid lock entry"
lines "$T/err" 1 "install --from-lock: the error is one line"
has "$T/err" "aaaaaaaaaaaaaaaaaaaaaaaa" "install --from-lock names the entry"
[ ! -e "$W/R2/.skit-lock.json" ] && reg_pass ||
	reg_fail "install --from-lock wrote a lock file"

skill "$W/src" gamma
run install --root "$R" "$W/src/gamma"
expect_rc 1 "install into a root with an invalid lock entry"
lines "$T/err" 1 "install: the error is one line"
has "$T/err" "aaaaaaaaaaaaaaaaaaaaaaaa" "install names the entry"
[ ! -e "$R/gamma" ] && reg_pass || reg_fail "install went ahead"
cmp -s "$R/.skit-lock.json" "$T/lock.orig" && reg_pass ||
	reg_fail "the lock file changed"

reg_done
