#!/bin/sh
# install.sh - libskit as an outside program gets it (issue 30): `cmake
# --install` into a temporary prefix, then a consumer (consumer/) built
# against the install with pkg-config (libskit.so, and libskit.a with
# --static) and with CMake (find_package(skit): skit::libskit and
# skit::libskit_static), each run from a folder of its own. Then the
# prefix is moved elsewhere and everything is done again (the pc file
# and the CMake package are relocatable), and the moved skit still finds
# its scan rules and builtin skills.
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"
reg_setup
command -v pkg-config >/dev/null 2>&1 || reg_fail "pkg-config is needed"
CC=${CC:-cc}
SAN=
[ -n "${SKIT_SANITIZE:-}" ] && SAN="-fsanitize=$SKIT_SANITIZE"
SKILLS=$SKIT_SOURCE_DIR/examples/skills
CONS=$SKIT_SOURCE_DIR/tests/package/consumer

# consumers PREFIX TAG: build and run every consumer against PREFIX.
consumers() {
	P=$1 tag=$2
	out=$T/$tag
	mkdir -p "$out"
	PKG_CONFIG_PATH=$P/lib/pkgconfig
	export PKG_CONFIG_PATH
	# The public headers need none of the dependencies' flags.
	cf=$(pkg-config --cflags skit)
	set -- $cf
	inc=${1#-I}
	[ $# -eq 1 ] && [ "$(cd "$inc" 2>/dev/null && pwd -P)" = "$(cd "$P/include" && pwd -P)" ] &&
		reg_pass || reg_fail "$tag: pkg-config --cflags skit: '$cf'"
	# shellcheck disable=SC2046
	if $CC $SAN -o "$out/c-shared" "$CONS/consumer.c" \
		$(pkg-config --cflags --libs skit) -Wl,-rpath,"$P/lib" \
		2>"$out/cc1.err"; then
		reg_pass
	else
		reg_fail "$tag: pkg-config link (shared): $(head -c 600 "$out/cc1.err")"
	fi
	(cd "$out" && ./c-shared "$SKILLS") >"$out/run1" 2>&1 &&
		grep -q "^consumer ok" "$out/run1" && reg_pass ||
		reg_fail "$tag: shared consumer: $(cat "$out/run1")"
	# libskit.a: the dependencies come from Libs.private.
	# shellcheck disable=SC2046
	if $CC $SAN -o "$out/c-static" "$CONS/consumer.c" \
		$(pkg-config --cflags skit) "$P/lib/libskit.a" \
		$(pkg-config --static --libs-only-other --libs-only-l skit |
			sed 's/-lskit\b//') 2>"$out/cc2.err"; then
		reg_pass
	else
		reg_fail "$tag: pkg-config link (static): $(head -c 600 "$out/cc2.err")"
	fi
	(cd "$out" && ./c-static "$SKILLS") >"$out/run2" 2>&1 &&
		grep -q "^consumer ok" "$out/run2" && reg_pass ||
		reg_fail "$tag: static consumer: $(cat "$out/run2")"
	# CMake: find_package(skit).
	rm -rf "$out/cm"
	if cmake -S "$CONS" -B "$out/cm" -DCMAKE_PREFIX_PATH="$P" \
		-DCMAKE_C_FLAGS="$SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN" \
		-DCMAKE_BUILD_RPATH="$P/lib" >"$out/cm.log" 2>&1 &&
		cmake --build "$out/cm" >>"$out/cm.log" 2>&1; then
		reg_pass
	else
		reg_fail "$tag: find_package(skit): $(tail -c 800 "$out/cm.log")"
	fi
	for k in shared static; do
		(cd "$out" && "$out/cm/consumer_$k" "$SKILLS") >"$out/run-$k" 2>&1 &&
			grep -q "^consumer ok" "$out/run-$k" && reg_pass ||
			reg_fail "$tag: CMake consumer ($k): $(cat "$out/run-$k")"
	done
}

P1=$W/prefix-a
cmake --install "$SKIT_BINARY_DIR" --prefix "$P1" >"$T/install.log" 2>&1 &&
	reg_pass || reg_fail "cmake --install: $(tail -c 600 "$T/install.log")"
[ -f "$P1/lib/libskit.so" ] && [ -f "$P1/lib/libskit.a" ] &&
	[ -f "$P1/lib/cmake/skit/skitConfig.cmake" ] && reg_pass ||
	reg_fail "the install lacks a library or the CMake package"
consumers "$P1" installed

# docs/embedding.md's first program, as the page shows it, built with the
# page's pkg-config line and run where "skills" is a folder of skills.
awk '/^```c$/ { inb = 1; next } /^```/ { if (inb) exit } inb' \
	"$SKIT_SOURCE_DIR/docs/embedding.md" >"$T/first.c"
grep -q skit_registry_add_root "$T/first.c" && reg_pass ||
	reg_fail "no C program found in docs/embedding.md"
mkdir -p "$W/first"
cp -R "$SKILLS" "$W/first/skills"
PKG_CONFIG_PATH=$P1/lib/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
$CC $SAN -o "$W/first/app" "$T/first.c" $(pkg-config --cflags --libs skit) \
	-Wl,-rpath,"$P1/lib" 2>"$T/first.err" && reg_pass ||
	reg_fail "docs/embedding.md's program: $(head -c 600 "$T/first.err")"
(cd "$W/first" && ./app) >"$T/first.out" 2>&1
has "$T/first.out" "csv-report" "docs/embedding.md's program lists the skills"

# examples/embed: each builds against the install with pkg-config and runs
# from its own folder with no arguments (custom_tool.c has a test of its
# own, package/embed_custom_tool).
for ex in index host_loop; do
	# shellcheck disable=SC2046
	$CC $SAN -o "$W/$ex" "$SKIT_SOURCE_DIR/examples/embed/$ex.c" \
		$(pkg-config --cflags --libs skit) -Wl,-rpath,"$P1/lib" \
		2>"$T/$ex.err" && reg_pass ||
		reg_fail "examples/embed/$ex.c: $(head -c 600 "$T/$ex.err")"
	(cd "$SKIT_SOURCE_DIR/examples/embed" && env -u OPENAI_BASE_URL \
		"$W/$ex") >"$T/$ex.out" 2>"$T/$ex.log"
	rc=$?
	[ $rc -eq 0 ] && reg_pass ||
		reg_fail "examples/embed/$ex exits $rc: $(tail -c 400 "$T/$ex.log")"
done
has "$T/index.out" "- csv-report: " "index.c prints the index"
has "$T/host_loop.log" "host_loop: use_skill -> ok" "host_loop.c's tool call ran through skit"
has "$T/host_loop.log" "host_loop: read_skill_resource -> ok" "and the skill's file was read"
has "$T/host_loop.out" "the median is the middle value" "host_loop.c's model answered"

# Moved: nothing in the install names its first prefix.
P2=$W/moved/prefix-b
mkdir -p "$W/moved"
mv "$P1" "$P2"
consumers "$P2" moved
"$P2/bin/skit" scan --help >/dev/null 2>&1 && reg_pass || reg_fail "moved skit runs"
(cd "$W" && SKIT_SCAN_RULES= "$P2/bin/skit" scan "$SKILLS/csv-report") \
	>"$T/scan.out" 2>"$T/scan.err"
rc=$?
[ $rc -le 1 ] && reg_pass ||
	reg_fail "the moved skit finds its scan rules: rc $rc $(cat "$T/scan.err")"
(cd "$W" && HOME=$W/home XDG_CONFIG_HOME=$W/xdg "$P2/bin/skit" list \
	--json) >"$T/list.json" 2>"$T/list.err"
has "$T/list.json" "$P2/share/skit/skills/csv-report" \
	"the moved skit finds its builtin skills"
reg_done
