# SPDX-License-Identifier: MIT
# The skit package: pure Python over libskit.so with ctypes. It needs
# setuptools (and wheel) only to install; nothing at run time beyond the
# standard library and libskit itself. docs/python.md, "Install".
from setuptools import setup

setup(
    name="skit",
    version="0.1.0",
    description="Agent Skills for Python agents, over libskit (ctypes)",
    long_description=open("README.md", encoding="utf-8").read(),
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
