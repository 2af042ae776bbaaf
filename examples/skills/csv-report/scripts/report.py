#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report.py - summarise a CSV file as Markdown.

Usage: report.py [--delimiter D] [--top N] [--columns A,B] [--output OUT] FILE

Prints row and column counts, inferred column types, statistics for numeric
columns (min, max, mean, median, standard deviation) and the most common
values of text columns. Standard library only.
"""

import argparse
import collections
import csv
import io
import math
import os
import statistics
import sys


def parse_number(text):
    """Return (kind, value) for a cell: 'int', 'float' or None."""
    t = text.strip()
    if not t:
        return None, None
    try:
        return "int", int(t)
    except ValueError:
        pass
    try:
        v = float(t)
    except ValueError:
        return None, None
    if math.isnan(v) or math.isinf(v):
        return None, None
    return "float", v


class Column:
    def __init__(self, name):
        self.name = name
        self.filled = 0
        self.empty = 0
        self.ints = 0
        self.floats = 0
        self.numbers = []
        self.values = collections.Counter()

    def add(self, cell):
        if not cell.strip():
            self.empty += 1
            return
        self.filled += 1
        self.values[cell.strip()] += 1
        kind, value = parse_number(cell)
        if kind == "int":
            self.ints += 1
            self.numbers.append(value)
        elif kind == "float":
            self.floats += 1
            self.numbers.append(value)

    def kind(self):
        if not self.filled:
            return "empty"
        if self.ints == self.filled:
            return "integer"
        if self.ints + self.floats == self.filled:
            return "number"
        return "text"


def fmt(v):
    if isinstance(v, int):
        return str(v)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return "%.4g" % v if abs(v) >= 1e6 or abs(v) < 1e-3 else "%.3f" % v


def md_cell(text, limit=40):
    """Make a value safe and short inside a Markdown table cell."""
    t = " ".join(text.split()).replace("|", "\\|")
    return t if len(t) <= limit else t[: limit - 3] + "..."


def sniff_delimiter(sample, forced):
    if forced:
        return forced.encode().decode("unicode_escape")
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def main(argv):
    ap = argparse.ArgumentParser(description="Summarise a CSV file as Markdown.")
    ap.add_argument("file", help="the CSV file ('-' for standard input)")
    ap.add_argument("--delimiter", help="field delimiter (default: detect)")
    ap.add_argument("--top", type=int, default=5,
                    help="most common values to list for text columns")
    ap.add_argument("--columns", help="comma-separated column names to report")
    ap.add_argument("--output", help="write the report to this file "
                    "instead of standard output")
    args = ap.parse_args(argv)

    try:
        if args.file == "-":
            raw = sys.stdin.buffer.read()
            label = "standard input"
        else:
            with open(args.file, "rb") as f:
                raw = f.read()
            label = os.path.basename(args.file)
    except OSError as e:
        print("report.py: %s" % e, file=sys.stderr)
        return 1

    text = raw.decode("utf-8-sig", errors="replace")
    bad_rows = 0
    delimiter = sniff_delimiter(text[:64 * 1024], args.delimiter)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        print("report.py: %s is empty" % label, file=sys.stderr)
        return 1

    names = [h.strip() or "column %d" % (i + 1) for i, h in enumerate(header)]
    cols = [Column(n) for n in names]
    rows = ragged = 0
    for row in reader:
        if not row:
            continue
        rows += 1
        if any("\ufffd" in c for c in row):
            bad_rows += 1
        if len(row) > len(cols):
            ragged += 1
        for i, col in enumerate(cols):
            col.add(row[i] if i < len(row) else "")

    wanted = cols
    if args.columns:
        want = [w.strip() for w in args.columns.split(",") if w.strip()]
        missing = [w for w in want if w not in names]
        if missing:
            print("report.py: no such column: %s (columns: %s)"
                  % (", ".join(missing), ", ".join(names)), file=sys.stderr)
            return 1
        wanted = [c for c in cols if c.name in want]

    out = []
    out.append("# CSV report: %s" % label)
    out.append("")
    out.append("- Rows: %d (not counting the header)" % rows)
    out.append("- Columns: %d" % len(cols))
    out.append("- Delimiter: `%s`" % ("\\t" if delimiter == "\t" else delimiter))
    if ragged:
        out.append("- Ragged rows (more cells than the header): %d" % ragged)
    if bad_rows:
        out.append("- Rows with bytes that are not UTF-8: %d" % bad_rows)
    out.append("")
    out.append("## Columns")
    out.append("")
    out.append("| column | type | filled | empty | distinct |")
    out.append("|---|---|---:|---:|---:|")
    for c in wanted:
        out.append("| %s | %s | %d | %d | %d |" % (md_cell(c.name), c.kind(),
                   c.filled, c.empty, len(c.values)))

    numeric = [c for c in wanted if c.kind() in ("integer", "number")]
    if numeric:
        out.append("")
        out.append("## Numeric columns")
        out.append("")
        out.append("| column | min | max | mean | median | std dev |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for c in numeric:
            sd = statistics.stdev(c.numbers) if len(c.numbers) > 1 else 0.0
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                md_cell(c.name), fmt(min(c.numbers)), fmt(max(c.numbers)),
                fmt(statistics.fmean(c.numbers)),
                fmt(statistics.median(c.numbers)), fmt(sd)))

    text_cols = [c for c in wanted if c.kind() == "text"]
    if text_cols and args.top > 0:
        out.append("")
        out.append("## Text columns")
        for c in text_cols:
            out.append("")
            note = ""
            if c.numbers:
                note = " (%d of %d filled cells are numeric)" % (
                    len(c.numbers), c.filled)
            out.append("### %s%s" % (md_cell(c.name), note))
            out.append("")
            for value, n in c.values.most_common(args.top):
                out.append("- `%s`: %d" % (md_cell(value).replace("`", "'"), n))
    text = "\n".join(out) + "\n"
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            print("report.py: %s" % e, file=sys.stderr)
            return 1
        print("wrote %s (%d lines, %d rows, %d columns)"
              % (args.output, len(out), rows, len(cols)))
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        # The reader went away (e.g. piped into head): not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
