# SPDX-License-Identifier: MIT
"""skit.Skill, skit.validate, skit.Diagnostic, skit.Error."""
import os
import re

import pytest

import skit
from conftest import EXAMPLES, SRC


def test_version_is_the_librarys():
    header = open(os.path.join(SRC, "include", "skit", "common.h")).read()
    want = re.search(r'#define SKIT_VERSION\s+"([^"]+)"', header).group(1)
    assert skit.__version__ == want
    setup = open(os.path.join(SRC, "bindings", "python", "setup.py")).read()
    assert 'version="%s"' % want in setup


def test_load_example_skill():
    s = skit.Skill.load(os.path.join(EXAMPLES, "csv-report"))
    assert s.name == "csv-report"
    assert s.valid
    assert s.diagnostics == []
    assert s.description.startswith("Summarise a CSV file")
    assert s.properties["license"] == "MIT"
    assert s.properties["metadata"]["author"] == "skit examples"
    assert "# CSV report" in s.body
    assert s.file.endswith("csv-report/SKILL.md")
    assert s.allowed_tools and "Read" in s.allowed_tools
    s.close()
    with pytest.raises(skit.Error) as e:
        s.name
    assert e.value.code == "EUSAGE"


def test_skill_md_path_means_its_folder():
    with skit.Skill.load(os.path.join(EXAMPLES, "pdf-text", "SKILL.md")) as s:
        assert s.name == "pdf-text"


def test_validate_valid_is_empty():
    for name in sorted(os.listdir(EXAMPLES)):
        assert skit.validate(os.path.join(EXAMPLES, name)) == [], name


def broken(tmp_path):
    d = tmp_path / "my-skill"
    d.mkdir()
    (d / "SKILL.md").write_text(
        "---\nname: Other_Name\ndescription: Does things.\n"
        "unknown-field: 1\n---\nBody.\n")
    return d


def test_validate_reports_errors(tmp_path):
    diags = skit.validate(broken(tmp_path))
    assert diags and all(isinstance(d, skit.Diagnostic) for d in diags)
    assert all(d.severity == "error" for d in diags)
    codes = {d.code for d in diags}
    assert any("name" in c for c in codes), codes
    assert all(d.message and d.path for d in diags)
    assert "error" in str(diags[0])
    s = skit.Skill.load(tmp_path / "my-skill")
    assert not s.valid
    assert s.diagnostics[:len(diags)] == diags
    # The same folder under the lenient loading rules: warnings only.
    lenient = skit.Skill.load(tmp_path / "my-skill", lenient=True)
    assert lenient.valid
    assert {d.severity for d in lenient.diagnostics} == {"warning"}


def test_validate_strict_adds_warnings(tmp_path):
    d = tmp_path / "placeholder"
    d.mkdir()
    (d / "SKILL.md").write_text(
        "---\nname: placeholder\ndescription: Describe what this skill "
        "does and when an agent should use it.\n---\nBody.\n")
    assert skit.validate(d) == []
    strict = skit.validate(d, strict=True)
    assert [x.code for x in strict] == ["description-placeholder"]
    assert strict[0].severity == "warning"


def test_missing_path_raises_error(tmp_path):
    with pytest.raises(skit.Error) as e:
        skit.Skill.load(tmp_path / "nowhere")
    assert e.value.code == "ENOTFOUND"
    assert e.value.status == -4
    assert "nowhere" in e.value.message
    assert str(e.value).startswith("ENOTFOUND: ")


def test_properties_error_is_skit_error(tmp_path):
    d = tmp_path / "nodesc"
    d.mkdir()
    (d / "SKILL.md").write_text("---\nname: nodesc\n---\nBody.\n")
    s = skit.Skill.load(d)
    assert not s.valid
    with pytest.raises(skit.Error) as e:
        s.properties
    assert e.value.code == "EINVALID" and e.value.message
