#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""diffstat.py - summarise a unified diff for code review.

Usage: diffstat.py [--json] [--max-hints N] [FILE | -]

Reads a unified diff (`git diff`, `git show`, `diff -u`, a .patch file) and
prints, as Markdown (or JSON with --json):

- per file: status (added, deleted, modified, renamed, binary), lines added
  and removed, number of hunks;
- totals;
- review hints found in the *added* lines: TODO/FIXME markers, leftover
  debugging calls, possible hard-coded credentials, very long lines,
  trailing whitespace, and source changes without test changes.

Standard library only. The diff is read, never applied.
"""

import argparse
import json
import os
import re
import sys

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MARKER_RE = re.compile(r"\b(TODO|FIXME|XXX|HACK)\b")
DEBUG_RE = re.compile(
    r"(\bconsole\.log\(|\bdebugger;|\bpdb\.set_trace\(|\bbreakpoint\(\)"
    r"|\bbinding\.pry\b|\bdbg!\(|\bvar_dump\(|^\s*print\(\s*[\"']debug)",
    re.IGNORECASE)
CRED_RE = re.compile(
    r"(passw(or)?d|secret|api[_-]?key|access[_-]?key|token)\w*[\"']?\s*[:=]\s*"
    r"[\"'][^\"'\s]{8,}[\"']", re.IGNORECASE)
TEST_RE = re.compile(r"(^|/)(tests?|spec|__tests__)(/|$)|(_test|\.test|\.spec|"
                     r"_spec)\.[A-Za-z]+$|(^|/)test_[^/]*$")
SOURCE_EXT = {".c", ".h", ".cc", ".cpp", ".hpp", ".py", ".js", ".ts", ".tsx",
              ".jsx", ".go", ".rs", ".java", ".kt", ".rb", ".php", ".cs",
              ".swift", ".scala", ".sh"}
LONG_LINE = 120


class FileDiff:
    def __init__(self, old, new):
        self.old = old
        self.new = new
        self.status = "modified"
        self.added = 0
        self.removed = 0
        self.hunks = 0
        self.binary = False
        self.headers_done = False

    @property
    def path(self):
        return self.new if self.new and self.new != "/dev/null" else self.old

    def to_dict(self):
        d = {"path": self.path, "status": self.status, "added": self.added,
             "removed": self.removed, "hunks": self.hunks}
        if self.status == "renamed":
            d["from"] = self.old
        return d


def strip_prefix(p):
    p = p.split("\t")[0].strip()
    if p.startswith('"') and p.endswith('"'):
        p = p[1:-1]
    if p != "/dev/null" and p[:2] in ("a/", "b/"):
        p = p[2:]
    return p


def parse(lines):
    files = []
    hints = []
    cur = None
    old_left = new_left = 0
    new_line = 0
    pending_old = None

    def start(old, new):
        f = FileDiff(old, new)
        files.append(f)
        return f

    for raw in lines:
        line = raw.rstrip("\n").rstrip("\r")
        if old_left > 0 or new_left > 0:
            tag = line[:1]
            body = line[1:]
            if tag == "+":
                cur.added += 1
                new_left -= 1
                check_added(cur.path, new_line, body, hints)
                new_line += 1
                continue
            if tag == "-":
                cur.removed += 1
                old_left -= 1
                continue
            if tag == " " or line == "":
                old_left -= 1
                new_left -= 1
                new_line += 1
                continue
            if tag == "\\":  # "\ No newline at end of file"
                continue
            old_left = new_left = 0  # malformed hunk: resync on headers
        if line.startswith("diff --git "):
            m = re.match(r'diff --git ("?a/.*?"?) ("?b/.*"?)$', line)
            if m:
                cur = start(strip_prefix(m.group(1)), strip_prefix(m.group(2)))
            else:
                cur = start("", "")
            pending_old = None
        elif line.startswith("--- "):
            pending_old = strip_prefix(line[4:])
        elif line.startswith("+++ ") and pending_old is not None:
            new = strip_prefix(line[4:])
            # Plain `diff -u` output has no "diff --git" line: the ---/+++
            # pair starts the file. After "diff --git" it names it.
            if cur is None or cur.hunks or cur.headers_done:
                cur = start(pending_old, new)
            if pending_old != "/dev/null":
                cur.old = pending_old
            if new != "/dev/null":
                cur.new = new
            if pending_old == "/dev/null":
                cur.status = "added"
            elif new == "/dev/null":
                cur.status = "deleted"
            cur.headers_done = True
            pending_old = None
        elif line.startswith("@@") and cur is not None:
            m = HUNK_RE.match(line)
            if m:
                cur.hunks += 1
                old_left = int(m.group(2) or 1)
                new_left = int(m.group(4) or 1)
                new_line = int(m.group(3))
        elif cur is not None:
            if line.startswith("new file mode"):
                cur.status = "added"
            elif line.startswith("deleted file mode"):
                cur.status = "deleted"
            elif line.startswith("rename from "):
                cur.old = line[len("rename from "):]
                cur.status = "renamed"
            elif line.startswith("rename to "):
                cur.new = line[len("rename to "):]
                cur.status = "renamed"
            elif line.startswith("Binary files ") or line == "GIT binary patch":
                cur.binary = True
                if cur.status == "modified":
                    cur.status = "binary"
    return files, hints


def check_added(path, lineno, text, hints):
    where = "%s:%d" % (path, lineno)
    m = MARKER_RE.search(text)
    if m:
        hints.append(("marker", where, "%s added: %s" % (m.group(1),
                      short(text))))
    if DEBUG_RE.search(text):
        hints.append(("debug", where, "debugging call left in: %s"
                      % short(text)))
    if CRED_RE.search(text):
        hints.append(("credential", where,
                      "possible hard-coded credential (value not shown)"))
    if len(text) > LONG_LINE:
        hints.append(("long-line", where, "line is %d characters long"
                      % len(text)))
    if text != text.rstrip(" \t") and text.strip():
        hints.append(("whitespace", where, "trailing whitespace"))


def short(text, limit=70):
    t = " ".join(text.split())
    return t if len(t) <= limit else t[:limit - 3] + "..."


def is_test(path):
    return bool(TEST_RE.search(path))


def is_source(path):
    return os.path.splitext(path)[1].lower() in SOURCE_EXT and not is_test(path)


def main(argv):
    ap = argparse.ArgumentParser(description="Summarise a unified diff.")
    ap.add_argument("file", nargs="?", default="-",
                    help="the diff ('-' or nothing for standard input)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--max-hints", type=int, default=50,
                    help="list at most this many hints (default 50)")
    args = ap.parse_args(argv)

    try:
        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                text = f.read()
    except OSError as e:
        print("diffstat.py: %s" % e, file=sys.stderr)
        return 1
    lines = text.decode("utf-8", errors="replace").splitlines()
    files, hints = parse(lines)
    if not files:
        print("diffstat.py: no unified diff found in the input",
              file=sys.stderr)
        return 1

    src = [f.path for f in files if is_source(f.path)
           and f.status != "deleted"]
    tests = [f.path for f in files if is_test(f.path)]
    if src and not tests:
        hints.append(("tests", "-", "%d source file(s) changed but no test "
                      "files were touched" % len(src)))

    total_add = sum(f.added for f in files)
    total_del = sum(f.removed for f in files)
    if args.json:
        print(json.dumps({
            "files": [f.to_dict() for f in files],
            "totals": {"files": len(files), "added": total_add,
                       "removed": total_del},
            "hints": [{"kind": k, "where": w, "message": m}
                      for k, w, m in hints[:args.max_hints]],
            "hints_total": len(hints),
        }, indent=2))
        return 0

    out = ["# Diff summary", ""]
    out.append("%d file(s) changed, %d insertion(s)(+), %d deletion(s)(-)"
               % (len(files), total_add, total_del))
    out.append("")
    out.append("| file | status | + | - | hunks |")
    out.append("|---|---|---:|---:|---:|")
    for f in sorted(files, key=lambda f: -(f.added + f.removed)):
        name = f.path.replace("|", "\\|")
        if f.status == "renamed":
            name = "%s (from %s)" % (name, f.old.replace("|", "\\|"))
        out.append("| %s | %s | %d | %d | %d |" % (name, f.status, f.added,
                                                    f.removed, f.hunks))
    out.append("")
    out.append("## Review hints")
    out.append("")
    if not hints:
        out.append("None found. Still read the change: these checks are "
                   "only heuristics.")
    for kind, where, msg in hints[:args.max_hints]:
        out.append("- [%s] `%s` %s" % (kind, where, msg.replace("`", "'")))
    if len(hints) > args.max_hints:
        out.append("- ... and %d more" % (len(hints) - args.max_hints))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        # The reader went away (e.g. piped into head): not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
