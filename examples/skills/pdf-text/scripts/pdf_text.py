#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pdf_text.py - extract the text of a PDF with the Python standard library.

Usage: pdf_text.py [--engine auto|builtin|pdftotext] [--pages 1-3,7]
                   [--marks] FILE

The built-in extractor handles ordinary, unencrypted PDFs: uncompressed and
Flate/ASCIIHex/ASCII85-encoded content streams, object streams, the page
tree, and fonts with a ToUnicode map or a simple (WinAnsi/Latin) encoding.
It does not do OCR, decryption or layout analysis.

With --engine auto (the default), if the built-in extractor finds no text or
cannot read the file, and poppler's `pdftotext` is installed, pdftotext is
used instead; a note on standard error says which engine produced the text.
Exit status: 0 text printed, 1 no text could be extracted, 2 usage error.
"""

import argparse
import base64
import os
import re
import shutil
import subprocess
import sys
import zlib

MAX_INFLATE = 64 * 1024 * 1024  # refuse to inflate a stream beyond this


class PdfError(Exception):
    pass


class Ref:
    __slots__ = ("num",)

    def __init__(self, num):
        self.num = num


class Name(str):
    pass


class Op(str):
    pass


# ---- lexer --------------------------------------------------------------

WS = b" \t\r\n\f\x00"
DELIM = b"()<>[]{}/%"
ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def parse_literal(data, i):
    """Parse a (string) starting after '('; return (bytes, next index)."""
    out = bytearray()
    depth = 1
    n = len(data)
    while i < n:
        c = data[i:i + 1]
        if c == b"\\":
            i += 1
            e = data[i:i + 1]
            if e in ESCAPES:
                out += ESCAPES[e]
                i += 1
            elif e in b"01234567" and e:
                j = i
                while j < n and j < i + 3 and data[j:j + 1] in b"01234567":
                    j += 1
                out.append(int(data[i:j], 8) & 0xFF)
                i = j
            elif e == b"\r":
                i += 2 if data[i + 1:i + 2] == b"\n" else 1
            elif e == b"\n":
                i += 1
            else:
                out += e
                i += 1
            continue
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return bytes(out), i + 1
        out += c
        i += 1
    return bytes(out), i


def tokens(data, i=0):
    """Yield PDF tokens from `data` (bytes), starting at index i."""
    n = len(data)
    while i < n:
        c = data[i]
        if c in WS:
            i += 1
        elif c == 0x25:  # % comment
            while i < n and data[i] not in b"\r\n":
                i += 1
        elif c == 0x28:  # (
            s, i = parse_literal(data, i + 1)
            yield s
        elif data[i:i + 2] == b"<<":
            yield Op("<<")
            i += 2
        elif data[i:i + 2] == b">>":
            yield Op(">>")
            i += 2
        elif c == 0x3C:  # <hex>
            j = data.find(b">", i)
            if j < 0:
                j = n
            h = re.sub(rb"[^0-9A-Fa-f]", b"", data[i + 1:j])
            if len(h) % 2:
                h += b"0"
            yield bytes.fromhex(h.decode())
            i = j + 1
        elif c in b"[]{}":
            yield Op(chr(c))
            i += 1
        elif c == 0x2F:  # /Name
            j = i + 1
            while j < n and data[j] not in WS and data[j] not in DELIM:
                j += 1
            raw = data[i + 1:j]
            raw = re.sub(rb"#([0-9A-Fa-f]{2})",
                         lambda m: bytes([int(m.group(1), 16)]), raw)
            yield Name(raw.decode("latin-1"))
            i = j
        else:
            j = i
            while j < n and data[j] not in WS and data[j] not in DELIM:
                j += 1
            if j == i:  # stray delimiter such as ')' or '>'
                i += 1
                continue
            word = data[i:j].decode("latin-1")
            i = j
            if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)", word):
                yield float(word) if "." in word else int(word)
            else:
                yield Op(word)


def parse_objects(toks):
    """Turn tokens into values: dicts, lists, refs; operators stay Op."""
    stack = [[]]
    for t in toks:
        if t == "R" and isinstance(t, Op):
            cur = stack[-1]
            if len(cur) >= 2 and isinstance(cur[-1], int) and \
                    isinstance(cur[-2], int):
                cur[-2:] = [Ref(cur[-2])]
                continue
        if isinstance(t, Op) and t in ("[", "<<"):
            stack.append([t])
        elif isinstance(t, Op) and t in ("]", ">>") and len(stack) > 1:
            items = stack.pop()
            opener = items.pop(0)
            if opener == "<<":
                d = {}
                it = iter(items)
                for k in it:
                    d[k] = next(it, None)
                stack[-1].append(d)
            else:
                stack[-1].append(items)
        else:
            stack[-1].append(t)
    return stack[0]


# ---- document -----------------------------------------------------------

OBJ_RE = re.compile(rb"(\d+)\s+(\d+)\s+obj\b")


class Document:
    def __init__(self, data):
        if not data.startswith(b"%PDF-") and b"%PDF-" not in data[:1024]:
            raise PdfError("not a PDF file (no %PDF- header)")
        self.data = data
        self.objects = {}   # num -> (dict or value, stream bytes or None)
        self.trailer = {}
        self._scan()

    def _scan(self):
        data = self.data
        for m in OBJ_RE.finditer(data):
            num = int(m.group(1))
            start = m.end()
            end = data.find(b"endobj", start)
            if end < 0:
                end = len(data)
            body = data[start:end]
            stream = None
            s = re.search(rb"stream(\r\n|\n|\r)", body)
            if s and b"endstream" in body[s.end():]:
                head = body[:s.start()]
                raw = body[s.end():body.rfind(b"endstream")]
                value = parse_objects(tokens(head))
                value = value[0] if value else None
                if isinstance(value, dict):
                    length = value.get("Length")
                    if isinstance(length, int) and 0 <= length <= len(raw):
                        raw = raw[:length]
                    else:
                        raw = raw.rstrip(b"\r\n")
                stream = raw
            else:
                value = parse_objects(tokens(body))
                value = value[0] if value else None
            # Later definitions (incremental updates) win.
            self.objects[num] = (value, stream)
        for m in re.finditer(rb"trailer\s*<<", data):
            vals = parse_objects(tokens(data, m.end() - 2))
            if vals and isinstance(vals[0], dict):
                self.trailer.update(vals[0])
        self._load_object_streams()
        if not self.trailer.get("Root"):
            for value, _ in self.objects.values():
                if isinstance(value, dict) and value.get("Type") == "XRef":
                    self.trailer.update(value)
        if self.trailer.get("Encrypt"):
            raise PdfError("the PDF is encrypted")

    def _load_object_streams(self):
        for num, (value, stream) in list(self.objects.items()):
            if not (isinstance(value, dict) and value.get("Type") == "ObjStm"):
                continue
            try:
                data = self.decode(value, stream)
            except PdfError:
                continue
            first = value.get("First", 0)
            head = [t for t in tokens(data[:first]) if isinstance(t, int)]
            for k in range(0, len(head) - 1, 2):
                onum, off = head[k], head[k + 1]
                vals = parse_objects(tokens(data, first + off))
                if vals and onum not in self.objects:
                    self.objects[onum] = (vals[0], None)

    def get(self, v):
        seen = 0
        while isinstance(v, Ref) and seen < 32:
            v = self.objects.get(v.num, (None, None))[0]
            seen += 1
        return v

    def stream_of(self, v):
        if isinstance(v, Ref):
            value, stream = self.objects.get(v.num, (None, None))
            if stream is not None:
                return self.decode(value, stream)
        return None

    def decode(self, value, stream):
        filters = self.get(value.get("Filter")) if isinstance(value, dict) else None
        if filters is None:
            filters = []
        elif not isinstance(filters, list):
            filters = [filters]
        data = stream
        for f in filters:
            f = self.get(f)
            if f in ("FlateDecode", "Fl"):
                d = zlib.decompressobj()
                try:
                    out = d.decompress(data, MAX_INFLATE)
                except zlib.error:
                    # Truncated or sloppy streams: keep what inflated.
                    out = b""
                    try:
                        d = zlib.decompressobj()
                        for k in range(0, len(data), 1024):
                            out += d.decompress(data[k:k + 1024])
                    except zlib.error:
                        pass
                if d.unconsumed_tail:
                    raise PdfError("a stream inflates beyond %d bytes"
                                   % MAX_INFLATE)
                data = out
            elif f in ("ASCIIHexDecode", "AHx"):
                h = re.sub(rb"[^0-9A-Fa-f]", b"", data.split(b">")[0])
                data = bytes.fromhex((h + b"0" * (len(h) % 2)).decode())
            elif f in ("ASCII85Decode", "A85"):
                body = data.strip()
                if body.startswith(b"<~"):
                    body = body[2:]
                body = body.split(b"~>")[0]
                data = base64.a85decode(re.sub(rb"\s", b"", body))
            else:
                raise PdfError("unsupported stream filter /%s" % f)
        return data

    def pages(self):
        """Page dictionaries in document order, with inherited resources."""
        root = self.get(self.trailer.get("Root"))
        out = []
        if isinstance(root, dict):
            self._walk(self.get(root.get("Pages")), None, out, set())
        if not out:  # no usable page tree: take page objects in file order
            for value, _ in self.objects.values():
                if isinstance(value, dict) and value.get("Type") == "Page":
                    out.append((value, self.get(value.get("Resources"))))
        return out

    def _walk(self, node, resources, out, seen):
        if not isinstance(node, dict) or id(node) in seen:
            return
        seen.add(id(node))
        res = self.get(node.get("Resources")) or resources
        if node.get("Type") == "Pages" or "Kids" in node:
            for kid in self.get(node.get("Kids")) or []:
                self._walk(self.get(kid), res, out, seen)
        else:
            out.append((node, res))


# ---- fonts --------------------------------------------------------------

def utf16(b):
    try:
        return b.decode("utf-16-be")
    except UnicodeDecodeError:
        return ""


def parse_cmap(data):
    """ToUnicode CMap -> (dict code bytes -> text, set of code lengths)."""
    cmap = {}
    lengths = set()
    toks = list(tokens(data))
    i = 0
    while i < len(toks):
        t = toks[i]
        if isinstance(t, Op) and t == "beginbfchar":
            i += 1
            while i + 1 < len(toks) and toks[i] != "endbfchar":
                src, dst = toks[i], toks[i + 1]
                if isinstance(src, bytes) and isinstance(dst, bytes):
                    cmap[src] = utf16(dst)
                    lengths.add(len(src))
                i += 2
        elif isinstance(t, Op) and t == "beginbfrange":
            i += 1
            while i + 2 < len(toks) and toks[i] != "endbfrange":
                lo, hi, dst = toks[i], toks[i + 1], toks[i + 2]
                i += 3
                if not (isinstance(lo, bytes) and isinstance(hi, bytes)):
                    continue
                a, b = int.from_bytes(lo, "big"), int.from_bytes(hi, "big")
                if b < a or b - a > 65535:
                    continue
                size = len(lo)
                lengths.add(size)
                if isinstance(dst, bytes):
                    base = int.from_bytes(dst, "big")
                    for k in range(b - a + 1):
                        code = (a + k).to_bytes(size, "big")
                        cmap[code] = utf16((base + k).to_bytes(
                            max(2, len(dst)), "big"))
                elif isinstance(dst, list):
                    for k, d in enumerate(dst[:b - a + 1]):
                        if isinstance(d, bytes):
                            cmap[(a + k).to_bytes(size, "big")] = utf16(d)
        else:
            i += 1
    return cmap, lengths or {1}


class Font:
    def __init__(self, doc, font):
        self.cmap = None
        self.lengths = {1}
        self.two_byte = False
        font = doc.get(font)
        if not isinstance(font, dict):
            return
        self.two_byte = font.get("Subtype") == "Type0"
        data = None
        try:
            data = doc.stream_of(font.get("ToUnicode"))
        except PdfError:
            pass
        if data:
            self.cmap, self.lengths = parse_cmap(data)

    def decode(self, s):
        if self.cmap is not None:
            out = []
            i = 0
            sizes = sorted(self.lengths, reverse=True)
            while i < len(s):
                for size in sizes:
                    code = s[i:i + size]
                    if code in self.cmap:
                        out.append(self.cmap[code])
                        i += size
                        break
                else:
                    i += 2 if self.two_byte else 1
            return "".join(out)
        if self.two_byte:
            return ""  # CID font without a map: the codes mean nothing
        return s.decode("cp1252", errors="replace").replace("\x00", "")


# ---- content streams ----------------------------------------------------

def page_text(doc, page, resources):
    contents = doc.get(page.get("Contents"))
    refs = contents if isinstance(contents, list) else [page.get("Contents")]
    data = b""
    for r in refs:
        try:
            s = doc.stream_of(r)
        except PdfError as e:
            print("pdf_text.py: page content skipped: %s" % e, file=sys.stderr)
            s = None
        if s:
            data += s + b"\n"
    fonts = {}
    fontdict = doc.get((resources or {}).get("Font")) or {}
    font = Font(doc, None)
    out = []
    operands = []
    line_y = None
    it = tokens(data)
    for t in it:
        if not isinstance(t, Op):
            operands.append(t)
            continue
        if t in ("[", "]"):
            operands.append(t)
            continue
        op = str(t)
        if op == "BI":  # inline image: skip to EI
            for t2 in it:
                if t2 == "EI":
                    break
        elif op == "Tf" and len(operands) >= 2:
            name = operands[-2]
            if name not in fonts:
                fonts[name] = Font(doc, fontdict.get(name))
            font = fonts[name]
        elif op in ("Tj", "'", '"') and operands:
            if op != "Tj":
                out.append("\n")
            if isinstance(operands[-1], bytes):
                out.append(font.decode(operands[-1]))
        elif op == "TJ":
            for v in operands:
                if isinstance(v, bytes):
                    out.append(font.decode(v))
                elif isinstance(v, (int, float)) and v < -200:
                    out.append(" ")
        elif op in ("Td", "TD") and len(operands) >= 2:
            tx, ty = operands[-2], operands[-1]
            if isinstance(ty, (int, float)) and ty != 0:
                out.append("\n")
            elif isinstance(tx, (int, float)) and tx > 0:
                out.append(" ")
        elif op == "Tm" and len(operands) >= 6:
            y = operands[-1]
            if line_y is not None and y != line_y:
                out.append("\n")
            line_y = y
        elif op == "T*":
            out.append("\n")
        elif op == "ET":
            out.append("\n")
        operands = []
    text = "".join(out)
    lines = [re.sub(r"[ \t]+", " ", ln).strip() for ln in text.split("\n")]
    return "\n".join(lines).strip("\n")


def builtin(path, pages):
    with open(path, "rb") as f:
        data = f.read()
    doc = Document(data)
    result = []
    all_pages = doc.pages()
    for n, (page, res) in enumerate(all_pages, 1):
        if pages and n not in pages:
            continue
        result.append((n, page_text(doc, page, res)))
    return result, len(all_pages)


def with_pdftotext(path, pages):
    exe = shutil.which("pdftotext")
    if not exe:
        return None
    args = [exe, "-layout", "-enc", "UTF-8"]
    if pages:
        args += ["-f", str(min(pages)), "-l", str(max(pages))]
    p = subprocess.run(args + [path, "-"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode:
        print("pdf_text.py: pdftotext: %s"
              % p.stderr.decode(errors="replace").strip(), file=sys.stderr)
        return None
    first = min(pages) if pages else 1
    chunks = p.stdout.decode("utf-8", errors="replace").split("\f")
    return [(first + k, c.strip("\n")) for k, c in enumerate(chunks)
            if c.strip() or k < len(chunks) - 1]


def parse_pages(spec):
    pages = set()
    for part in spec.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise ValueError(part)
        a = int(m.group(1))
        b = int(m.group(2) or a)
        if a < 1 or b < a or b - a > 100000:
            raise ValueError(part)
        pages.update(range(a, b + 1))
    return pages


def main(argv):
    ap = argparse.ArgumentParser(description="Extract text from a PDF.")
    ap.add_argument("file")
    ap.add_argument("--engine", choices=("auto", "builtin", "pdftotext"),
                    default="auto")
    ap.add_argument("--pages", help="pages to print, e.g. 1-3,7")
    ap.add_argument("--marks", action="store_true",
                    help="print a '--- page N ---' line before each page")
    args = ap.parse_args(argv)
    try:
        pages = parse_pages(args.pages) if args.pages else None
    except ValueError as e:
        ap.error("bad page range: %s" % e)

    result = None
    engine = args.engine
    if engine in ("auto", "builtin"):
        try:
            result, total = builtin(args.file, pages)
            if not any(text.strip() for _, text in result):
                print("pdf_text.py: no text found by the built-in extractor "
                      "(%d pages; scanned images or unsupported fonts?)"
                      % total, file=sys.stderr)
                result = None
        except OSError as e:
            print("pdf_text.py: %s" % e, file=sys.stderr)
            return 1
        except (PdfError, ValueError, RecursionError) as e:
            print("pdf_text.py: built-in extractor: %s" % e, file=sys.stderr)
            result = None
        engine = "builtin"
    if result is None and args.engine in ("auto", "pdftotext"):
        result = with_pdftotext(args.file, pages)
        if result is None and not shutil.which("pdftotext"):
            print("pdf_text.py: pdftotext (poppler-utils) is not installed",
                  file=sys.stderr)
        engine = "pdftotext"
    if not result:
        return 1
    print("pdf_text.py: text extracted with %s" % (
        "pdftotext (poppler)" if engine == "pdftotext"
        else "the built-in extractor"), file=sys.stderr)
    chunks = []
    for n, text in result:
        chunks.append(("--- page %d ---\n" % n if args.marks else "") + text)
    print("\n\n".join(chunks))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        # The reader went away (e.g. piped into head): not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
