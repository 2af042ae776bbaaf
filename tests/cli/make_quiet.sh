#!/bin/sh
# make_quiet.sh - `make test` and `make build` print no "make[N]: Entering
# directory" lines (issue 35, point 14). The top Makefile runs `cmake
# --build`, that is make inside make; a probe target added to the real
# Makefile runs a sub-make the same way, and neither level may print the
# directory lines. (The real targets install packages and build
# everything: too much for a test.)
. "$(dirname "$0")/registry_lib.inc"
reg_setup
if ! command -v make >/dev/null 2>&1; then
	echo "make not found: skipped"
	exit 77
fi
cd "$W" || exit 1
cat >sub.mk <<'MK'
all:
	@echo sub-make ran
MK
cat >probe.mk <<MK
include $SKIT_SOURCE_DIR/Makefile
probe:
	@\$(MAKE) -f $W/sub.mk
	@\$(MAKE) -C $W -f $W/sub.mk
MK
make -f probe.mk probe >"$T/out" 2>&1 </dev/null
rc=$?
expect_rc 0 "make probe"
has "$T/out" "sub-make ran" "the sub-make ran"
lacks "$T/out" "Entering directory" "no 'Entering directory' lines"
lacks "$T/out" "Leaving directory" "no 'Leaving directory' lines"
reg_done
