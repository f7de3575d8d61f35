"""The documentation: API reference coverage and the examples in its pages.

The HTML build itself (``sphinx-build -W --keep-going``) runs in ``.ci/run``.
"""

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import skirm

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: The documentation of the current sources, as the README links to it.
DOCS_URL = "https://skirm.readthedocs.io/en/latest/"


def _public_namespaces():
    return sorted(
        f"skirm.{info.name}"
        for info in pkgutil.iter_modules(skirm.__path__)
        if info.ispkg and not info.name.startswith("_")
    )


def _documented():
    """``{module: set of names}`` listed in autosummary blocks of api.rst."""
    documented, module, in_autosummary = {}, None, False
    for line in (DOCS / "api.rst").read_text().splitlines():
        current = re.match(r"\.\. currentmodule:: (\S+)", line)
        if current:
            module = current.group(1)
            continue
        if line.startswith(".. autosummary::"):
            in_autosummary = True
            continue
        if in_autosummary:
            if line and not line.startswith(" "):
                in_autosummary = False
            elif re.fullmatch(r"   [A-Za-z_][A-Za-z0-9_]*", line):
                documented.setdefault(module, set()).add(line.strip())
    return documented


@pytest.mark.parametrize("module_name", _public_namespaces())
def test_api_reference_lists_every_public_name(module_name):
    module = importlib.import_module(module_name)
    public = set(getattr(module, "__all__", ()))
    assert public, f"{module_name} has no __all__"
    listed = _documented().get(module_name, set())
    assert sorted(public - listed) == [], f"missing from docs/api.rst: {module_name}"
    assert sorted(listed - public) == [], f"not public in {module_name}"


def test_top_level_names_are_documented_in_a_namespace():
    documented = _documented()
    for name in skirm.__all__:
        if name == "__version__":
            continue
        homes = [mod for mod, names in documented.items() if name in names]
        assert homes, f"skirm.{name} is documented in no namespace"
        obj = getattr(skirm, name)
        assert any(getattr(importlib.import_module(m), name) is obj for m in homes)


PAGES = sorted(
    path
    for path in DOCS.rglob("*.rst")
    if "_build" not in path.parts
    and "auto_examples" not in path.parts
    and "generated" not in path.parts
    and ">>>" in path.read_text()
)


def test_pages_with_examples_are_found():
    names = {path.name for path in PAGES}
    assert {"metrics.rst", "conventions.rst"} <= names


@pytest.mark.parametrize(
    "page", PAGES, ids=[str(path.relative_to(DOCS)) for path in PAGES]
)
def test_page_examples(page):
    """The ``>>>`` examples of every page give the output the page shows."""
    failures, attempted = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
        report=True,
        encoding="utf-8",
    )
    assert attempted > 0
    assert failures == 0, f"{failures} of {attempted} examples failed in {page.name}"


def test_readme_links_are_absolute_and_reach_pages_that_exist():
    """The README is the package index's page, where a link relative to the
    repository breaks: every link is absolute, and each into the
    documentation names a page these sources build."""
    root = DOCS.parent
    text = (root / "README.md").read_text()
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets
    assert [t for t in targets if not t.startswith("https://")] == []
    pages = [t[len(DOCS_URL) :] for t in targets if t.startswith(DOCS_URL)]
    assert pages
    missing = [
        page
        for page in pages
        if page
        and page != "auto_examples/index.html"
        and not (DOCS / page.split("#")[0]).with_suffix(".rst").exists()
    ]
    assert missing == [], f"README.md links to pages the docs do not build: {missing}"
