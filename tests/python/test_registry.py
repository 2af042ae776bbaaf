# SPDX-License-Identifier: MIT
"""skit.Registry: roots, skills(), search(), index(), default()."""
import json
import os

import pytest

import skit
from conftest import EXAMPLES

NAMES = ["code-review", "csv-report", "git-changelog", "pdf-text"]


def test_skills_of_one_root():
    reg = skit.Registry([EXAMPLES])
    entries = reg.skills()
    assert [e.name for e in entries] == NAMES
    e = entries[1]
    assert isinstance(e, skit.Entry)
    assert e.root == "root" and e.source == "root"
    assert e.root_path == EXAMPLES
    assert e.path == os.path.join(EXAMPLES, "csv-report")
    assert e.file == os.path.join(EXAMPLES, "csv-report", "SKILL.md")
    assert e.state == "active" and e.reason is None
    assert e.description.startswith("Summarise a CSV file")
    assert reg.roots == [("root", EXAMPLES, True, 4)]


def test_labels_precedence_and_shadowing(tmp_path, skills):
    mine = tmp_path / "mine"
    (mine / "csv-report").mkdir(parents=True)
    (mine / "csv-report" / "SKILL.md").write_text(
        "---\nname: csv-report\ndescription: My own CSV skill.\n---\nX\n")
    reg = skit.Registry([("mine", str(mine)), ("team", skills)])
    active = {e.name: e for e in reg.skills()}
    assert active["csv-report"].root == "mine"
    assert active["csv-report"].description == "My own CSV skill."
    every = reg.skills(all=True)
    shadowed = [e for e in every if e.state == "shadowed"]
    assert [(e.name, e.root, e.reason) for e in shadowed] == \
        [("csv-report", "team", "mine")]
    plain = skit.Registry([str(mine), skills])
    assert [r[0] for r in plain.roots] == ["root1", "root2"]


def test_relative_roots_are_made_absolute(tmp_path, skills, monkeypatch):
    monkeypatch.chdir(tmp_path)
    reg = skit.Registry(["skills"])
    monkeypatch.chdir("/")
    entries = reg.skills()
    assert [e.name for e in entries] == NAMES
    assert entries[0].path == os.path.join(str(skills), "code-review")
    with skit.Skill.load(entries[0].path) as s:
        assert s.valid


def test_missing_root_is_an_error(tmp_path):
    with pytest.raises(skit.Error) as e:
        skit.Registry([tmp_path / "typo"])
    assert e.value.code == "ENOTFOUND" and "typo" in e.value.message


def test_search():
    reg = skit.Registry([EXAMPLES])
    hits = reg.search("csv statistics", k=10)
    assert hits and hits[0][0].name == "csv-report"
    assert all(isinstance(s, float) and s > 0 for _, s in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert len(reg.search("csv", k=1)) == 1
    assert reg.search("csv", k=0) == []
    assert reg.search("zzzzqqq") == []
    assert reg.search("pdf", k=10**9)[0][0].name == "pdf-text"
    with pytest.raises(ValueError):
        reg.search("x", k=-1)


def test_index_formats_and_budget():
    reg = skit.Registry([EXAMPLES])
    xml = reg.index()
    assert xml.startswith("<available_skills>")
    assert xml.count("<skill>") == 4
    md = reg.index(format="markdown")
    assert "- csv-report: " in md
    data = json.loads(reg.index(format="json"))
    assert data
    small = reg.index(budget=600)
    assert len(small) <= 600 and small != xml
    with pytest.raises(skit.Error) as e:
        reg.index(format="yaml")
    assert e.value.code == "EINVALID" and "format" in e.value.message


def test_default_roots_find_the_project(tmp_path):
    proj = tmp_path / "app"
    skills = proj / ".agents" / "skills" / "hello"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text(
        "---\nname: hello\ndescription: Say hello.\n---\nHi.\n")
    sub = proj / "src" / "deep"
    sub.mkdir(parents=True)
    reg = skit.Registry.default(project=sub)
    assert reg.project == str(proj)
    hello = [e for e in reg.skills() if e.name == "hello"]
    assert hello and hello[0].root.startswith("project")
    labels = [r[0] for r in reg.roots]
    assert any(x.startswith("user") for x in labels)
    # honour_trust: the project is not trusted, so its skills stay out.
    held = skit.Registry.default(project=sub, honour_trust=True)
    assert not [e for e in held.skills() if e.name == "hello"]
