"""compare with several baselines: each system against each baseline, the
correction over the whole family of a metric."""

import re

import numpy as np
import pytest

from skirm import InvalidParameterError
from skirm.metrics import evaluate
from skirm.stats import adjust_pvalues, compare, paired_test


def _results(seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(40), 10)
    y = rng.choice(3, size=groups.size, p=[0.7, 0.2, 0.1])
    return {
        name: evaluate(
            y,
            y + rng.normal(0, noise, y.size),
            groups=groups,
            metrics=["ndcg@10", "map"],
        )
        for name, noise in [("a", 2.0), ("b", 1.8), ("c", 1.2), ("d", 1.0), ("e", 2.2)]
    }


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh", None])
@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_the_family_is_every_system_against_every_baseline(test, correction):
    results = _results()
    comp = compare(
        results, baseline=["b", "a"], test=test, correction=correction, random_state=0
    )
    assert comp.baselines == ["b", "a"] and comp.baseline is None
    assert comp.systems == ["b", "a", "c", "d", "e"]
    expected_pairs = [(s, b) for b in ("b", "a") for s in ("c", "d", "e")]
    assert comp.pairs == expected_pairs
    rows = comp.to_records("pairs")
    for metric in ("ndcg@10", "map"):
        mine = [r for r in rows if r["metric"] == metric]
        raw = [
            paired_test(
                results[s].per_query[metric], results[b].per_query[metric], test=test
            ).pvalue
            for s, b in expected_pairs
        ]
        np.testing.assert_allclose([r["p_value"] for r in mine], raw, rtol=1e-12)
        np.testing.assert_allclose(
            [r["p_adjusted"] for r in mine], adjust_pvalues(raw, correction), rtol=1e-12
        )
    if correction is not None:
        assert "over 6 comparisons per metric (each system against each of 2 " in (
            comp.describe_method()
        )
    assert "b (baseline)" in comp._repr_html_() and "a (baseline)" in comp._repr_html_()


def test_one_baseline_in_a_list_is_the_baseline():
    results = _results()
    one = compare(results, baseline="b", random_state=0)
    listed = compare(results, baseline=["b"], random_state=0)
    assert listed.baseline == "b" and listed.baselines == ["b"]
    assert str(one) == str(listed)
    assert compare(results, random_state=0).baselines == []


@pytest.mark.parametrize(
    ("baseline", "message"),
    [
        (
            ["a", "z"],
            "`baseline` must be one of the systems ['a', 'b', 'c', 'd', 'e'], got 'z'",
        ),
        (["a", "a"], "`baseline` must name each system once, got ['a', 'a']"),
        ([], "`baseline` must be a system's name, a list of them or None"),
        (["a", "b", "c", "d", "e"], "must leave at least one system"),
        ("z", "`baseline` must be one of the systems"),
    ],
)
def test_bad_baselines(baseline, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        compare(_results(), baseline=baseline)
