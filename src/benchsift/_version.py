"""benchsift's version: the one place it is written (pyproject.toml reads it, ``[tool.setuptools.dynamic]``).

A leaf module, so any layer can name the version (the HTTP transport's User-Agent, the HTML report's
generator tag, ``benchsift --version``) without importing the package root.
"""

__version__ = "0.1.0"
