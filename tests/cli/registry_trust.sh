#!/bin/sh
# SPDX-License-Identifier: MIT
# registry_trust.sh - what the registry tells about skills that may not be
# what they seem: look-alike and mixed-script names (validate, doctor,
# install), a project skill shadowing a user skill (list, show, and the
# model's index), roots and skill folders others can write or own (doctor,
# also as an unprivileged user), nested skills (validate, doctor), and
# `show` printing only what one read of SKILL.md gave while the file is
# swapped under it.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

# ---- 6. confusable and mixed-script names --------------------------------
CYR=$(printf '\321\200df-pr\320\276\321\201essing')
skill c pdf-processing "Latin PDF."
skill c "$CYR" "Cyrillic PDF."
skill c pdf-tools "Tools."
skill c pdf-tool "Tool."
skill c 日本語-スキル "Japanese."

run list --root c
expect_rc 0 "list with look-alike names"
lines "$T/out" 5 "both look-alikes are listed"
run doctor --root c
expect_rc 1 "doctor fails on look-alike names"
has "$T/out" "[name-confusable]" "doctor: confusable pair"
has "$T/out" "looks like 'pdf-processing'" "doctor names the other skill"
has "$T/out" "mixes scripts (Cyrillic, Latin)" "doctor: mixed script"
lacks "$T/out" "'pdf-tool'" "pdf-tool and pdf-tools are not look-alikes"
lacks "$T/out" "日本語-スキル' (c) mixes" "Han with Katakana is one script"
run doctor --root c --json
json_ok "$T/out" "doctor --json"
has "$T/out" '"code": "name-confusable"' "doctor --json: confusable"
has "$T/out" '"code": "mixed-script"' "doctor --json: mixed script"

run validate "c/$CYR"
expect_rc 0 "a mixed-script name is a warning, not an error"
has "$T/err" "[name-mixed-script]" "validate lints a mixed-script name"
run validate c/pdf-processing
expect_rc 0 "validate pdf-processing"
lacks "$T/err" "mixed-script" "a one-script name is not linted"
run validate --strict "c/$CYR"
expect_rc 1 "--strict fails on the lint"

mkdir -p inst
run install --root inst c/pdf-processing
expect_rc 0 "install pdf-processing"
run install --root inst "c/$CYR"
expect_rc 1 "install refuses a look-alike of an installed skill"
has "$T/err" "looks like the installed skill pdf-processing" \
	"install names the other skill"
[ ! -e "inst/$CYR" ] && reg_pass || reg_fail "the look-alike was installed"
run install --root inst --force "c/$CYR"
expect_rc 0 "--force installs it anyway"

# ---- 7. shadowing ------------------------------------------------------
skill p pdf "PROJECT-PDF-DESC"
skill u pdf "USER-PDF-SECRET-DESC"
skill u other "Other."
run list --root project=p --root user=u
expect_rc 0 "list"
has "$T/out" "[shadows user]" "list marks the project copy"
lines "$T/out" 2 "the shadowed copy is not listed"
run list --root project=p --root user=u --json
json_ok "$T/out" "list --json"
python3 - "$T/out" "$W" <<'PY' && reg_pass || reg_fail "list --json shadows"
import json, sys
e = {x["name"]: x for x in json.load(open(sys.argv[1]))}
assert e["pdf"]["shadows"] == [{"source": "user", "dir": sys.argv[2] + "/u/pdf"}], e
assert "shadows" not in e["other"]
PY
run show pdf --root project=p --root user=u
expect_rc 0 "show pdf"
has "$T/err" "shadows the user copy in $W/u/pdf" "show says it shadows"
run show pdf --root project=p --root user=u --json
json_ok "$T/out" "show --json"
has "$T/out" '"shadows": [{"source": "user"' "show --json shadows"
run show pdf --source user --root project=p --root user=u --json
has "$T/out" '"shadowed_by": "project"' "show --json of the shadowed copy"
run show pdf --source user --root project=p --root user=u
has "$T/err" "is shadowed by the project copy" "show of the shadowed copy"
# the model's index: the winner only, nothing of the shadowed copy
printf '%s\n' '{"text": "DONE"}' >"$T/done.jsonl"
mkdir -p work
timeout 60 "$SKIT" run --yes --quiet --no-audit --root project=p \
	--root user=u --workdir "$W/work" --request-log "$T/req.jsonl" \
	--model "replay:$T/done.jsonl" go </dev/null >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "a run with a shadowed skill"
has "$T/req.jsonl" "PROJECT-PDF-DESC" "the index has the winner"
lacks "$T/req.jsonl" "USER-PDF-SECRET-DESC" "nothing of the shadowed copy"
lacks "$T/req.jsonl" "$W/u/pdf" "not even its path"

# ---- 8. unsafe roots and folders -----------------------------------------
skill s ok
skill s open
chmod 0777 s/open
run doctor --root s
expect_rc 0 "doctor: a world-writable skill folder is a warning"
has "$T/out" "warning" "the unsafe folder is counted as a warning"
run doctor --strict --root s
expect_rc 1 "doctor --strict: a world-writable skill folder fails"
# ... and every command that loads skills says so, as ssh does
run list --root s
expect_rc 0 "list over an unsafe folder"
has "$T/err" "warning: $W/s/open: skill folder writable by everyone" "list warns at load"
run show --root s ok
has "$T/err" "writable by everyone" "show warns at load"
run doctor --root s
has "$T/out" "$W/s/open: skill folder writable by everyone (mode 0777)" \
	"unsafe-folder"
lacks "$T/out" "$W/s/ok:" "a safe folder is not reported"
chmod 0775 s
run doctor --root s
has "$T/out" "[unsafe-root]" "a group-writable root"
has "$T/out" "writable by its group (mode 0775)" "why the root is unsafe"
chmod 0755 s s/open
run doctor --root s
expect_rc 0 "doctor once the modes are fixed"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	nobody=$(id -u nobody)
	chown nobody s/open
	run doctor --root s
	has "$T/out" "owned by uid $nobody, not by you (uid 0) or root" \
		"a foreign-owned folder (as root)"
	# as an unprivileged user: root-owned is fine, its own is fine,
	# another user's is not
	skill s theirs
	chown daemon s/theirs
	chmod 0755 "$W" "$SKIT_TEST_DIR" "$T"
	chmod -R a+rX s
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env HOME=/nonexistent XDG_CACHE_HOME=/nonexistent \
		"$SKIT" doctor --root "$W/s" >"$T/nb.out" 2>"$T/nb.err"
	rc=$?
	expect_rc 0 "doctor as nobody: warnings only"
	has "$T/nb.out" "$W/s/theirs: skill folder owned by uid $(id -u daemon), not by you (uid $nobody)" \
		"another user's folder, seen by nobody"
	lacks "$T/nb.out" "$W/s/open:" "nobody's own folder is safe"
	lacks "$T/nb.out" "$W/s/ok:" "a root-owned folder is safe"
	lacks "$T/nb.out" "[unsafe-root]" "a root-owned root is safe"
	chown root s/open
	rm -rf s/theirs
fi

# ---- 9. nested skills ----------------------------------------------------
skill n outer
mkdir -p n/outer/scripts/inner
printf -- '---\nname: inner\ndescription: Inner.\n---\nInner body.\n' \
	>n/outer/scripts/inner/SKILL.md
run validate n/outer
expect_rc 0 "a nested skill is a warning"
has "$T/err" "scripts/inner/SKILL.md is a skill inside this skill" \
	"validate lints the nested skill"
has "$T/err" "[nested-skill]" "nested-skill code"
run doctor --root n
expect_rc 1 "doctor fails on a nested skill"
has "$T/out" "Nested skills" "doctor lists nested skills"
has "$T/out" "$W/n/outer/scripts/inner/SKILL.md (in outer, root)" \
	"doctor names it"
run doctor --root n --json
json_ok "$T/out" "doctor --json"
has "$T/out" '"file": "scripts/inner/SKILL.md"' "doctor --json nested"
run list --root n
lines "$T/out" 1 "the nested skill is not a skill"

# ---- 10. show reads SKILL.md once ----------------------------------------
# show must print what one read of SKILL.md gave: never the invalid
# version's body, never the description of one version with the body of
# another. A swapper replaces the file (rename: always a whole file) with
# the three versions in turn while show runs; it counts its swaps in
# $T/swaps, so each show run knows whether a swap happened during it (the
# race window). The property is proven only by runs that overlapped a swap;
# when none did (a machine too busy to interleave them), the test says so
# rather than pass as if it had been tested.
mkdir -p x/swap
printf -- '---\nname: swap\ndescription: DESC-A\n---\nBODY-A\n' >"$T/a.md"
printf -- '---\nname: swap\ndescription: DESC-B\n---\nBODY-B\n' >"$T/b.md"
printf -- '---\nname: swap\n---\nINVALID-BODY\n' >"$T/bad.md"
cp "$T/a.md" x/swap/SKILL.md
echo 0 >"$T/swaps"
(
	n=0
	while [ ! -e "$T/stop" ]; do
		for v in a bad b bad; do
			cp "$T/$v.md" x/swap/.tmp && mv x/swap/.tmp x/swap/SKILL.md
			n=$((n + 1))
			echo $n >"$T/swaps.tmp" && mv "$T/swaps.tmp" "$T/swaps"
		done
	done
) &
swapper=$!
trap 'touch "$T/stop"; kill $swapper 2>/dev/null' EXIT
bad=0 mixed=0 ok=0 overlapped=0 seen_a=0 seen_b=0
i=0
while [ $i -lt 200 ]; do
	for mode in text json; do
		before=$(cat "$T/swaps")
		if [ $mode = text ]; then
			SKIT_NO_CACHE=1 timeout 60 "$SKIT" show swap --root x \
				>"$T/s.out" 2>/dev/null
		else
			SKIT_NO_CACHE=1 timeout 60 "$SKIT" show swap --root x \
				--json >"$T/s.out" 2>/dev/null
		fi
		status=$?
		[ "$(cat "$T/swaps")" != "$before" ] && overlapped=$((overlapped + 1))
		[ $status -eq 0 ] || continue
		ok=$((ok + 1))
		if [ $mode = text ]; then
			grep -q INVALID-BODY "$T/s.out" && bad=$((bad + 1))
			grep -q BODY-A "$T/s.out" && seen_a=$((seen_a + 1))
			grep -q BODY-B "$T/s.out" && seen_b=$((seen_b + 1))
		else
			python3 - "$T/s.out" <<'PY' || mixed=$((mixed + 1))
import json, sys
j = json.load(open(sys.argv[1]))
v = j["description"][-1]
assert v in "AB" and j["body"] == "BODY-" + v, j
PY
		fi
	done
	i=$((i + 1))
done
touch "$T/stop"
wait $swapper
trap - EXIT
[ $bad -eq 0 ] && reg_pass || reg_fail "show printed an invalid body $bad times"
[ $mixed -eq 0 ] && reg_pass || reg_fail "show --json mixed versions $mixed times"
[ $ok -gt 0 ] && reg_pass || reg_fail "show never succeeded while swapping"
echo "show under swaps: $ok successful runs of 400, $overlapped overlapped a swap (A seen $seen_a times, B $seen_b)"
if [ $overlapped -eq 0 ]; then
	echo "NOTE: the race window was not hit: no show run overlapped a swap, so section 10 proved nothing this time"
fi
# an invalid file at show time: exit 1, nothing printed
cp "$T/a.md" x/swap/SKILL.md
run show swap --root x
expect_rc 0 "show swap"
has "$T/out" "BODY-A" "show prints the body"

reg_done
