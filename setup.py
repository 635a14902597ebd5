"""The optional C core (arena/core/_core.c): built when a C compiler is there, skipped when not.

Everything else is in pyproject.toml. Without the extension, `arena.core` uses its pure-Python
twin (arena/core/pure.py): same results, slower. No numpy header is needed to build it (it
writes into any writable buffer).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "arena.core._core",
            ["arena/core/_core.c"],
            extra_compile_args=["-std=c99", "-O3"],
            optional=True,
        )
    ]
)
