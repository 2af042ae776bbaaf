#!/bin/sh
# SPDX-License-Identifier: MIT
# pack_durability.sh - the order of an install's writes, renames and
# fsyncs (docs/install.md, "Committing, and crashes"), read from strace:
#   - every staged file is fsynced before the journal, and there is no
#     syncfs;
#   - the root is fsynced after the last move and before the lock file
#     is renamed into place;
#   - after a kill mid-commit (strace injects SIGKILL at a chosen
#     renameat2), the recovery swaps the old skill back with one
#     RENAME_EXCHANGE and fsyncs the root and the staging folder before
#     journal.json is removed;
#   - a failed lock write (strace injects ENOSPC at its rename) rolls
#     back the same way, and the error names the lock file;
# and a real full disk (a 256 KiB tmpfs in a private mount namespace):
# the error names the file that did not fit, and nothing is installed.
# Without strace (or where it cannot trace), or without a way to mount a
# tmpfs, those parts say so and are skipped.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

# Two versions of two skills.
mkdir v1 v2
(cd v1 && "$SKIT" init --description "Alpha skill. Use when testing." \
	./alpha >/dev/null && "$SKIT" init \
	--description "Beta skill. Use when testing." ./beta >/dev/null) ||
	exit 1
cp -R v1/alpha v1/beta v2/ || exit 1
echo "Version two." >>v2/alpha/SKILL.md
echo "Version two." >>v2/beta/SKILL.md

# fresh ROOT: ROOT holds v1.
fresh() {
	rm -rf "$1"
	"$SKIT" install --root "$1" "$W/v1" >/dev/null 2>&1 ||
		reg_fail "installing v1 into $1"
}

# line_of FILE ERE [AFTER]: the number of the first line after line AFTER
# (default 0) that matches ERE, or 0.
line_of() {
	awk -v re="$2" -v after="${3:-0}" \
		'NR > after && $0 ~ re { print NR; found = 1; exit }
		 END { if (!found) print 0 }' "$1"
}

# last_line_of FILE ERE: the number of the last line matching ERE, or 0.
last_line_of() {
	awk -v re="$2" '$0 ~ re { n = NR } END { print n + 0 }' "$1"
}

# before A B DESCRIPTION: line A comes before line B (both found).
before() {
	if [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$1" -lt "$2" ]; then
		reg_pass
	else
		reg_fail "$3 (lines $1 and $2)"
	fi
}

# st ARGS...: strace -f (fds shown as paths) into $T/trace, then skit.
st() {
	timeout 60 strace -f -y -qq -o "$T/trace" \
		-e trace=fsync,fdatasync,syncfs,sync,renameat,renameat2,unlinkat \
		"$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# LeakSanitizer cannot run under ptrace: leaks are checked by the other
# tests, not by these traced runs.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

if command -v strace >/dev/null 2>&1 &&
	strace -f -qq -o /dev/null true >/dev/null 2>&1; then
	R=$W/R
	# ------------------------------------------------ the commit
	fresh "$R"
	st "$SKIT" install --force --root "$R" "$W/v2"
	expect_rc 0 "install v2 under strace"
	lacks "$T/trace" "syncfs(" "no whole-file-system syncfs"
	lacks "$T/trace" " sync(" "no sync"
	journal=$(line_of "$T/trace" '"journal\.json\.tmp-[0-9]+", .*"journal\.json"\)')
	staged=$(last_line_of "$T/trace" 'fsync\([0-9]+<[^>]*/\.staging-[a-z0-9]+/new/beta/SKILL\.md>\)')
	before "$staged" "$journal" "each staged file is fsynced before the journal"
	moved=$(last_line_of "$T/trace" 'renameat2\(.*"new/(alpha|beta)", [0-9]+<'"$R"'>, "(alpha|beta)", RENAME_EXCHANGE\)')
	rootsync=$(line_of "$T/trace" 'fsync\([0-9]+<'"$R"'>\)' "$moved")
	lock=$(line_of "$T/trace" '"\.skit-lock\.json\.tmp-[0-9]+", .*"\.skit-lock\.json"\)')
	before "$moved" "$rootsync" "the root is fsynced after the last move"
	before "$rootsync" "$lock" "the root is fsynced before the lock is written"
	gone=$(line_of "$T/trace" 'unlinkat\(.*"journal\.json", 0\)')
	lastsync=$(last_line_of "$T/trace" 'fsync\([0-9]+<'"$R"'>\)')
	before "$lock" "$lastsync" "the root is fsynced after the lock"
	before "$lastsync" "$gone" "... and before the journal is removed"

	# ------------------------------------------------ recovery
	# Killed at its second move: alpha is new, beta old.
	fresh "$R"
	timeout 60 strace -f -qq -o /dev/null \
		-e inject=renameat2:signal=SIGKILL:when=2 \
		"$SKIT" install --force --root "$R" "$W/v2" >/dev/null 2>&1
	ls -a "$R" | grep -q '^\.staging-' && reg_pass ||
		reg_fail "the kill left no staging folder"
	grep -q "Version two" "$R/alpha/SKILL.md" && reg_pass ||
		reg_fail "the kill came before the first move"
	st "$SKIT" verify --root "$R"
	expect_rc 0 "verify recovers and verifies"
	grep -q "Version two" "$R/alpha/SKILL.md" && reg_fail \
		"recovery left the new alpha" || reg_pass
	has "$T/trace" '"new/alpha", ' "recovery moves alpha back"
	swap=$(line_of "$T/trace" 'renameat2\(.*"new/alpha", [0-9]+<'"$R"'>, "alpha", RENAME_EXCHANGE\) = 0')
	[ "$swap" -gt 0 ] && reg_pass ||
		reg_fail "recovery swaps alpha back with one RENAME_EXCHANGE"
	lacks "$T/trace" '"undo/alpha"' "recovery never takes alpha out of the root"
	gone=$(line_of "$T/trace" 'unlinkat\(.*"journal\.json", 0\)')
	rootsync=$(line_of "$T/trace" 'fsync\([0-9]+<'"$R"'>\)' "$swap")
	stagesync=$(line_of "$T/trace" 'fsync\([0-9]+<'"$R"'/\.staging-[a-z0-9]+>\)' "$swap")
	before "$rootsync" "$gone" "recovery fsyncs the root before removing the journal"
	before "$stagesync" "$gone" "recovery fsyncs the staging folder before removing the journal"
	ls -a "$R" | grep -q '^\.staging-' && reg_fail \
		"recovery left the staging folder" || reg_pass

	# ------------------------------------------------ rollback
	# Which renameat writes the lock file (the same run on a twin root),
	# then the same install with ENOSPC injected at that rename.
	fresh "$W/twin"
	timeout 60 strace -f -qq -o "$T/renames" -e trace=renameat \
		"$SKIT" install --force --root "$W/twin" "$W/v2" >/dev/null 2>&1
	n=$(line_of "$T/renames" '"\.skit-lock\.json"\)')
	fresh "$R"
	timeout 60 strace -f -y -qq -o "$T/trace" \
		-e trace=fsync,renameat,renameat2,unlinkat \
		-e inject=renameat:error=ENOSPC:when="$n" \
		"$SKIT" install --force --root "$R" "$W/v2" >"$T/out" 2>"$T/err"
	rc=$?
	expect_rc 1 "a lock file that cannot be written fails the install"
	has "$T/err" "$R/.skit-lock.json: No space left on device" \
		"the error names the lock file"
	grep -q "Version two" "$R/alpha/SKILL.md" "$R/beta/SKILL.md" &&
		reg_fail "the rollback left a new skill" || reg_pass
	swap=$(last_line_of "$T/trace" 'renameat2\(.*"new/(alpha|beta)", [0-9]+<'"$R"'>, "(alpha|beta)", RENAME_EXCHANGE\) = 0')
	gone=$(line_of "$T/trace" 'unlinkat\(.*"journal\.json", 0\)')
	rootsync=$(line_of "$T/trace" 'fsync\([0-9]+<'"$R"'>\)' "$swap")
	stagesync=$(line_of "$T/trace" 'fsync\([0-9]+<'"$R"'/\.staging-[a-z0-9]+>\)' "$swap")
	before "$swap" "$gone" "the rollback swaps back before the journal goes"
	before "$rootsync" "$gone" "the rollback fsyncs the root before removing the journal"
	before "$stagesync" "$gone" "the rollback fsyncs the staging folder before removing the journal"
	lacks "$T/trace" '"undo/' "the rollback never takes a skill out of the root"
	run verify --root "$R"
	expect_rc 0 "the root verifies after the rollback"
else
	echo "SKIPPED: strace is missing or cannot trace here; the" \
		"durability-order checks did not run"
fi

# ------------------------------------------------------- a full disk
# A folder source with a file bigger than the whole tmpfs.
mkdir -p big || exit 1
(cd big && "$SKIT" init --description "Big skill. Use when testing." \
	./big >/dev/null) || exit 1
head -c 600000 /dev/urandom | od -An -tx1 >big/big/references/blob.txt
M=$W/mnt
mkdir -p "$M"
cat >"$T/full.sh" <<EOF
mount -t tmpfs -o size=256k tmpfs "$M" || exit 99
"$SKIT" install --root "$M/root" "$W/big" >"$T/out" 2>"$T/err"
echo \$? >"$T/rc"
ls -A "$M/root" >"$T/left"
EOF
mounted=no
if unshare -m sh "$T/full.sh" 2>/dev/null; then
	mounted=yes
elif unshare -rm sh "$T/full.sh" 2>/dev/null; then
	mounted=yes
fi
if [ "$mounted" = yes ]; then
	rc=$(cat "$T/rc")
	expect_rc 1 "install onto a full disk fails"
	has "$T/err" "No space left on device" "the error says the disk is full"
	has "$T/err" "/big/references/blob.txt: No space left on device" \
		"the error names the file that did not fit"
	lines "$T/err" 1 "the error is one line"
	grep -v -e '^\.skit\.lock$' "$T/left" >"$T/left2"
	[ ! -s "$T/left2" ] && reg_pass ||
		reg_fail "a full disk left $(cat "$T/left2")"
else
	echo "SKIPPED: cannot mount a tmpfs in a private mount namespace" \
		"here (unshare -m, unshare -rm); the full-disk check did not run"
fi

reg_done
