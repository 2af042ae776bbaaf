# SPDX-License-Identifier: MIT
"""Bytes that are not UTF-8, NUL bytes, and very large inputs."""
import os

import pytest

import skit
from conftest import EXAMPLES

SKILL = "---\nname: %s\ndescription: %s\n---\n%s\n"


def test_non_utf8_paths_round_trip(tmp_path):
    # A root whose name is Latin-1, not UTF-8: entries come back with
    # surrogateescape characters, which os.fsencode() turns back into
    # the same bytes, so the path can be opened again.
    root = os.path.join(os.fsencode(str(tmp_path)), b"caf\xe9")
    os.makedirs(os.path.join(root, b"hello"))
    with open(os.path.join(root, b"hello", b"SKILL.md"), "w") as f:
        f.write(SKILL % ("hello", "Say hello.", "Hi."))
    reg = skit.Registry([root])
    (e,) = reg.skills()
    assert e.name == "hello"
    assert "\udce9" in e.path
    assert os.fsencode(e.path) == os.path.join(root, b"hello")
    assert os.path.isfile(os.fsencode(e.file))
    with skit.Skill.load(e.path) as s:
        assert s.valid and os.fsencode(s.dir) == os.fsencode(e.path)
    # The same folder given as str with surrogates works too.
    assert skit.Registry([os.fsdecode(root)]).skills()[0].path == e.path
    layer = skit.SkillTools(reg, project=tmp_path)
    # Text for a model is valid Unicode: the byte shows as U+FFFD there.
    assert "/caf\ufffd/hello/SKILL.md" in layer.index()
    r = layer.call("use_skill", {"name": "hello"})
    assert not r.is_error and "Hi." in r


def test_non_utf8_skill_text_is_a_diagnostic(tmp_path):
    d = tmp_path / "latin"
    d.mkdir()
    (d / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9 "
                                 b"au lait\n---\nBody.\n")
    s = skit.Skill.load(d)
    assert not s.valid and s.diagnostics
    reg = skit.Registry([tmp_path])
    (e,) = reg.skills(all=True)
    assert e.state == "skipped" and e.reason


def test_text_that_cannot_be_utf8_is_an_error(tmp_path):
    reg = skit.Registry([EXAMPLES])
    layer = skit.SkillTools(reg, project=tmp_path)
    for bad in ("\udcff", "a\0b"):
        with pytest.raises(skit.Error) as e:
            reg.search(bad)
        assert e.value.code == "EENCODING"
        with pytest.raises(skit.Error) as e:
            layer.call(bad, {})
        assert e.value.code == "EENCODING"
    with pytest.raises(skit.Error) as e:
        skit.Skill.load("a\0b")
    assert e.value.code == "EENCODING"
    # Invalid UTF-8 given as bytes reaches the library, which refuses it.
    with pytest.raises(skit.Error) as e:
        layer.call("use_skill", b'{"name": "caf\xe9"}')
    assert e.value.code == "EINVALID" and "0xe9" in e.value.message


def test_very_large_inputs(tmp_path):
    reg = skit.Registry([EXAMPLES])
    big = "csv " * (4 << 20)  # 16 MiB
    hits = reg.search(big, k=3)
    assert hits and hits[0][0].name == "csv-report"
    layer = skit.SkillTools(reg, project=tmp_path)
    r = layer.call("use_skill", {"name": "csv-report", "arguments": "x" *
                                 (32 << 20)})
    assert isinstance(r, str) and len(r) < (1 << 20)
    # A SKILL.md over the 8 MiB limit is refused, not read whole.
    d = tmp_path / "huge"
    d.mkdir()
    (d / "SKILL.md").write_text(SKILL % ("huge", "Big.", "x" * (9 << 20)))
    s = skit.Skill.load(d, lenient=True)
    assert [x.code for x in s.diagnostics] == ["file-too-big"]
    with pytest.raises(skit.Error) as e:
        s.body
    assert "limit" in e.value.message
    (e,) = skit.Registry([d.parent]).skills(all=True)
    assert e.state == "skipped" and "limit" in e.reason
    # An index for thousands of skills, under a budget.
    many = tmp_path / "many"
    for i in range(2000):
        p = many / ("skill-%04d" % i)
        p.mkdir(parents=True)
        (p / "SKILL.md").write_text(SKILL % (p.name, "Does %d." % i, "B"))
    reg2 = skit.Registry([many])
    assert len(reg2.skills()) == 2000
    idx = reg2.index(budget=8000)
    assert len(idx) <= 8000 and "search_skills" in idx
