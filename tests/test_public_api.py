"""The public namespaces: sorted, importable ``__all__`` lists."""

import importlib

import pytest

import skirm

NAMESPACES = [
    "skirm",
    "skirm.metrics",
    "skirm.datasets",
    "skirm.io",
    "skirm.trec",
    "skirm.model_selection",
    "skirm.ranker",
    "skirm.inspection",
    "skirm.dask",
    "skirm.stats",
    "skirm.recsys",
]


@pytest.mark.parametrize("module_name", NAMESPACES)
def test_all_is_sorted_and_importable(module_name):
    module = importlib.import_module(module_name)
    assert list(module.__all__) == sorted(module.__all__)
    for name in module.__all__:
        assert hasattr(module, name), f"{module_name}.{name} is listed but missing"


def test_version():
    assert isinstance(skirm.__version__, str) and skirm.__version__
