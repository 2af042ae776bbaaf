#!/bin/sh
# SPDX-License-Identifier: MIT
#
# real-skills.sh - how many real skills skit's loader accepts (the goal: a
# careful lenient client loads 95% or more of them).
#
#	bench/real-skills.sh [--tsv FILE] [--min PCT] DIR
#
# DIR holds one folder per repository, each holding skill folders:
#
#	DIR/<owner>__<repo>/<skill-folder>/SKILL.md
#
# (the skill folder named exactly as in the repository: the loader compares
# it with the declared name). Every folder in a repository folder counts as
# one skill: skit reads SKILL.md or skill.md, and a folder with neither (a
# Skill.md, say) is counted as skipped, missing-skill-md. Files at the top
# (a MANIFEST.tsv) are ignored. Nothing in DIR is run or
# changed: skit only reads the SKILL.md files.
#
# For each repository folder it runs
#
#	skit validate --lenient --json -r REPO   the loading rules (what list,
#	                                         show, run and install accept)
#	skit validate --json -r REPO             the conformance (strict) verdict
#	skit list --json --all --no-config --root REPO
#	                                         the registry's own count, which
#	                                         must agree with --lenient
#
# and prints the totals: skills loaded (without and with warnings), skipped
# (no frontmatter, which is skipped by design, and the rest), the strict
# verdicts, the acceptance with and without the skills that have no
# frontmatter, then a table of the warning codes, one of the skip reasons
# (code, skills, first message) and one of the strict errors, and every
# skipped skill with its reason.
#
#	--tsv FILE   also write one line a skill: repository, folder, lenient
#	             verdict (loaded/skipped), its codes, strict verdict, its
#	             codes, the first skip message
#	--min PCT    exit 1 when the acceptance of the skills that have a
#	             frontmatter is below PCT (e.g. 95)
#
# SKIT names the skit binary (default: build/skit of this checkout, else
# skit on PATH). Needs python3 (standard library) to read the JSON.
#
# Exit status: 0, 1 when --min is not met or skit failed, 2 on a usage
# error. docs/bench.md ("Measured on real skills") has the figures.

usage() {
	echo "usage: bench/real-skills.sh [--tsv FILE] [--min PCT] DIR (--help: more)" >&2
	exit 2
}

tsv='' min=''
while [ $# -gt 0 ]; do
	case $1 in
	--tsv) [ $# -ge 2 ] || usage; tsv=$2; shift 2 ;;
	--min) [ $# -ge 2 ] || usage; min=$2; shift 2 ;;
	-h | --help) sed -n '4,44p' "$0" | sed 's/^# //; s/^#//'; exit 0 ;;
	--) shift; break ;;
	-*) echo "real-skills.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
dir=$1
[ -d "$dir" ] || { echo "real-skills.sh: $dir: not a directory" >&2; exit 2; }
case $min in
*[!0-9.]* | *.*.* | .) echo "real-skills.sh: --min takes a number" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${SKIT:-}" ]; then
	if [ -x "$here/build/skit" ]; then SKIT=$here/build/skit; else SKIT=skit; fi
fi
command -v "$SKIT" >/dev/null 2>&1 || { echo "real-skills.sh: no skit ($SKIT): make build, or set SKIT" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "real-skills.sh: needs python3" >&2; exit 1; }

out=$(mktemp -d "${TMPDIR:-/tmp}/real-skills.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
trap 'exit 1' HUP INT TERM

# One result file per repository folder and mode; the repository's folder
# name is kept in a separate list, so any name (spaces, a leading dash) works.
n=0
for repo in "$dir"/*/; do
	[ -d "$repo" ] || continue
	repo=${repo%/}
	n=$((n + 1))
	printf '%s\n' "$(basename "$repo")" >"$out/$n.name"
	# validate exits 1 when a skill is invalid: only the JSON matters here
	"$SKIT" validate --lenient --json -r -- "$repo" >"$out/$n.lenient" 2>"$out/$n.err"
	[ $? -le 1 ] || { cat "$out/$n.err" >&2; echo "real-skills.sh: skit validate --lenient failed on $repo" >&2; exit 1; }
	"$SKIT" validate --json -r -- "$repo" >"$out/$n.strict" 2>"$out/$n.err"
	[ $? -le 1 ] || { cat "$out/$n.err" >&2; echo "real-skills.sh: skit validate failed on $repo" >&2; exit 1; }
	"$SKIT" list --json --all --no-config --root "$repo" >"$out/$n.list" 2>"$out/$n.err" ||
		{ cat "$out/$n.err" >&2; echo "real-skills.sh: skit list failed on $repo" >&2; exit 1; }
done
[ "$n" -gt 0 ] || { echo "real-skills.sh: no repository folders in $dir" >&2; exit 2; }

python3 - "$out" "$n" "$dir" "$SKIT" "$tsv" "$min" <<'EOF'
import collections, json, os, sys

out, n, top, skit, tsv, minimum = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
NOFM = "frontmatter-missing"

def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)

rows = []                       # one per skill
disagree = []                   # registry vs --lenient
for i in range(1, n + 1):
    repo = open(os.path.join(out, "%d.name" % i), encoding="utf-8").read().rstrip("\n")
    lenient = {os.path.basename(e["path"]): e for e in load(os.path.join(out, "%d.lenient" % i))}
    strict = {os.path.basename(e["path"]): e for e in load(os.path.join(out, "%d.strict" % i))}
    listed = {os.path.basename(e["dir"]): e["state"] for e in load(os.path.join(out, "%d.list" % i))}
    for folder in sorted(lenient):
        le, st = lenient[folder], strict.get(folder)
        errors = [d for d in le["diagnostics"] if d["severity"] == "error"]
        warns = sorted({d["code"] for d in le["diagnostics"] if d["severity"] == "warning"})
        serr = sorted({d["code"] for d in st["diagnostics"] if d["severity"] == "error"}) if st else ["(not validated)"]
        row = {
            "repo": repo, "folder": folder, "loaded": le["valid"],
            "warnings": warns, "errors": sorted({d["code"] for d in errors}),
            "message": errors[0]["message"] if errors else "",
            "strict": bool(st and st["valid"]), "strict_errors": serr,
        }
        rows.append(row)
        state = listed.get(folder)
        want = "active" if le["valid"] else "skipped"
        if state != want:
            disagree.append("%s/%s: --lenient says %s, list says %s" % (repo, folder, want, state or "(absent)"))
    for folder in sorted(set(listed) - set(lenient)):
        disagree.append("%s/%s: listed (%s) but not validated" % (repo, folder, listed[folder]))
    # a folder without SKILL.md or skill.md (Skill.md, say) is no skill to
    # skit: count it, skipped, so the total is every folder of the collection
    base = os.path.join(top, repo)
    for folder in sorted(os.listdir(base)):
        if folder in lenient or not os.path.isdir(os.path.join(base, folder)):
            continue
        files = sorted(f for f in os.listdir(os.path.join(base, folder)) if f.lower().endswith(".md"))
        rows.append({
            "repo": repo, "folder": folder, "loaded": False, "warnings": [],
            "errors": ["missing-skill-md"],
            "message": "no SKILL.md or skill.md (found: %s)" % (", ".join(files) or "nothing"),
            "strict": False, "strict_errors": ["missing-skill-md"],
        })
        if folder in listed:
            disagree.append("%s/%s: listed (%s) but has no SKILL.md" % (repo, folder, listed[folder]))

total = len(rows)
loaded = [r for r in rows if r["loaded"]]
clean = [r for r in loaded if not r["warnings"]]
skipped = [r for r in rows if not r["loaded"]]
nofm = [r for r in skipped if NOFM in r["errors"]]
other = [r for r in skipped if NOFM not in r["errors"]]
strict_ok = [r for r in rows if r["strict"]]
repos = len({r["repo"] for r in rows})

def pct(a, b):
    return "%5.1f%%" % (100.0 * a / b) if b else "    -"

print("Real skills: %s (%d repositories, %d skills)" % (top, repos, total))
print("skit: %s" % skit)
print()
print("%-44s %7s %7s" % ("", "skills", "share"))
for label, k in (("loaded (loading rules)", len(loaded)),
                 ("  without a warning", len(clean)),
                 ("  with warnings", len(loaded) - len(clean)),
                 ("skipped", len(skipped)),
                 ("  no frontmatter (skipped by design)", len(nofm)),
                 ("  other reasons", len(other)),
                 ("valid under the spec (skit validate)", len(strict_ok)),
                 ("invalid under the spec", total - len(strict_ok))):
    print("%-44s %7d %7s" % (label, k, pct(k, total)))
print()
with_fm = total - len(nofm)
acc_all = 100.0 * len(loaded) / total if total else 0.0
acc_fm = 100.0 * len(loaded) / with_fm if with_fm else 0.0
print("acceptance, all skills:                  %d/%d = %.1f%%" % (len(loaded), total, acc_all))
print("acceptance, skills with a frontmatter:   %d/%d = %.1f%%" % (len(loaded), with_fm, acc_fm))
print("conformance (strict), all skills:        %d/%d = %.1f%%" % (len(strict_ok), total, 100.0 * len(strict_ok) / total if total else 0.0))

def table(title, counter, first=None):
    print()
    print(title)
    if not counter:
        print("  (none)")
        return
    for code, k in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])):
        line = "  %-30s %5d %7s" % (code, k, pct(k, total))
        if first:
            line += "  %s" % first[code]
        print(line.rstrip())

warn = collections.Counter(c for r in loaded for c in r["warnings"])
table("Warnings of the loaded skills (skills carrying each code):", warn)
skip = collections.Counter(r["errors"][0] if r["errors"] else "(none)" for r in skipped)
firstmsg = {}
for r in skipped:
    firstmsg.setdefault(r["errors"][0] if r["errors"] else "(none)", r["message"])
table("Skip reasons (code, skills, first message):", skip, firstmsg)
serr = collections.Counter(c for r in rows if not r["strict"] for c in r["strict_errors"])
table("Strict errors (skills carrying each code):", serr)

if skipped:
    print()
    print("Skipped skills:")
    for r in skipped:
        print("  %s/%s: [%s] %s" % (r["repo"], r["folder"], ",".join(r["errors"]), r["message"]))
if disagree:
    print()
    print("The registry and --lenient disagree:")
    for d in disagree:
        print("  " + d)

if tsv:
    with open(tsv, "w", encoding="utf-8") as f:
        f.write("repo\tfolder\tlenient\tlenient_codes\tstrict\tstrict_codes\tskip_message\n")
        for r in rows:
            f.write("%s\t%s\t%s\t%s\t%s\t%s\t%s\n" % (
                r["repo"], r["folder"], "loaded" if r["loaded"] else "skipped",
                ",".join(r["errors"] or r["warnings"]), "valid" if r["strict"] else "invalid",
                ",".join(r["strict_errors"]), r["message"]))

status = 1 if disagree else 0
if minimum and acc_fm < float(minimum):
    print()
    print("below --min %s%%" % minimum)
    status = 1
sys.exit(status)
EOF
