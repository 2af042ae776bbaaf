# SPDX-License-Identifier: MIT
"""Option structs are the library's own (skit/ffi.h): the package never
mirrors their layout or version, so a library that grows a struct keeps
working with this package, and a package that names an option an older
library lacks gets a clear error instead of a write past the struct."""
import ast
import os
import re

import pytest

import skit
from conftest import PKG, SRC

KINDS = {"agent": ("agent.h", "SKIT_AGENT_OPTIONS_VERSION"),
         "host": ("host.h", "SKIT_HOST_OPTIONS_VERSION"),
         "model": ("model.h", "SKIT_MODEL_OPTIONS_VERSION"),
         "skill": ("skill.h", "SKIT_SKILL_OPTIONS_VERSION"),
         "roots": ("registry.h", "SKIT_ROOTS_OPTIONS_VERSION"),
         "prompt": ("prompt.h", "SKIT_PROMPT_OPTIONS_VERSION")}


def header_version(header, macro):
    text = open(os.path.join(SRC, "include", "skit", header)).read()
    return int(re.search(r"#define %s (\d+)" % macro, text).group(1))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_structs_come_from_the_librarys_init(kind):
    # The version is whatever the library's header says today: when a
    # struct grows (a new member, a new version), this stays true with
    # no change to the package.
    opts = skit.effective_options(kind)
    assert opts["version"] == header_version(*KINDS[kind])


def test_unnamed_members_keep_the_librarys_defaults():
    opts = skit.effective_options("agent", max_turns=7, project_dir="/p")
    assert opts["max_turns"] == 7 and opts["project_dir"] == "/p"
    # Members the package never names: SKIT_AGENT_OPTIONS_INIT's values
    # (true for both), not zeroes from a Python copy of the struct.
    assert opts["dynamic_context"] is True
    assert opts["file_tools"] is True
    assert opts["sandbox_mode"] == "workspace-write"


def test_an_option_the_library_lacks_is_an_error():
    for kind, key in (("agent", "option_of_a_newer_library"),
                      ("host", "max_turns"), ("model", "spec2")):
        with pytest.raises(skit.Error) as e:
            skit.effective_options(kind, **{key: 1})
        assert e.value.code == "EINVALID"
        assert e.value.message == "unknown option '%s'" % key
    with pytest.raises(skit.Error) as e:
        skit.effective_options("agent", max_turns=-1)
    assert "max_turns" in e.value.message
    with pytest.raises(skit.Error) as e:
        skit.effective_options("agent", sandbox_mode="wide-open")
    assert "sandbox_mode" in e.value.message
    with pytest.raises(skit.Error):
        skit.effective_options("no-such-kind")


def test_api_keys_are_never_shown():
    opts = skit.effective_options("model", spec="openai:x", api_key="sk-1")
    assert opts["api_key"] == "(set)" and "sk-1" not in repr(opts)


def test_the_package_mirrors_no_option_struct():
    # The only ctypes.Structure is skit_error, which callers allocate
    # and whose layout is ABI; no *_VERSION number appears anywhere.
    structs = []
    for name in os.listdir(os.path.join(PKG, "skit")):
        if not name.endswith(".py"):
            continue
        text = open(os.path.join(PKG, "skit", name)).read()
        assert "_OPTIONS_VERSION" not in text and "version" not in \
            re.findall(r'"(\w+)"', text), name
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and any(
                    "Structure" in ast.unparse(b) for b in node.bases):
                structs.append(node.name)
    assert structs == ["CError"]
