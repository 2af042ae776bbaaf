#!/bin/sh
# SPDX-License-Identifier: MIT
# oci_hostile.sh - a registry that lies, through the test proxy in front
# of a real docker-registry: a 5 MiB manifest (capped at 4 MiB), a blob
# longer than its descriptor, an upload Location on another origin, a
# layer announced over the download cap. Each is refused, one line, nothing installed.
. "$(dirname "$0")/oci_lib.inc"
reg_setup
oci_need
cd "$W" || exit 1
oci_registry reg
skill "$W/src" alpha
run push --plain-http "$W/src/alpha" "oci://$REG/team/x:v1"
expect_rc 0 "push"

oci_proxy huge "$REG" huge
run install --plain-http --root "$W/r1" "oci://$PROXY/team/x:v1"
expect_rc 1 "a 5 MiB manifest"
has "$T/err" "over the size limit" "the manifest cap is named"
lines "$T/err" 1 "one line"
[ ! -e "$W/r1/alpha" ] && reg_pass || reg_fail "installed"

oci_proxy long "$REG" long
run install --plain-http --root "$W/r2" "oci://$PROXY/team/x:v1"
expect_rc 1 "a blob longer than its descriptor"
has "$T/err" "longer than its descriptor" "the long blob is named"
[ ! -e "$W/r2/alpha" ] && reg_pass || reg_fail "installed"

oci_proxy elsewhere "$REG" elsewhere
run push --plain-http "$W/src/alpha" "oci://$PROXY/team/y:v1"
expect_rc 1 "an upload Location on another origin"
has "$T/err" "another origin" "the foreign Location is named"
lacks "$PROXY_LOG" "PUT /v2/team/y/manifests" "no manifest was pushed"

# A layer announced over the download cap is refused before its blob
# is fetched.
oci_proxy bigsize "$REG" bigsize
run install --plain-http --root "$W/r3" "oci://$PROXY/team/x:v1"
expect_rc 1 "a 1 TiB layer"
has "$T/err" "over the download limit" "the cap is named"
lacks "$PROXY_LOG" "/blobs/" "the blob was not fetched"
[ ! -e "$W/r3/alpha" ] && reg_pass || reg_fail "installed"

reg_done
