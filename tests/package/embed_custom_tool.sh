#!/bin/sh
# embed_custom_tool.sh - examples/embed/custom_tool.c as an outside program
# builds and runs it (issue 30, point 3): `cmake --install` into a temporary
# prefix, the example compiled against it with pkg-config, then run from
# its own folder with no arguments. It exits 0 only when the model called
# the program's tool and the tool's result reached the model (its
# cassette expects the result in the request); the trace shows the call.
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"
reg_setup
command -v pkg-config >/dev/null 2>&1 || reg_fail "pkg-config is needed"
CC=${CC:-cc}
SAN=
[ -n "${SKIT_SANITIZE:-}" ] && SAN="-fsanitize=$SKIT_SANITIZE"
P=$T/prefix
EX=$SKIT_SOURCE_DIR/examples/embed

cmake --install "$SKIT_BINARY_DIR" --prefix "$P" >"$T/install.log" 2>&1 &&
	reg_pass || reg_fail "cmake --install: $(tail -c 600 "$T/install.log")"
PKG_CONFIG_PATH=$P/lib/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
$CC $SAN -std=c11 -Wall -Wextra -Werror -o "$T/custom_tool" \
	"$EX/custom_tool.c" $(pkg-config --cflags --libs skit) \
	-Wl,-rpath,"$P/lib" 2>"$T/cc.err" && reg_pass ||
	reg_fail "examples/embed/custom_tool.c: $(head -c 600 "$T/cc.err")"
(cd "$EX" && env -u OPENAI_BASE_URL "$T/custom_tool") >"$T/out" 2>"$T/log"
rc=$?
[ $rc -eq 0 ] && reg_pass ||
	reg_fail "custom_tool exits $rc: $(tail -c 600 "$T/log")"
grep -q "The shop has 42 apples" "$T/out" && reg_pass ||
	reg_fail "the answer lacks the tool's result: $(cat "$T/out")"
grep -q "^\[skit\] mcp__demo__stock: ok, 19 bytes" "$T/log" && reg_pass ||
	reg_fail "the trace lacks the tool's run: $(cat "$T/log")"

# With a cassette that expects what the tool never said, the program
# must fail: its exit status means something.
mkdir -p "$T/neg"
ln -s "$SKIT_SOURCE_DIR/examples/skills" "$T/skills"
sed 's/apples: 42 in stock/apples: 43 in stock/' "$EX/custom_tool.jsonl" \
	>"$T/neg/custom_tool.jsonl"
(cd "$T/neg" && "$T/custom_tool") >"$T/neg/out" 2>"$T/neg/log" &&
	reg_fail "custom_tool exits 0 though its result never reached the model" ||
	reg_pass
grep -q "replay" "$T/neg/log" && reg_pass ||
	reg_fail "the failed run does not say why: $(cat "$T/neg/log")"
reg_done
