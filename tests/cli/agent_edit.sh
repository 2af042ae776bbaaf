#!/bin/sh
# agent_edit.sh - edit_file, multi_edit and glob through `skit run`: an
# edit needs an approval (none without --yes or an --allow), Edit and
# MultiEdit patterns grant and refuse it, protected paths stay protected
# whatever --allow says, and glob hides what a Read deny names, skips
# .git and follows no link out of the project.
. "$(dirname "$0")/agent_lib.inc"
agent_world
P=$W/proj
mkdir -p "$P/.git" "$P/src" "$P/secrets" "$W/outside"
printf 'int x = 1;\nint y = 2;\n' >"$P/src/a.c"
printf 'key\n' >"$P/secrets/k.c"
printf 'git\n' >"$P/.git/config"
printf 'o\n' >"$W/outside/o.c"
ln -s "$W/outside" "$P/link-out"
cd "$P" || exit 1
printf '%s\n' \
	'{"tool_calls": [{"id": "e1", "name": "edit_file", "arguments": {"path": "src/a.c", "old_string": "int x = 1;", "new_string": "int x = 42;"}}, {"id": "e2", "name": "multi_edit", "arguments": {"path": "src/a.c", "edits": [{"old_string": "int y = 2;", "new_string": "int y = 7;"}, {"old_string": "int y = 7;", "new_string": "int y = 8;"}]}}, {"id": "e3", "name": "edit_file", "arguments": {"path": ".git/config", "old_string": "git", "new_string": "EVIL"}}]}' \
	'{"tool_calls": [{"id": "g1", "name": "glob", "arguments": {"pattern": "**/*.c"}}]}' \
	'{"text": "DONE"}' >"$T/edit.jsonl"

# erun ARGS...: the cassette in the project, trail in .agents/runs
erun() {
	rm -f "$T/req.jsonl"
	printf 'int x = 1;\nint y = 2;\n' >"$P/src/a.c"
	timeout 60 "$SKIT" run --quiet --request-log "$T/req.jsonl" \
		--model "replay:$T/edit.jsonl" "$@" go </dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

# No --yes, no terminal: the edits are not even offered.
erun
expect_rc 0 "no approval"
has "$P/src/a.c" "int x = 1;" "no edit without an approval"
has "$T/req.jsonl" "tool 'edit_file' is not available now" "the model is told"

# --allow 'Edit(src/**)' grants both edit tools; .git stays protected.
erun --allow 'Edit(src/**)' --allow 'Edit(.git/**)'
expect_rc 0 "Edit allowed"
has "$P/src/a.c" "int x = 42;" "edit_file edited"
has "$P/src/a.c" "int y = 8;" "multi_edit edited, each edit on the one before"
has "$P/.git/config" "git" ".git untouched"
lacks "$P/.git/config" "EVIL" "no write to .git"
has "$T/req.jsonl" ".git/config: protected path" "the model is told .git is protected"
has "$T/req.jsonl" "Edited src/a.c: 1 replacement (line 1)" "the result names the line"
# glob: newest first; no .git, no link, and the trail has the digests.
has "$T/req.jsonl" 'newest first:\nsrc/a.c\n' "glob finds src/a.c"
has "$T/req.jsonl" 'secrets/k.c' "without a deny rule glob lists secrets/"
lacks "$T/req.jsonl" 'link-out/o.c' "no link is followed"
cat "$P"/.agents/runs/*/events.jsonl >"$T/events"
has "$T/events" '"type":"file_edited"' "the edit is audited"
has "$T/events" '"sha256_before"' "with the digest before"
has "$T/events" '"sha256_after"' "and after"

# --deny 'MultiEdit(src/**)' refuses both edit tools even with --yes,
# and --deny 'Read(secrets/**)' hides secrets/ from glob.
erun --yes --deny 'MultiEdit(src/**)' --deny 'Read(secrets/**)'
expect_rc 0 "MultiEdit denied"
has "$P/src/a.c" "int x = 1;" "no edit under the deny rule"
has "$T/req.jsonl" "denied by --deny 'MultiEdit(src/**)'" "the model is told why"
lacks "$T/req.jsonl" 'secrets/k.c' "a Read deny hides the file from glob"
has "$T/req.jsonl" "1 entry hidden by the permission rules" "glob says so"
reg_done
