#!/bin/sh
# abi-update.sh [BUILD] - record libskit.so's ABI as the new baseline
# (abi/libskit.abi.xz), on purpose: after adding to the public API, or
# after a break that comes with a new soname (docs/embedding.md, "ABI and
# versions"). tests/package/abi.sh compares every build with it.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
[ -f "$BUILD/libskit.so" ] || { echo "abi-update: build first ($BUILD/libskit.so)" >&2; exit 1; }
mkdir -p abi
abidw --no-corpus-path --headers-dir include/skit "$BUILD/libskit.so" |
	xz -9 >abi/libskit.abi.xz.tmp
mv abi/libskit.abi.xz.tmp abi/libskit.abi.xz
echo "abi-update: abi/libskit.abi.xz now records $(readlink "$BUILD/libskit.so")"
