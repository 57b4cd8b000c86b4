"""Sphinx configuration of catsack's documentation site: the Markdown guides (MyST), the rules
pages (included from the package, catsack.rulebook) and the API reference (autodoc).

Built by ``make docs`` with warnings as errors, into ``build/docs`` (outside this folder).
"""

from __future__ import annotations

from typing import Any

from pygments.lexers.special import TextLexer
from sphinx.application import Sphinx

import catsack

project = "catsack"
author = "the catsack authors"
copyright = "2026, the catsack authors"
release = version = catsack.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns: list[str] = []

# The pages are read on the forge as well as here: links to headings are written as the forge's
# anchors ("#a-round"), which these generate for headings down to ####.
myst_heading_anchors = 4

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options: dict[str, Any] = {"members": True, "undoc-members": True, "show-inheritance": True}
# `make docs SPHINXOPTS=-n` also reports every reference in a docstring that does not resolve,
# except to other projects' objects: their inventories (intersphinx) would be downloaded at build
# time, which the build does not do, so those names show as plain text.
_OUTSIDE = r"(numpy|collections|random|enum|abc|types|pathlib|multiprocessing|gymnasium|pettingzoo|pyspiel|matplotlib)"
nitpick_ignore_regex = [(r"py:(class|mod|func|data|attr|meth|obj)", _OUTSIDE + r"(\..*)?")]

html_theme = "furo"
html_title = f"catsack {release}"


def setup(app: Sphinx) -> None:
    # The rules' worked examples are fenced as "dogs" (catsack.rulebook reads them): shown as text.
    app.add_lexer("dogs", TextLexer)
