"""The public namespaces: sorted, importable ``__all__`` lists."""

import importlib
import re

import pytest

import skirm

NAMESPACES = [
    "skirm",
    "skirm.metrics",
    "skirm.datasets",
    "skirm.fusion",
    "skirm.io",
    "skirm.trec",
    "skirm.model_selection",
    "skirm.ranker",
    "skirm.inspection",
    "skirm.dask",
    "skirm.stats",
    "skirm.recsys",
    "skirm.plot",
]


def _natural(name):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


@pytest.mark.parametrize("module_name", NAMESPACES)
def test_all_is_sorted_and_importable(module_name):
    module = importlib.import_module(module_name)
    # Sorted as ruff sorts __all__: case first, then numbers by value
    # ("nerr8_score" before "nerr10_score").
    assert list(module.__all__) == sorted(module.__all__, key=_natural)
    for name in module.__all__:
        assert hasattr(module, name), f"{module_name}.{name} is listed but missing"


def test_version():
    assert isinstance(skirm.__version__, str) and skirm.__version__
