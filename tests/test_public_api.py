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


def test_one_public_class_per_name():
    """A public class name means one class wherever it is importable: a
    class shown by two namespaces is the same object, never two
    (``skirm.trec.Metric`` was ir_measures' record where
    ``skirm.metrics.Metric`` is a measure). Functions may share a name
    across namespaces on purpose: ``skirm.dask.evaluate`` is
    ``skirm.evaluate`` over Dask partitions."""
    seen: dict[str, tuple[str, type]] = {}
    for module_name in NAMESPACES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if not isinstance(value, type):
                continue
            first = seen.setdefault(name, (module_name, value))
            assert first[1] is value, (
                f"{module_name}.{name} and {first[0]}.{name} are different classes"
            )


def test_a_renamed_name_is_importable_with_a_warning():
    from skirm import trec

    with pytest.warns(
        FutureWarning, match=r"^skirm\.trec\.Metric is renamed skirm\.trec\.QueryValue"
    ):
        old = trec.Metric
    assert old is trec.QueryValue
    assert "Metric" not in trec.__all__ and "Metric" not in dir(trec)
    with pytest.warns(FutureWarning, match=r"QueryValue"):
        from skirm.trec import Metric  # noqa: F401
