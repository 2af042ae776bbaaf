#!/bin/sh
# SPDX-License-Identifier: MIT
# embed_v6.sh - an outside program built against the installed libskit
# (`cmake --install` into a temporary prefix, pkg-config) with the agent
# options of version 6: tests/package/embed_v6/embed_v6.c. Its own tool is
# deferred behind tool_search, which the model uses to load it before it
# calls it; its language server's program is missing, and the lsp tool
# says so to the model. The cassette's "expect" lines check what the
# model was shown at each step.
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"
reg_setup
CC=${CC:-cc}
SAN=
[ -n "${SKIT_SANITIZE:-}" ] && SAN="-fsanitize=$SKIT_SANITIZE"
P=$T/prefix
cmake --install "$SKIT_BINARY_DIR" --prefix "$P" >"$T/install.log" 2>&1 &&
	reg_pass || reg_fail "cmake --install: $(tail -c 600 "$T/install.log")"
PKG_CONFIG_PATH=$P/lib/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
$CC $SAN -std=c11 -Wall -Wextra -Werror -o "$T/embed_v6" \
	"$SKIT_SOURCE_DIR/tests/package/embed_v6/embed_v6.c" \
	$(pkg-config --cflags --libs skit) -Wl,-rpath,"$P/lib" 2>"$T/cc.err" &&
	reg_pass || reg_fail "embed_v6.c: $(head -c 600 "$T/cc.err")"
mkdir -p "$W/proj"
printf 'x = 1\n' >"$W/proj/a.py"
cat >"$W/c.jsonl" <<'JSON'
{"expect": {"contains": ["Deferred tools: mcp__demo__stock"], "not_contains": ["How many of an item"]}, "tool_calls": [{"id": "s1", "name": "tool_search", "arguments": {"query": "+stock"}}]}
{"expect": {"contains": ["## mcp__demo__stock", "How many of an item"]}, "tool_calls": [{"id": "c1", "name": "mcp__demo__stock", "arguments": {"item": "apples"}}, {"id": "l1", "name": "lsp", "arguments": {"operation": "documentSymbol", "filePath": "a.py"}}]}
{"expect": {"contains": ["apples: 42 in stock", "no-such-language-server"]}, "text": "EMBED-V6-DONE"}
JSON
(cd "$W" && "$T/embed_v6" "$SKIT_SOURCE_DIR/examples/skills" "$W/c.jsonl" "$W/proj") \
	>"$T/out" 2>"$T/log"
rc=$?
[ $rc -eq 0 ] && reg_pass || reg_fail "embed_v6 exits $rc: $(tail -c 600 "$T/log")"
grep -q "^EMBED-V6-DONE$" "$T/out" && reg_pass || reg_fail "the answer: $(cat "$T/out")"
reg_done
