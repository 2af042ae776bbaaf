#!/bin/sh
# Install the Debian packages skit builds and tests with (README.md, "make
# demo" and "make test" run it first; the list is PKGS below).
# Idempotent: when every package is present it only runs dpkg-query.
set -eu

PKGS="build-essential cmake pkg-config git
libyaml-dev libjansson-dev libcurl4-openssl-dev libarchive-dev libssl-dev
libseccomp-dev libutf8proc-dev libicu-dev libedit-dev libmicrohttpd-dev libpcre2-dev unzip"
# web_fetch reads HTML with libxml2's HTML parser.
PKGS="$PKGS libxml2-dev"
# Man pages are made at build time; the completion tests drive zsh and fish.
PKGS="$PKGS help2man zsh fish"
# Test deps: the OCI tests run a real registry (distribution) and read it
# back with skopeo; htpasswd wants bcrypt (python3-bcrypt, or htpasswd).
PKGS="$PKGS docker-registry skopeo python3-bcrypt apache2-utils"
# The ABI check compares libskit.so with abi/libskit.abi (abidw, abidiff).
PKGS="$PKGS abigail-tools"
# The Python package (bindings/python): its tests run with pytest, and
# the install test makes a venv and pip-installs it offline with
# Debian's setuptools and wheel (docs/python.md).
PKGS="$PKGS python3-pytest python3-setuptools python3-wheel python3-pip python3-venv"
# The lsp tool's tests talk to a real language server: pylsp, with
# pyflakes for its diagnostics (only a Suggests of python3-pylsp,
# which apt leaves out; docs/lsp.md).
PKGS="$PKGS python3-pylsp python3-pyflakes"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo"
else
	echo "install-deps: cannot install packages (not root, no sudo); run:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
