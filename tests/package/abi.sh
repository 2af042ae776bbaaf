#!/bin/sh
# abi.sh - libskit.so's ABI against the baseline kept in the repository
# (abi/libskit.abi.xz, written by scripts/abi-update.sh): any change to
# what the exported functions take or return, or a function removed,
# fails here until the baseline is updated on purpose (and, for a break,
# the soname with it: docs/embedding.md). Skipped (77) in a sanitizer
# build, whose instrumented library is not the one shipped.
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"
reg_setup
if [ -n "${SKIT_SANITIZE:-}" ]; then
	echo "abi: a sanitizer build is not the shipped library; skipped"
	exit 77
fi
if ! command -v abidiff >/dev/null 2>&1; then
	echo "abi: abidiff not found (scripts/install-deps.sh installs abigail-tools)"
	exit 1
fi
xz -dc "$SKIT_SOURCE_DIR/abi/libskit.abi.xz" >"$T/baseline.abi" ||
	reg_fail "cannot read abi/libskit.abi.xz"
abidiff --headers-dir1 "$SKIT_SOURCE_DIR/include/skit" \
	--headers-dir2 "$SKIT_SOURCE_DIR/include/skit" \
	"$T/baseline.abi" "$SKIT_LIBRARY" >"$T/diff" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	reg_pass
else
	sed 's/^/  /' "$T/diff" | head -n 40
	reg_fail "libskit.so's ABI differs from abi/libskit.abi.xz (abidiff $rc);" \
		"if that is meant, run scripts/abi-update.sh and say so in the commit"
fi
reg_done
