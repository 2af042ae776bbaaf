#!/bin/sh
# SPDX-License-Identifier: MIT
#
# changelog.sh - a Markdown changelog from `git log`, grouped by
# conventional-commit type (feat, fix, perf, ...).
#
#   changelog.sh [FROM [TO]]        commits in FROM..TO of the current repo
#   changelog.sh --input FILE       offline: lines of "HASH<TAB>SUBJECT"
#
# FROM defaults to the newest tag before TO (all history when there is no
# tag); TO defaults to HEAD. Merge commits are skipped. Needs git (unless
# --input is used), awk and a POSIX shell.

set -eu

usage() {
	sed -n '4,12s/^# \{0,1\}//p' "$0"
}

input=""
case "${1:-}" in
-h | --help)
	usage
	exit 0
	;;
--input)
	[ $# -eq 2 ] || { usage >&2; exit 2; }
	input=$2
	[ -r "$input" ] || { echo "changelog.sh: cannot read $input" >&2; exit 2; }
	;;
-*)
	echo "changelog.sh: unknown option $1" >&2
	usage >&2
	exit 2
	;;
esac

US=$(printf '\037') # field separator
RS=$(printf '\036') # record separator

if [ -n "$input" ]; then
	title="Changes"
	# HASH<TAB>SUBJECT lines become records with an empty body.
	records() {
		awk -v us="$US" -v rs="$RS" '
		NF == 0 { next }
		{
			hash = ""; subj = $0
			if (index($0, "\t")) {
				hash = $0; sub(/\t.*/, "", hash)
				sub(/^[^\t]*\t/, "", subj)
			}
			printf "%s%s%s%s%s", hash, us, subj, us, rs
		}' "$input"
	}
else
	if [ $# -gt 2 ]; then
		usage >&2
		exit 2
	fi
	git rev-parse --git-dir >/dev/null 2>&1 || {
		echo "changelog.sh: not inside a git repository" >&2
		exit 1
	}
	to=${2:-HEAD}
	from=${1:-}
	for ref in "$to" ${from:+"$from"}; do
		git rev-parse --verify -q "$ref^{commit}" >/dev/null || {
			echo "changelog.sh: unknown revision '$ref'" >&2
			exit 1
		}
	done
	if [ -z "$from" ]; then
		# The newest tag strictly before TO, so running on a tag
		# gives that release's changes.
		from=$(git describe --tags --abbrev=0 "$to^" 2>/dev/null || true)
	fi
	if [ -n "$from" ]; then
		range="$from..$to"
		title="Changes from $from to $to"
	else
		range=$to
		title="Changes up to $to"
	fi
	records() {
		git log --no-merges --format="%h$US%s$US%b$RS" "$range"
	}
fi

records | awk -v RS="$RS" -v FS="$US" -v title="$title" '
function add(section, line) {
	items[section] = items[section] line "\n"
}
{
	sub(/^\n+/, "")          # git puts a newline between records
	if ($0 == "")
		next
	hash = $1; subj = $2; body = $3
	type = ""; scope = ""; bang = 0; text = subj
	if (match(subj, /^[A-Za-z]+(\([^)]*\))?!?: /)) {
		head = substr(subj, 1, RLENGTH - 2)
		text = substr(subj, RLENGTH + 1)
		if (head ~ /!$/) {
			bang = 1
			head = substr(head, 1, length(head) - 1)
		}
		if (match(head, /\(.*\)$/)) {
			scope = substr(head, RSTART + 1, RLENGTH - 2)
			head = substr(head, 1, RSTART - 1)
		}
		type = tolower(head)
	}
	if (!(type in names))
		type = "other"
	entry = "- " (scope != "" ? "**" scope ":** " : "") text (hash != "" ? " (" hash ")" : "")
	add(type, entry)
	count++
	if (bang || body ~ /(^|\n)BREAKING[ -]CHANGE: /)
		add("breaking", entry)
}
BEGIN {
	split("breaking feat fix perf refactor revert docs test build ci style chore other", order, " ")
	names["breaking"] = "Breaking changes"
	names["feat"] = "Features"
	names["fix"] = "Bug fixes"
	names["perf"] = "Performance"
	names["refactor"] = "Refactoring"
	names["revert"] = "Reverts"
	names["docs"] = "Documentation"
	names["test"] = "Tests"
	names["build"] = "Build"
	names["ci"] = "Continuous integration"
	names["style"] = "Style"
	names["chore"] = "Chores"
	names["other"] = "Other changes"
}
END {
	print "## " title
	if (!count) {
		print ""
		print "No changes."
		exit 0
	}
	for (i = 1; i in order; i++) {
		s = order[i]
		if (!(s in items))
			continue
		print ""
		print "### " names[s]
		print ""
		printf "%s", items[s]
	}
}'
