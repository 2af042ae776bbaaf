#!/bin/sh
# SPDX-License-Identifier: MIT
# oci_auth.sh - registry credentials: an htpasswd-protected
# docker-registry (Basic) with credentials from the docker config's
# auths, a credential helper (credHelpers, credsStore) speaking the
# docker-credential-helpers protocol, and the Bearer token flow (the
# test proxy as token server in front of a registry).
. "$(dirname "$0")/oci_lib.inc"
reg_setup
oci_need
cd "$W" || exit 1

# distribution's htpasswd wants bcrypt.
if python3 -c 'import bcrypt' 2>/dev/null; then
	python3 -c 'import bcrypt, sys; print("user:" + bcrypt.hashpw(b"secret", bcrypt.gensalt(rounds=5)).decode())' \
		>"$W/htpasswd"
elif command -v htpasswd >/dev/null 2>&1; then
	htpasswd -nbB -C 5 user secret | sed '/^$/d' >"$W/htpasswd"
else
	oci_skip "neither python3-bcrypt nor htpasswd (apache2-utils) is installed"
fi
oci_registry sec "$W/htpasswd"

skill "$W/src" alpha
run pack -o "$W/a.zip" "$W/src/alpha"
expect_rc 0 "pack"
export DOCKER_CONFIG="$W/docker"
mkdir -p "$DOCKER_CONFIG"

# No credentials: refused, saying so.
run push --plain-http "$W/a.zip" "oci://$REG/team/x:v1"
expect_rc 1 "push without credentials"
has "$T/err" "no credentials" "the missing credentials are named"
lines "$T/err" 1 "one line"

# auths, with a wrong password, then the right one.
printf '{"auths":{"%s":{"auth":"%s"}}}\n' "$REG" \
	"$(printf 'user:wrong' | base64)" >"$DOCKER_CONFIG/config.json"
run push --plain-http "$W/a.zip" "oci://$REG/team/x:v1"
expect_rc 1 "push with a wrong password"
has "$T/err" "HTTP 401" "the refusal is named"
lacks "$T/err" "wrong" "the password is not shown"
printf '{"auths":{"http://%s":{"auth":"%s"}}}\n' "$REG" \
	"$(printf 'user:secret' | base64)" >"$DOCKER_CONFIG/config.json"
run push --plain-http "$W/a.zip" "oci://$REG/team/x:v1"
expect_rc 0 "push with auths credentials"
run install --plain-http --root "$W/r1" "oci://$REG/team/x:v1"
expect_rc 0 "install with auths credentials"
[ -f "$W/r1/alpha/SKILL.md" ] && reg_pass || reg_fail "not installed"
skopeo inspect --tls-verify=false --creds user:secret --raw \
	"docker://$REG/team/x:v1" >"$T/raw.json" 2>&1
has "$T/raw.json" "application/vnd.skit.pack.v1+zip" "skopeo reads it back"

# A credential helper: it must be asked with the server on stdin.
mkdir -p "$W/bin"
cat >"$W/bin/docker-credential-skittest" <<EOF
#!/bin/sh
[ "\$1" = get ] || exit 1
read -r server
echo "\$server" >>"$W/helper.log"
[ "\$server" = "$REG" ] || { echo "credentials not found in native keychain"; exit 1; }
printf '{"ServerURL":"%s","Username":"user","Secret":"secret"}\n' "\$server"
EOF
chmod +x "$W/bin/docker-credential-skittest"
PATH=$W/bin:$PATH
export PATH
printf '{"credHelpers":{"%s":"skittest"}}\n' "$REG" >"$DOCKER_CONFIG/config.json"
run install --plain-http --root "$W/r2" "oci://$REG/team/x:v1"
expect_rc 0 "install through credHelpers"
has "$W/helper.log" "$REG" "the helper was asked for the registry"
printf '{"credsStore":"skittest"}\n' >"$DOCKER_CONFIG/config.json"
run push --plain-http "$W/a.zip" "oci://$REG/team/y:v1"
expect_rc 0 "push through credsStore"
printf '{"credsStore":"missinghelper"}\n' >"$DOCKER_CONFIG/config.json"
run push --plain-http "$W/a.zip" "oci://$REG/team/y:v1"
expect_rc 1 "a missing helper: no credentials"
printf '{"credsStore":"../../bin/sh"}\n' >"$DOCKER_CONFIG/config.json"
run push --plain-http "$W/a.zip" "oci://$REG/team/y:v1"
expect_rc 1 "a helper name with a path is not run"

# The Bearer token flow: the proxy demands a token from its /token.
oci_registry open
oci_proxy bearer "$REG" bearer
printf '{}\n' >"$DOCKER_CONFIG/config.json"
run push --plain-http "$W/a.zip" "oci://$PROXY/team/x:v1"
expect_rc 1 "bearer without credentials"
has "$T/err" "token request: HTTP 401" "the token refusal is named"
printf '{"auths":{"%s":{"auth":"%s"}}}\n' "$PROXY" \
	"$(printf 'user:secret' | base64)" >"$DOCKER_CONFIG/config.json"
run push --plain-http "$W/a.zip" "oci://$PROXY/team/x:v1"
expect_rc 0 "push with a bearer token"
has "$PROXY_LOG" "GET /token?service=skit-test&scope=repository%3Ateam%2Fx%3Apull%2Cpush" \
	"the token request carries service and scope"
run install --plain-http --root "$W/r3" "oci://$PROXY/team/x:v1"
expect_rc 0 "install with a bearer token"
[ -f "$W/r3/alpha/SKILL.md" ] && reg_pass || reg_fail "not installed"

reg_done
