# SPDX-License-Identifier: MIT
"""Errors, conversions, skills and registries."""
import ctypes
import json
import os
import weakref
from dataclasses import dataclass

from . import _lib
from ._lib import lib


class Error(Exception):
    """A failed libskit call.

    ``code`` is the status's name as skit/errors.h spells it without its
    prefix ("ENOTFOUND", "EINVALID"...), ``status`` its negative number,
    ``message`` the library's one line, ``line`` and ``column`` where in
    the input it was (0 when not applicable).
    """

    def __init__(self, code, message, status=None, line=0, column=0):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message
        self.status = status
        self.line = line
        self.column = column


def _raise(rc, err):
    name = lib.skit_ffi_status_name(rc).decode("ascii")
    msg = err.message.decode("utf-8", "replace")
    if not msg:
        msg = lib.skit_strerror(rc).decode("utf-8", "replace")
    raise Error(name, msg, rc, err.line, err.column)


def call(fn, *args):
    """Call `fn(*args, &err)`; raise Error for a negative result."""
    err = _lib.CError()
    rc = fn(*args, ctypes.byref(err))
    if rc is not None and rc < 0:
        _raise(rc, err)
    return rc


def _nul_check(b, what):
    if b"\0" in b:
        raise Error("EENCODING", "%s holds a NUL byte" % what, -8)
    return b


def path_bytes(p, what="path"):
    """A path (str, bytes or os.PathLike) as the bytes the OS sees."""
    p = os.fspath(p)
    b = p if isinstance(p, bytes) else os.fsencode(p)
    return _nul_check(b, what)


def text_bytes(s, what="text"):
    """Text as UTF-8 (bytes pass unchanged); EENCODING when it cannot be."""
    if isinstance(s, bytes):
        return _nul_check(s, what)
    if not isinstance(s, str):
        raise TypeError("%s must be str or bytes, not %s"
                        % (what, type(s).__name__))
    try:
        b = s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise Error("EENCODING", "%s is not valid Unicode: %s" % (what, e),
                    -8) from None
    return _nul_check(b, what)


def take(ptr):
    """Copy an owned `char *` the library returned, then skit_free() it."""
    if not ptr.value:
        return None
    try:
        return ctypes.string_at(ptr.value)
    finally:
        lib.skit_free(ptr)
        ptr.value = None


def take_text(ptr):
    b = take(ptr)
    return None if b is None else b.decode("utf-8", "replace")


def take_json(ptr):
    b = take(ptr)
    return None if b is None else json.loads(b.decode("utf-8"))


def borrowed(addr, errors="surrogateescape"):
    """Copy a borrowed `const char *` (an address) into a str, or None."""
    if not addr:
        return None
    return ctypes.string_at(addr).decode("utf-8", errors)


def options(d):
    """A NULL-ended array of key/value strings (skit/ffi.h) from a dict.

    None values are left out (the library's default stays). The array
    and its strings must live as long as the library borrows them.
    """
    items = []
    for k, v in d.items():
        if v is None:
            continue
        if isinstance(v, bool):
            s = b"true" if v else b"false"
        elif isinstance(v, int):
            s = str(v).encode("ascii")
        elif isinstance(v, (str, bytes, os.PathLike)):
            s = path_bytes(v, "option %s" % k)
        else:
            raise TypeError("option %s: %s is not a str, int or bool"
                            % (k, type(v).__name__))
        items += [k.encode("ascii"), s]
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


def effective_options(kind, **opts):
    """The options struct `kind` as the library builds it from `opts`:
    the library's own defaults (its *_INIT) for every member not given.
    For tests and debugging; an API key shows as "(set)"."""
    out = ctypes.c_void_p()
    kv = options(opts)
    call(lib.skit_ffi_options, ctypes.byref(out), text_bytes(kind), kv)
    return take_json(out)


class Handle:
    """An owned C handle freed once, by close() or by the collector.

    `keep` holds what the C object borrows (other handles, callbacks,
    option strings) so it outlives it.
    """

    def _own(self, pairs, keep=()):
        """Own `pairs` [(free, ptr)], freed in that order; the first is
        this object's handle."""
        self._ptr = pairs[0][1]
        self._pairs = pairs
        self._fin = weakref.finalize(self, _free_all, pairs, keep)

    def _finish(self, fn, *args):
        """End with `fn(handle, *args, &err)`, which frees the handle,
        then free the rest; raise its error, if any, afterwards."""
        h = self._h
        self._fin.detach()
        self._ptr = None
        err = _lib.CError()
        rc = fn(h, *args, ctypes.byref(err))
        _free_all(self._pairs[1:])
        if rc < 0:
            _raise(rc, err)

    @property
    def _h(self):
        if not self._ptr:
            raise Error("EUSAGE", "%s is closed" % type(self).__name__, -10)
        return self._ptr

    def _borrow(self, other):
        """This object's C handle borrows `other`'s: `other` may not be
        closed while this one is open (the collector keeps it anyway)."""
        if "_users" not in other.__dict__:
            other._users = weakref.WeakSet()
        other._users.add(self)

    def close(self):
        """Free the C object now (later calls raise skit.Error). An
        object another one still uses (a registry under an open agent)
        cannot be closed: close the user first."""
        users = [u for u in self.__dict__.get("_users", ()) if u._ptr]
        if users and self._ptr:
            raise Error("EUSAGE", "%s is in use by %s: close that first"
                        % (type(self).__name__, type(users[0]).__name__),
                        -10)
        self._fin()
        self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _free_all(pairs, keep=None):
    for free, ptr in pairs:
        free(ptr)


@dataclass(frozen=True)
class Diagnostic:
    """One finding about a skill: severity "error" or "warning", a stable
    code ("name-not-lowercase"), the message, the file, line, column."""
    severity: str
    code: str
    message: str
    path: str
    line: int = 0
    column: int = 0

    def __str__(self):
        where = self.path + (":%d" % self.line if self.line else "")
        return "%s: %s: %s [%s]" % (where, self.severity, self.message,
                                    self.code)


def _diags(items):
    return [Diagnostic(d["severity"], d["code"], d["message"], d["path"],
                       d["line"], d["column"]) for d in items]


class Skill(Handle):
    """A loaded skill folder (its SKILL.md frontmatter; the body on
    demand). Use Skill.load()."""

    @classmethod
    def load(cls, path, *, lenient=False, lint=False):
        """Load the skill in folder `path` (or its SKILL.md). A skill
        that breaks the spec still loads: see .valid and .diagnostics.
        `lenient` applies the loading rules of the registry and agent
        instead of conformance; `lint` adds the lints that read the body
        and the files (as `skit validate` does)."""
        out = ctypes.c_void_p()
        kv = options({"lenient": lenient, "lint": lint})
        call(lib.skit_ffi_skill_load, ctypes.byref(out), path_bytes(path),
             kv)
        self = cls.__new__(cls)
        self._own([(lib.skit_skill_free, out.value)])
        return self

    @property
    def name(self):
        """The name, NFKC-normalised; None when missing."""
        return borrowed(lib.skit_skill_name(self._h))

    @property
    def known_name(self):
        """The name a registry knows it by (the folder's when the name
        is invalid)."""
        return borrowed(lib.skit_skill_known_name(self._h))

    @property
    def description(self):
        return borrowed(lib.skit_skill_description(self._h))

    @property
    def dir(self):
        return borrowed(lib.skit_skill_dir(self._h))

    @property
    def file(self):
        """The SKILL.md found, or None."""
        return borrowed(lib.skit_skill_file(self._h))

    @property
    def allowed_tools(self):
        return borrowed(lib.skit_skill_allowed_tools(self._h))

    @property
    def valid(self):
        return bool(lib.skit_skill_valid(self._h))

    @property
    def diagnostics(self):
        """Every finding: errors first, then warnings."""
        out = ctypes.c_void_p()
        call(lib.skit_ffi_skill_diags, ctypes.byref(out), self._h)
        return _diags(take_json(out))

    @property
    def properties(self):
        """The frontmatter as `skit read-properties` gives it (name,
        description, license, compatibility, allowed-tools, metadata).
        Raises skit.Error (EINVALID) when it has no name or description."""
        out = ctypes.c_void_p()
        call(lib.skit_skill_properties_json, ctypes.byref(out), self._h)
        return take_json(out)

    @property
    def body(self):
        """The Markdown after the frontmatter (read on first use)."""
        p = ctypes.c_void_p()
        n = ctypes.c_size_t()
        call(lib.skit_skill_body, self._h, ctypes.byref(p), ctypes.byref(n))
        return ctypes.string_at(p.value, n.value).decode("utf-8", "replace")

    def __repr__(self):
        return "<skit.Skill %r>" % (self.known_name if self._ptr else None)


def validate(path, *, strict=False, lenient=False):
    """Check the skill folder `path` as `skit validate` does: the list of
    its errors ([] when valid), and with `strict` its warnings too (what
    `skit validate --strict` fails on)."""
    with Skill.load(path, lenient=lenient, lint=True) as s:
        return [d for d in s.diagnostics
                if strict or d.severity == "error"]


@dataclass(frozen=True)
class Entry:
    """A skill a registry found. `root` is its root's label
    ("project:agents", "user", or the label you gave), `root_path` that
    root's folder, `path` the skill folder, `file` its SKILL.md, `state`
    "active", "shadowed" or "skipped" (`reason` says why)."""
    name: str
    description: str
    root: str
    path: str
    state: str
    file: str = None
    root_path: str = None
    when_to_use: str = None
    argument_hint: str = None
    reason: str = None
    warnings: int = 0
    flags: int = 0

    @property
    def source(self):
        return self.root


def _entry(d):
    return Entry(d["name"], d["description"], d["source"], d["dir"],
                 d["state"], d["file"], d["root"], d["when_to_use"],
                 d["argument_hint"], d["reason"], d["warnings"], d["flags"])


class Registry(Handle):
    """Skill roots, highest precedence first, and the index of their
    skills (frontmatter only).

    `roots` is a list of folders or (label, folder) pairs; a folder
    without a label is "root" (or "root1", "root2"... when several are).
    Each must exist. Relative paths are made absolute now.
    """

    def __init__(self, roots=(), *, scan=True):
        out = ctypes.c_void_p()
        call(lib.skit_registry_new, ctypes.byref(out))
        self._own([(lib.skit_registry_free, out.value)])
        roots = list(roots)
        plain = sum(1 for r in roots if not isinstance(r, tuple))
        k = 0
        for r in roots:
            if isinstance(r, tuple):
                label, folder = r
            else:
                k += 1
                label, folder = ("root" if plain == 1 else "root%d" % k), r
            b = path_bytes(folder, "root")
            # A root named by hand must exist: a typo would list nothing.
            if not os.path.isdir(b):
                raise Error("ENOTFOUND", "root %s: no such folder"
                            % os.fsdecode(b), -4)
            call(lib.skit_registry_add_root, self._h,
                 text_bytes(label, "label"), os.path.abspath(b))
        if scan:
            self.scan()

    @classmethod
    def default(cls, project=None, *, home=None, skit_home=None,
                config_file=None, no_config=False, honour_trust=False,
                scan=True):
        """The default roots (project, user, builtin), as `skit list`
        reads them, for the project of folder `project` (default: the
        current folder). With `honour_trust`, an untrusted project's
        skills and config are left out, as `skit run` does."""
        self = cls(scan=False)
        kv = options({"cwd": project, "home": home, "skit_home": skit_home,
                      "config_file": config_file, "no_config": no_config,
                      "honour_trust": honour_trust})
        call(lib.skit_ffi_registry_add_default_roots, self._h, kv)
        if scan:
            self.scan()
        return self

    def scan(self):
        """(Re)read every root."""
        call(lib.skit_registry_scan, self._h)

    @property
    def project(self):
        """The project folder the default roots found, or None."""
        return borrowed(lib.skit_registry_project_dir(self._h))

    @property
    def roots(self):
        """[(label, path, exists, active skills)], highest first."""
        out = []
        for i in range(lib.skit_registry_root_count(self._h)):
            src, path = ctypes.c_void_p(), ctypes.c_void_p()
            exists, n = ctypes.c_bool(), ctypes.c_size_t()
            lib.skit_registry_root(self._h, i, ctypes.byref(src),
                                   ctypes.byref(path), ctypes.byref(exists),
                                   ctypes.byref(n))
            out.append((borrowed(src.value), borrowed(path.value),
                        exists.value, n.value))
        return out

    def skills(self, all=False):
        """The active skills in index order; with `all`, shadowed and
        skipped ones too."""
        out = ctypes.c_void_p()
        call(lib.skit_ffi_registry_entries, ctypes.byref(out), self._h,
             bool(all))
        return [_entry(d) for d in take_json(out)]

    def diagnostics(self):
        """Scan findings that belong to no skill (loops, collisions)."""
        out = ctypes.c_void_p()
        call(lib.skit_ffi_registry_diags, ctypes.byref(out), self._h)
        return _diags(take_json(out))

    def search(self, query, k=10, *, body=False):
        """[(Entry, score)], best first: BM25 over names and descriptions
        (and bodies with `body`)."""
        if k < 0:
            raise ValueError("k must be >= 0")
        out = ctypes.c_void_p()
        call(lib.skit_ffi_registry_search, ctypes.byref(out), self._h,
             text_bytes(query, "query"), 1 if body else 0, k)
        return [(_entry(h["entry"]), h["score"]) for h in take_json(out)]

    def index(self, budget=32000, format="xml", *, verbatim=False):
        """The skills index as skit's agent puts it in its system prompt
        (<available_skills> XML, "markdown" or "json"), within `budget`
        characters (0: none)."""
        out = ctypes.c_void_p()
        kv = options({"budget": budget, "format": format,
                      "verbatim": verbatim})
        call(lib.skit_ffi_registry_index, ctypes.byref(out), self._h, kv)
        return take_text(out)

    def __repr__(self):
        return "<skit.Registry %d roots>" % len(self.roots)
