# SPDX-License-Identifier: MIT
# The skit package: pure Python over libskit.so with ctypes. It needs
# setuptools (and wheel) only to install; nothing at run time beyond the
# standard library and libskit itself. docs/python.md, "Install".
import os

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))

setup(
    name="skit",
    version="0.1.0",  # the library's (tests/python/test_skill.py)
    description="Agent Skills for Python agents, over libskit (ctypes)",
    long_description=open(os.path.join(HERE, "README.md"),
                          encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="MIT",
    packages=["skit"],
    python_requires=">=3.7",
    classifiers=[
        "Programming Language :: Python :: 3",
        "License :: OSI Approved :: MIT License",
        "Operating System :: POSIX :: Linux",
    ],
)
