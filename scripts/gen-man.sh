#!/bin/sh
# gen-man.sh SKIT OUTDIR - write the man pages skit.1 and skit-CMD.1 for
# every command into OUTDIR, with help2man, from each command's --help.
# One source of truth: the --help text the commands print.
set -eu
skit=$1
out=$2
if ! command -v help2man >/dev/null 2>&1; then
	echo "gen-man: help2man not found (scripts/install-deps.sh installs it)" >&2
	exit 1
fi
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skit-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
version=$("$skit" --version | sed 's/^skit //')

# help2man runs PROG --help and PROG --version: a small wrapper per
# command gives it "skit CMD --help" with a capitalised Usage line, which
# help2man turns into the SYNOPSIS section.
wrap() {
	cat >"$tmp/$1" <<WRAP
#!/bin/sh
case "\$1" in
--version) echo "$1 $version" ;;
*) "$skit" $2 --help | sed '1s/^usage:/Usage:/' ;;
esac
WRAP
	chmod +x "$tmp/$1"
}

wrap skit ""
help2man -N -s 1 -m "skit manual" -n "the Agent Skills toolbox and agent" \
	-o "$out/skit.1" "$tmp/skit"
# The command table: "  NAME  summary" lines of the top-level help.
"$skit" --help | sed -n 's/^  \([a-z][a-z-]*\)  *\(.*\)$/\1 \2/p' |
	while read -r cmd summary; do
		wrap "skit-$cmd" "$cmd"
		help2man -N -s 1 -m "skit manual" -n "$summary" \
			-o "$out/skit-$cmd.1" "$tmp/skit-$cmd"
	done
