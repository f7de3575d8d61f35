"""The package as the package index shows it and pip installs it: metadata,
extras, the citation file and the command's pointer to the documentation."""

import re
import sys
from itertools import combinations
from pathlib import Path

import pytest

import skirm
from skirm._cli._parser import DOCUMENTATION, build_parser

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_classifiers_name_every_python_ci_tests_and_the_typing():
    classifiers = PROJECT["classifiers"]
    floor = re.fullmatch(r">=3\.(\d+)", PROJECT["requires-python"])
    assert floor, PROJECT["requires-python"]
    versions = [
        c.rsplit(" :: ", 1)[1] for c in classifiers if re.search(r":: 3\.\d+$", c)
    ]
    assert versions[0] == f"3.{floor.group(1)}"
    assert versions == [f"3.{n}" for n in range(int(floor.group(1)), 14)]
    assert "Typing :: Typed" in classifiers
    assert (ROOT / "skirm" / "py.typed").exists()
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    # The licence is the SPDX expression; PEP 639 forbids a licence classifier.
    assert PROJECT["license"] == "BSD-3-Clause"
    assert not any(c.startswith("License ::") for c in classifiers)


def _requirements(extra, extras, seen=()):
    """The requirements an extra installs, its own ``skirm[...]`` resolved."""
    found = []
    for requirement in extras[extra]:
        own = re.fullmatch(r"skirm\[([\w,]+)\]", requirement)
        if own is None:
            found.append(requirement)
            continue
        for name in own.group(1).split(","):
            if name not in seen:
                found += _requirements(name, extras, (*seen, extra))
    return found


def _xgboost_distributions(requirements, platform):
    """The XGBoost distributions installed on ``platform`` (a platform.system())."""
    found = set()
    for requirement in requirements:
        name = re.match(r"[\w.-]+", requirement).group(0).lower()
        if not name.startswith("xgboost"):
            continue
        marker = requirement.partition(";")[2].strip()
        if marker:
            operator, value = re.fullmatch(
                r"platform_system\s*(==|!=)\s*'(\w+)'", marker
            ).groups()
            if (platform == value) != (operator == "=="):
                continue
        found.add(name)
    return found


@pytest.mark.parametrize("platform", ["Linux", "Windows", "Darwin"])
def test_no_set_of_extras_installs_two_xgboost_distributions(platform):
    """``xgboost`` and ``xgboost-cpu`` are two distributions of one import:
    pip installs both side by side and the last one unpacked wins."""
    extras = PROJECT["optional-dependencies"]
    for size in (1, 2, 3):
        for chosen in combinations(extras, size):
            requirements = [r for e in chosen for r in _requirements(e, extras)]
            found = _xgboost_distributions(requirements, platform)
            assert len(found) <= 1, (chosen, platform, found)
    everything = [r for e in extras for r in _requirements(e, extras)]
    assert len(_xgboost_distributions(everything, platform)) == 1


def test_help_names_the_documentation():
    assert PROJECT["urls"]["Documentation"] == DOCUMENTATION
    assert DOCUMENTATION in build_parser().format_help()


def test_citation_file():
    text = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^cff-version: 1\.2\.0$", text, re.MULTILINE)
    for key in ("message", "title", "authors", "license", "url"):
        assert re.search(rf"^{key}:", text, re.MULTILINE), key
    assert f"license: {PROJECT['license']}" in text
    assert skirm.__version__  # the version is the package's, not the file's


def test_the_source_distribution_says_where_the_tests_are():
    """The sdist ships no tests (some of their data is under NIST's notice)
    and the README, which it ships, says they run from the repository."""
    manifest = (ROOT / "MANIFEST.in").read_text()
    assert re.search(r"^prune tests$", manifest, re.MULTILINE)
    for name in ("CHANGELOG.md", "CITATION.cff"):
        assert name in manifest
    readme = (ROOT / "README.md").read_text()
    assert "run\nfrom a checkout of the repository" in readme
