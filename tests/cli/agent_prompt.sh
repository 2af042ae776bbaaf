#!/bin/sh
# agent_prompt.sh - the approval prompt, on a pseudo-terminal, shows the
# exact call: a newline as a visible mark (never a space), bidi, zero-
# width and control characters as \u{XXXX}; none of them reaches the
# terminal raw. The same for the refusal printed without a terminal.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
# Commands: "git status<LF>rm -rf ~/.ssh", "echo <U+202E>txt.exe",
# "echo a<U+200B>b<TAB>c<ESC>[31m".
python3 - "$T/calls.jsonl" <<'PY'
import json, sys
calls = ["git status\nrm -rf ~/.ssh", "echo \u202etxt.exe",
         "echo a\u200bb\tc\x1b[31m"]
with open(sys.argv[1], "w") as f:
    for i, c in enumerate(calls):
        f.write(json.dumps({"tool_calls": [{"id": "c%d" % i, "name": "shell",
                "arguments": {"command": c}}]}) + "\n")
    f.write(json.dumps({"text": "DONE"}) + "\n")
PY

# On a terminal: answer "n" to every prompt, keep all the terminal saw.
python3 - "$SKIT" "$T/calls.jsonl" "$W" "$T/tty.out" <<'PY'
import os, pty, sys, time, select
skit, cass, w, out = sys.argv[1:5]
argv = [skit, "run", "--root", "project=" + w + "/skills", "--no-audit",
        "--quiet", "--model", "replay:" + cass, "go"]
env = dict(os.environ, NO_COLOR="1")
pid, fd = pty.fork()
if pid == 0:
    os.execve(skit, argv, env)
seen = b""
answered = 0
deadline = time.time() + 60
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 1.0)
    if not r:
        continue
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    while seen.count(b"Allow? [y]es") > answered:
        os.write(fd, b"n\n")
        answered += 1
os.waitpid(pid, 0)
open(out, "wb").write(seen)
PY
[ -s "$T/tty.out" ] && reg_pass || reg_fail "nothing read from the terminal"
has "$T/tty.out" "skit: approval needed" "the prompt is shown on a terminal"
has "$T/tty.out" "shell: git status⏎rm -rf ~/.ssh" "a newline is a visible mark"
lacks "$T/tty.out" "git status rm -rf" "never a space"
has "$T/tty.out" 'shell: echo \u{202E}txt.exe' "U+202E is shown as an escape"
has "$T/tty.out" 'echo a\u{200B}b\u{0009}c\u{001B}[31m' \
	"zero-width, tab and escape characters are shown"
if grep -q "$(printf '\342\200\256')" "$T/tty.out"; then
	reg_fail "U+202E reached the terminal raw"
else
	reg_pass
fi
if grep -q "$(printf '\342\200\213')" "$T/tty.out"; then
	reg_fail "U+200B reached the terminal raw"
else
	reg_pass
fi
if grep -q "$(printf '\033')\[31m" "$T/tty.out"; then
	reg_fail "an escape sequence reached the terminal raw"
else
	reg_pass
fi
has "$T/tty.out" 'arguments: {"command":"echo \u{202E}txt.exe"}' \
	"the arguments line is escaped too"

# Without a terminal: the refusal shows the call the same way (an
# --allow for another command makes shell offered).
run run --root "project=$W/skills" --no-audit --quiet --allow 'Bash(true)' \
	--model "replay:$T/calls.jsonl" go </dev/null
has "$T/err" "shell: git status⏎rm -rf ~/.ssh" "the refusal marks the newline"
has "$T/err" 'shell: echo \u{202E}txt.exe' "and escapes U+202E"
if grep -q "$(printf '\342\200\256')" "$T/err"; then
	reg_fail "U+202E reached stderr raw"
else
	reg_pass
fi
reg_done
