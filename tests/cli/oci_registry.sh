#!/bin/sh
# SPDX-License-Identifier: MIT
# oci_registry.sh - skill packs as OCI artifacts against real software:
# push to Debian's docker-registry (distribution) on 127.0.0.1, read the
# artifact back with skopeo (inspect --raw; copy to an OCI layout whose
# blobs must hash as pushed), install into fresh projects (tag, digest,
# --from-lock, update following the tag, signatures), chunked upload,
# HEAD skips, a missing tag, a tampering proxy, refused references.
. "$(dirname "$0")/oci_lib.inc"
reg_setup
oci_need
cd "$W" || exit 1
oci_registry reg

# Two skills, one with a version, signed.
skill "$W/src" alpha
mkdir -p "$W/src/beta"
printf -- '---\nname: beta\ndescription: The beta skill.\nmetadata:\n  version: "2.1"\n---\nBeta v1.\n' \
	>"$W/src/beta/SKILL.md"
run keygen "$W/key"
expect_rc 0 "keygen"
KEYID=$(sed -n 's/^Key id: *//p' "$T/out")

REF=oci://$REG/team/skills:v1
run push --plain-http --sign "$W/key" "$W/src/alpha" "$W/src/beta" "$REF"
expect_rc 0 "push two folders"
DIGEST=$(cat "$T/out")
case $DIGEST in
sha256:????????????????????????????????????????????????????????????????) reg_pass ;;
*) reg_fail "push printed '$DIGEST', not a digest" ;;
esac

# An independent client reads it back.
skopeo inspect --tls-verify=false --raw "docker://$REG/team/skills:v1" \
	>"$T/raw.json" 2>"$T/skopeo.err"
[ $? -eq 0 ] && reg_pass || reg_fail "skopeo inspect: $(cat "$T/skopeo.err")"
[ "sha256:$(sha_of "$T/raw.json")" = "$DIGEST" ] && reg_pass ||
	reg_fail "the manifest skopeo read does not hash to the pushed digest"
python3 - "$T/raw.json" "$KEYID" >"$T/check.txt" 2>&1 <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
a = m["annotations"]
assert m["schemaVersion"] == 2, m
assert m["mediaType"] == "application/vnd.oci.image.manifest.v1+json", m
assert m["artifactType"] == "application/vnd.skit.pack.v1+zip", m
c = m["config"]
assert c["mediaType"] == "application/vnd.oci.empty.v1+json", c
assert c["size"] == 2, c
assert len(m["layers"]) == 1, m
assert m["layers"][0]["mediaType"] == "application/vnd.skit.pack.v1+zip"
assert a["dev.skit.pack.skills"] == "alpha,beta", a
assert a["dev.skit.pack.versions"] == "alpha=,beta=2.1", a
assert a["dev.skit.pack.signer"] == sys.argv[2], a
assert a["org.opencontainers.image.version"] == "v1", a
print("ok")
EOF
has "$T/check.txt" ok "the manifest's shape and annotations"

skopeo copy --src-tls-verify=false "docker://$REG/team/skills:v1" \
	"oci:$W/layout:v1" >"$T/copy.out" 2>&1
[ $? -eq 0 ] && reg_pass || reg_fail "skopeo copy: $(tail -n 3 "$T/copy.out")"
bad=0
nblobs=0
for b in "$W"/layout/blobs/sha256/*; do
	nblobs=$((nblobs + 1))
	[ "$(sha_of "$b")" = "$(basename "$b")" ] || bad=1
done
[ $bad -eq 0 ] && [ $nblobs -eq 3 ] && reg_pass ||
	reg_fail "OCI layout: $nblobs blobs, hashing as named: $((1 - bad))"
[ "$(cat "$W/layout/blobs/sha256/44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a")" = "{}" ] &&
	reg_pass || reg_fail "the empty config blob is not {}"
# The layer is the pack skit pack makes of the same folders.
run pack --sign "$W/key" -o "$W/same.zip" "$W/src/alpha" "$W/src/beta"
expect_rc 0 "pack the same folders"
[ -f "$W/layout/blobs/sha256/$(sha_of "$W/same.zip")" ] && reg_pass ||
	reg_fail "the layer is not the pack's bytes"

# Install into a fresh project, by tag.
mkdir -p "$W/p1/.git"
cd "$W/p1" || exit 1
run install --plain-http --require-signature --trust "$W/key.pub" "$REF"
expect_rc 0 "install by tag, signature required"
has "$W/p1/.agents/skills/beta/SKILL.md" "Beta v1." "beta installed"
has "$W/p1/.agents/skills/.skit-lock.json" "\"resolved\": \"$DIGEST\"" \
	"the lock records the manifest digest"
has "$W/p1/.agents/skills/.skit-lock.json" "\"source\": \"$REF\"" \
	"the lock records the reference"
has "$W/p1/.agents/skills/.skit-lock.json" "\"signed_by\": \"$KEYID\"" \
	"the lock records the signer"

# By digest.
run install --plain-http --root "$W/p2" "oci://$REG/team/skills@$DIGEST"
expect_rc 0 "install by digest"
[ -f "$W/p2/alpha/SKILL.md" ] && reg_pass || reg_fail "install by digest"

# Pushing it again skips both blobs (HEAD says present).
oci_proxy log "$REG" logp
run push --plain-http "$W/same.zip" "oci://$PROXY/team/skills:again"
expect_rc 0 "push a pack file again through the proxy"
grep -q '^HEAD /v2/team/skills/blobs/sha256:' "$PROXY_LOG" && reg_pass ||
	reg_fail "no HEAD check"
lacks "$PROXY_LOG" "POST /v2/team/skills/blobs/uploads" \
	"blobs already present are not uploaded again"
has "$PROXY_LOG" "PUT /v2/team/skills/manifests/again" "the manifest PUT"

# Chunked upload of a bigger pack.
skill "$W/src" gamma
python3 -c 'import random; r=random.Random(7); print("\n".join("%x" % r.getrandbits(128) for _ in range(3000)))' \
	>"$W/src/gamma/data.txt"
: >"$PROXY_LOG"
run push --plain-http --chunk-size 16384 "$W/src/gamma" \
	"oci://$PROXY/team/big:v1"
expect_rc 0 "chunked push"
n=$(grep -c '^PATCH ' "$PROXY_LOG")
[ "$n" -ge 3 ] && reg_pass || reg_fail "chunked push used $n PATCH requests"
skopeo copy --src-tls-verify=false "docker://$REG/team/big:v1" \
	"oci:$W/layout2:v1" >"$T/copy2.out" 2>&1
bad=0
for b in "$W"/layout2/blobs/sha256/*; do
	[ "$(sha_of "$b")" = "$(basename "$b")" ] || bad=1
done
[ $bad -eq 0 ] && reg_pass || reg_fail "chunked blobs do not hash as named"
run install --plain-http --root "$W/p3" "oci://$REG/team/big:v1"
expect_rc 0 "install the chunked pack"
cmp -s "$W/src/gamma/data.txt" "$W/p3/gamma/data.txt" && reg_pass ||
	reg_fail "the chunked pack's file differs"

# A new v1: update follows the tag; --from-lock keeps the old digest.
cp "$W/p1/.agents/skills/.skit-lock.json" "$W/lock-v1.json"
sed -i 's/Beta v1\./Beta v2./' "$W/src/beta/SKILL.md"
run push --plain-http --sign "$W/key" "$W/src/alpha" "$W/src/beta" "$REF"
expect_rc 0 "push a new v1"
D2=$(cat "$T/out")
[ "$D2" != "$DIGEST" ] && reg_pass || reg_fail "new content, same digest"
run install --plain-http --root "$W/p4" --from-lock "$W/lock-v1.json"
expect_rc 0 "install --from-lock"
has "$W/p4/beta/SKILL.md" "Beta v1." "--from-lock installs the recorded digest"
run update --plain-http --yes --trust "$W/key.pub" --root "$W/p1/.agents/skills"
expect_rc 0 "update"
has "$W/p1/.agents/skills/beta/SKILL.md" "Beta v2." "update follows the tag"
has "$W/p1/.agents/skills/.skit-lock.json" "\"resolved\": \"$D2\"" \
	"update records the new digest"

# An unsigned pack is refused when a signature is required.
run push --plain-http "$W/src/alpha" "oci://$REG/team/unsigned:v1"
expect_rc 0 "push unsigned"
run install --plain-http --root "$W/p5" --require-signature \
	--trust "$W/key.pub" "oci://$REG/team/unsigned:v1"
expect_rc 1 "unsigned refused under --require-signature"
[ ! -e "$W/p5/alpha" ] && reg_pass || reg_fail "unsigned installed"

# A missing tag, a missing repository.
run install --plain-http --root "$W/p6" "oci://$REG/team/skills:nope"
expect_rc 2 "missing tag (missing input: 2, as for a missing path)"
has "$T/err" "MANIFEST_UNKNOWN" "missing tag: the registry's reason"
lines "$T/err" 1 "missing tag: one line"
[ ! -e "$W/p6/.skit-lock.json" ] && reg_pass || reg_fail "missing tag wrote"

# A tampering proxy: the blob's bytes, then the manifest's.
oci_proxy blob "$REG" tamb
run install --plain-http --root "$W/p7" "oci://$PROXY/team/skills:v1"
expect_rc 1 "tampered blob"
has "$T/err" "does not match its digest" "tampered blob: named"
[ ! -e "$W/p7/alpha" ] && [ ! -e "$W/p7/.skit-lock.json" ] && reg_pass ||
	reg_fail "a tampered blob was installed"
oci_proxy manifest "$REG" tamm
run install --plain-http --root "$W/p8" "oci://$PROXY/team/skills:v1"
expect_rc 1 "tampered manifest (by tag)"
has "$T/err" "manifest does not match" "tampered manifest: named"
run install --plain-http --root "$W/p8" "oci://$PROXY/team/skills@$D2"
expect_rc 1 "tampered manifest (by digest)"
[ ! -e "$W/p8/alpha" ] && reg_pass || reg_fail "tampered manifest installed"

# Refused references and options.
run install --plain-http --root "$W/p9" "oci://example.com/team/skills:v1"
expect_rc 1 "plain HTTP to a non-loopback host"
has "$T/err" "plain HTTP is accepted for 127.0.0.1" "plain HTTP rule named"
run push --plain-http "$W/same.zip" "oci://example.com/a/b:v1"
expect_rc 1 "push: plain HTTP to a non-loopback host"
run push --plain-http "$W/same.zip" "oci://$REG/Team/x:v1"
expect_rc 2 "an uppercase repository"
run push --plain-http "$W/same.zip" "oci://$REG/team/x@sha256:abc"
expect_rc 2 "push to a digest"
run install --plain-http --root "$W/p9" "oci://$REG/team/x@sha256:zz"
expect_rc 2 "a malformed digest"
run install --plain-http --root "$W/p9" "oci://$REG/team/x"
expect_rc 2 "no tag"
run push "$W/same.zip" "oci://$REG/team/x:v1"
expect_rc 1 "https to a plain registry fails cleanly"
run push --help
expect_rc 0 "push --help"
has "$T/out" "application/vnd.skit.pack.v1+zip" "push --help names the type"

reg_done
