#!/bin/sh
# run.sh - the Python package's tests (tests/python/test_*.py, pytest),
# as CTest runs them (issue 33). Environment from tests/CMakeLists.txt:
# SKIT_LIBRARY (the built libskit.so), SKIT, SKIT_SOURCE_DIR,
# SKIT_BINARY_DIR, SKIT_TEST_DIR, SKIT_SANITIZE, SKIT_CC. The interpreter is
# $SKIT_PYTHON, else the first python3 that has pytest (Debian's
# python3-pytest is in /usr/bin; scripts/install-deps.sh installs it).
set -u
: "${SKIT_SOURCE_DIR:=$(pwd)}"
: "${SKIT_TEST_DIR:=${TMPDIR:-/tmp}/skit-python-$$}"

if [ -n "${SKIT_SANITIZE:-}" ]; then
	# A sanitized libskit loads into python3 only with the sanitizers'
	# runtimes loaded first: preload those of the compiler that built
	# it (gcc's names, else clang's). CPython itself is not built for
	# LeakSanitizer, so leak checks are off here; test_leak.py counts
	# the library's own allocations instead.
	CC=${SKIT_CC:-cc}
	pre=
	for rt in libasan.so libclang_rt.asan-x86_64.so \
		libubsan.so libclang_rt.ubsan_standalone-x86_64.so; do
		case $rt in
		*asan*) case ",$SKIT_SANITIZE," in *,address,*) ;; *) continue ;; esac ;;
		*) case ",$SKIT_SANITIZE," in *,undefined,*) ;; *) continue ;; esac ;;
		esac
		f=$("$CC" -print-file-name="$rt" 2>/dev/null)
		[ -f "$f" ] && pre="$pre $f"
	done
	if [ -z "$pre" ]; then
		echo "skipped: no sanitizer runtime of $CC to preload into python3 (SKIT_SANITIZE=$SKIT_SANITIZE)"
		exit 77
	fi
	LD_PRELOAD="${pre# }${LD_PRELOAD:+ $LD_PRELOAD}"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export LD_PRELOAD ASAN_OPTIONS
fi

PY=
for p in ${SKIT_PYTHON:-} python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 &&
		"$p" -c 'import pytest' >/dev/null 2>&1; then
		PY=$p
		break
	fi
done
if [ -z "$PY" ]; then
	echo "python: no python3 with pytest (scripts/install-deps.sh installs python3-pytest)" >&2
	exit 1
fi

rm -rf "$SKIT_TEST_DIR"
mkdir -p "$SKIT_TEST_DIR" || exit 1
# Nothing is written into the source tree: no bytecode, no pytest cache.
PYTHONDONTWRITEBYTECODE=1
SKIT_PYTHON=$PY
export PYTHONDONTWRITEBYTECODE SKIT_PYTHON SKIT_TEST_DIR SKIT_SOURCE_DIR
exec "$PY" -m pytest -q -p no:cacheprovider --basetemp="$SKIT_TEST_DIR/pytest" \
	"$SKIT_SOURCE_DIR/tests/python" </dev/null
