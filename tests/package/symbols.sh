#!/bin/sh
# symbols.sh - libskit.so exports exactly the public API (issue 30): every
# function the headers of include/skit/ declare SKIT_EXTERN is a defined
# dynamic symbol of the library, and the library exports nothing else
# (no skitx_ helper, no skit__ internal, no dependency's symbol).
. "$SKIT_SOURCE_DIR/tests/cli/registry_lib.inc"
reg_setup
command -v nm >/dev/null 2>&1 || reg_fail "nm (binutils) is needed"
python3 - "$SKIT_SOURCE_DIR/include/skit" >"$T/declared" <<'PY'
import os, re, sys
d = sys.argv[1]
names = set()
for f in sorted(os.listdir(d)):
    if not f.endswith(".h"):
        continue
    text = open(os.path.join(d, f)).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", text)
    for m in re.finditer(r"\bSKIT_EXTERN\b([^;{]*?)\b([A-Za-z_]\w*)\s*\(", text):
        if m.group(2) != "SKIT_EXTERN":
            names.add(m.group(2))
print("\n".join(sorted(names)))
PY
nm -D --defined-only "$SKIT_LIBRARY" | awk 'NF == 3 && $2 ~ /[TDBRVWi]/ { print $3 }' |
	grep -v '^_init$\|^_fini$\|^_edata$\|^_end$\|^__bss_start$' | sort -u >"$T/exported"
n=$(wc -l <"$T/declared")
[ "$n" -gt 100 ] && reg_pass || reg_fail "only $n declarations found"
comm -23 "$T/declared" "$T/exported" >"$T/missing"
comm -13 "$T/declared" "$T/exported" >"$T/extra"
[ ! -s "$T/missing" ] && reg_pass ||
	reg_fail "declared but not exported: $(tr '\n' ' ' <"$T/missing")"
[ ! -s "$T/extra" ] && reg_pass ||
	reg_fail "exported but not declared: $(tr '\n' ' ' <"$T/extra")"
grep -qx skit_free "$T/exported" && grep -qx skit_set_allocator "$T/exported" &&
	reg_pass || reg_fail "skit_free and skit_set_allocator are exported"
reg_done
