# SPDX-License-Identifier: MIT
"""skit: Agent Skills for Python agents, over libskit.

    import skit
    reg = skit.Registry(["skills"])
    layer = skit.SkillTools(reg, project=".")
    system = layer.system_prompt()          # the skills index
    tools = layer.tools("openai")           # the tools to offer the model
    text = layer.call("use_skill", {"name": "csv-report"})

The library is found through $SKIT_LIBRARY (a path), else the system's
loader (an installed libskit.so.0). Everything goes through ctypes: no
compiler is needed and nothing outside the standard library is imported.
docs/python.md is the guide.
"""
from ._lib import path as library_path
from ._lib import lib as _cdll
from ._core import (Diagnostic, Entry, Error, Registry, Skill,
                    effective_options, validate)
from ._tools import (DEFAULT_BASE_PROMPT, Agent, Approval, Question,
                     SkillTools, Tool, ToolResult)

__version__ = _cdll.skit_version().decode("ascii")

__all__ = ["Agent", "Approval", "DEFAULT_BASE_PROMPT", "Diagnostic", "Entry",
           "Error", "Question", "Registry", "Skill", "SkillTools", "Tool",
           "ToolResult", "effective_options", "library_path", "validate",
           "__version__"]
