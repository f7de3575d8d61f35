"""Do two label sets rank the systems alike: :func:`system_agreement`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

import skirm.stats._resampling as rs
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._measures._held import held_name
from skirm._params import Interval, Param, checked, describe
from skirm.recsys import kendall_tau, tau_ap
from skirm.stats._compare import COMPARE_TEST, MISSING_QUERIES, compare
from skirm.stats._correction import CORRECTION
from skirm.stats._resampling import N_RESAMPLES, RANDOM_STATE

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Literal

    from skirm._typing import Seed
    from skirm.metrics import EvaluationResult
    from skirm.stats._report import Comparison

ALPHA = Param("alpha", Interval(float, 0, 1, closed="neither"))
#: How a pair of systems fares under the two label sets.
PAIR_STATUSES = ("both", "only_a", "only_b", "reversed", "neither")


@dataclass(frozen=True)
class SystemAgreementResult:
    """The outcome of :func:`system_agreement`.

    Attributes
    ----------
    metric : str
        The metric the systems are ordered by.
    systems : list of str
        The systems, in the order of ``results_a``.
    means_a, means_b : ndarray
        Each system's mean under each label set.
    kendall_tau : float
        Kendall's tau-b between the two orderings.
    tau_ap : float
        The AP rank correlation of the order under ``b`` against the
        reference order under ``a`` (NaN when either order has ties).
    pairs : list of dict
        One record per pair: ``system``, ``other``, ``delta_a``,
        ``delta_b``, ``p_adjusted_a``, ``p_adjusted_b`` and ``status``:
        ``"both"`` (significant under both, same direction), ``"only_a"``,
        ``"only_b"``, ``"reversed"`` (significant under both, opposite
        directions) or ``"neither"``.
    n_swaps : int
        Pairs whose status is ``"only_a"``, ``"only_b"`` or ``"reversed"``.
    comparison_a, comparison_b : Comparison
        The two comparisons, with the same test, correction and seed.
    """

    metric: str
    systems: list
    means_a: np.ndarray
    means_b: np.ndarray
    kendall_tau: float
    tau_ap: float
    pairs: list
    n_swaps: int
    comparison_a: Comparison
    comparison_b: Comparison

    def counts(self) -> dict[str, int]:
        """Pairs per status."""
        out = dict.fromkeys(PAIR_STATUSES, 0)
        for row in self.pairs:
            out[row["status"]] += 1
        return out

    def __str__(self):
        c = self.counts()
        settings = self.comparison_a
        return "\n".join(
            [
                f"{len(self.systems)} systems on {self.metric}: Kendall's tau "
                f"{self.kendall_tau:.4f}, tau_AP {self.tau_ap:.4f}",
                f"{len(self.pairs)} pairs ({settings.test} test, correction "
                f"{settings.correction}, alpha {settings.alpha:g}):",
                f"significant under both {c['both']}, only a {c['only_a']}, only "
                f"b {c['only_b']}, reversed {c['reversed']}, neither {c['neither']}",
            ]
        )


def _status(sig_a, sig_b, delta_a, delta_b):
    if sig_a and sig_b:
        return "both" if np.sign(delta_a) == np.sign(delta_b) else "reversed"
    if sig_a:
        return "only_a"
    return "only_b" if sig_b else "neither"


@checked(
    test=COMPARE_TEST,
    correction=CORRECTION,
    alpha=ALPHA,
    n_resamples=N_RESAMPLES,
    missing=MISSING_QUERIES,
    random_state=RANDOM_STATE,
)
def system_agreement(
    results_a: Mapping[str, EvaluationResult],
    results_b: Mapping[str, EvaluationResult],
    *,
    metric: str,
    test: Literal[
        "t",
        "randomization",
        "bootstrap",
        "wilcoxon",
        "sign",
        "tukey_hsd",
        "randomized_tukey_hsd",
    ] = "t",
    correction: Literal["auto", "holm", "bonferroni", "fdr_bh"] | None = "auto",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    missing: Literal["raise", "zero", "intersect"] = "raise",
    random_state: Seed = None,
) -> SystemAgreementResult:
    """Whether two label sets order the same systems alike.

    The same systems evaluated under two sets of labels (human and LLM
    judgements, two assessors): Kendall's tau and tau_AP between the
    orderings by the mean of ``metric``, and the pairs of systems that
    :func:`compare` finds significantly different under one label set and
    not under the other, or in opposite directions (Voorhees' swaps).

    Parameters
    ----------
    results_a, results_b : dict of str to EvaluationResult
        The systems under each label set, by the same names; ``a`` is the
        reference for tau_AP.
    metric : str
        The metric compared.
    test, correction, alpha, n_resamples, missing
        As in :func:`compare`, which tests every pair under each label set
        (the correction over all the pairs of one label set).
    random_state : int, numpy Generator or None, default=None
        Seed of the draws; both comparisons use the same seed.

    Returns
    -------
    result : SystemAgreementResult
        ``kendall_tau``, ``tau_ap``, ``pairs``, ``n_swaps``, ``counts()``.

    Examples
    --------
    >>> import numpy as np
    >>> from skirm.metrics import evaluate
    >>> from skirm.stats import system_agreement
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(40), 10)
    >>> human = rng.choice(3, size=groups.size, p=[0.7, 0.2, 0.1])
    >>> llm = np.where(rng.random(human.size) < 0.3, rng.integers(0, 3, human.size),
    ...                human)
    >>> scores = {f"s{i}": human + rng.normal(0, 0.5 + 0.4 * i, human.size)
    ...           for i in range(4)}
    >>> a = {s: evaluate(human, x, groups=groups, metrics=["ndcg@10"])
    ...      for s, x in scores.items()}
    >>> b = {s: evaluate(llm, x, groups=groups, metrics=["ndcg@10"])
    ...      for s, x in scores.items()}
    >>> print(system_agreement(a, b, metric="ndcg@10"))
    4 systems on ndcg@10: Kendall's tau 0.6667, tau_AP 0.6667
    6 pairs (t test, correction holm, alpha 0.05):
    significant under both 1, only a 3, only b 0, reversed 0, neither 2
    """
    for name, results in (("results_a", results_a), ("results_b", results_b)):
        if not hasattr(results, "items"):
            raise InvalidParameterError(
                f"`{name}` must map system names to EvaluationResult objects, got "
                f"{describe(results)}"
            )
    if set(results_a) != set(results_b):
        raise InvalidInputError(
            "`results_a` and `results_b` must hold the same systems, got "
            f"{sorted(results_a)} and {sorted(results_b)}"
        )
    if len(results_a) < 3:
        raise InvalidInputError(
            f"`results_a` must hold at least 3 systems to compare orderings, got "
            f"{len(results_a)}"
        )
    results_b = {name: results_b[name] for name in results_a}
    for name, results in (("results_a", results_a), ("results_b", results_b)):
        for system, result in results.items():
            if held_name(metric, getattr(result, "per_query", {})) is None:
                raise InvalidParameterError(
                    f"`metric` must be a metric of every result, got {metric!r}, "
                    f"which {name}[{system!r}] does not hold"
                )
    seed, rng = rs.seed_and_rng(random_state)
    if seed is None:  # a Generator: one seed drawn from it for both
        seed = int(rng.integers(0, 2**63 - 1))
    options = {
        "metrics": [metric],
        "test": test,
        "correction": correction,
        "alpha": alpha,
        "n_resamples": n_resamples,
        "missing": missing,
        "random_state": seed,
    }
    comp_a = compare(results_a, **options)
    comp_b = compare(results_b, **options)
    means_a, means_b = (
        np.array([c.means[system][metric] for system in c.systems])
        for c in (comp_a, comp_b)
    )
    tied = any(np.unique(m).size < m.size for m in (means_a, means_b))
    rows = []
    for (system, other), ra, rb in zip(
        comp_a.pairs,
        comp_a.to_records("pairs"),
        comp_b.to_records("pairs"),
        strict=True,
    ):
        rows.append(
            {
                "system": system,
                "other": other,
                "delta_a": ra["delta"],
                "delta_b": rb["delta"],
                "p_adjusted_a": ra["p_adjusted"],
                "p_adjusted_b": rb["p_adjusted"],
                "status": _status(
                    ra["significant"], rb["significant"], ra["delta"], rb["delta"]
                ),
            }
        )
    return SystemAgreementResult(
        metric=metric,
        systems=list(results_a),
        means_a=means_a,
        means_b=means_b,
        kendall_tau=kendall_tau(means_b, means_a),
        tau_ap=float("nan") if tied else tau_ap(means_b, means_a),
        pairs=rows,
        n_swaps=sum(r["status"] in ("only_a", "only_b", "reversed") for r in rows),
        comparison_a=comp_a,
        comparison_b=comp_b,
    )
