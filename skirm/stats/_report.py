"""The :class:`Comparison` object and its renderings (frame, text, Markdown, LaTeX)."""

from __future__ import annotations

import string
from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import MissingDependencyError
from skirm._frames import BACKEND, polars_records
from skirm._params import OneOf, Param, checked
from skirm.stats._paired import LARGE_N, large_n_note

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import NDArray

    from skirm.stats._paired import Settings

_TEST_NAMES = {
    "t": "paired Student t test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test (shift method)",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test (ties dropped)",
    "tukey_hsd": "Tukey HSD on the two-way ANOVA without replication",
    "randomized_tukey_hsd": "randomised Tukey HSD",
}
_CORRECTION_NAMES = {
    "holm": "Holm correction",
    "bonferroni": "Bonferroni correction",
    "fdr_bh": "Benjamini-Hochberg FDR correction",
}
#: The rows of a comparison's frame: one per system and metric, or one per
#: pair and metric.
KINDS = ("systems", "pairs")
KIND = Param("kind", OneOf(*KINDS))
_LATEX_SPECIALS = {c: "\\" + c for c in "&%$#_{}"}
_LATEX_SPECIALS.update(
    {"~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}
)


def _letters(n):
    alphabet = string.ascii_lowercase
    return [
        alphabet[i] if i < 26 else f"{alphabet[i // 26 - 1]}{alphabet[i % 26]}"
        for i in range(n)
    ]


def _latex_escape(text):
    return "".join(_LATEX_SPECIALS.get(c, c) for c in str(text))


class Comparison:
    """Systems compared on the same queries, from :func:`compare`.

    Attributes
    ----------
    systems : list of str
        System names, the baseline first if there is one.
    baseline : str or None
        The baseline system, or None when every pair was compared or when
        there are several baselines.
    baselines : list of str
        The baselines: empty when every pair was compared, one, or several
        (each other system compared with each of them).
    metrics : list of str
        The metrics compared.
    pairs : list of tuple of str
        The pairs tested, ``(system, other)``: a difference is ``system``
        minus ``other``. With a baseline, ``other`` is the baseline.
    group_ids : ndarray of shape (n_queries,)
        The aligned query ids.
    per_query : dict of str to dict of str to ndarray
        ``per_query[system][metric]``: values aligned to ``group_ids``
        (after the ``missing`` policy).
    means : dict of str to dict of str to float
        ``means[system][metric]``, weighted by the query weights if any.
    weights : ndarray of shape (n_queries,) or None
        The query weights carried by the results.
    n_queries : int
        Queries compared.
    test : str
        The test (see :func:`compare`).
    correction : str or None
        The multiple-comparison correction applied per metric.
    alpha : float
        Significance level: significant when ``p_adjusted <= alpha``.
    confidence : float
        Level of the intervals.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    interval : str
        How the intervals were made: ``"t"``, ``"percentile"`` or ``"bca"``.
    n_resamples : int
        Random draws of the resampling tests and bootstrap intervals.
    exact : bool
        Whether the randomization test was exact.
    missing : str
        The missing-query policy.
    random_state : int or None
        The seed of the random draws (None when a Generator was passed).

    Examples
    --------
    See :func:`compare`.
    """

    def __init__(
        self,
        *,
        systems: list[str],
        baseline: str | None,
        metrics: list[str],
        baselines: list[str] | None = None,
        group_ids: NDArray[Any],
        values: NDArray[np.float64],
        weights: NDArray[np.float64] | None,
        pairs: list[tuple[str, str]],
        table: dict[str, NDArray[Any]],
        means: NDArray[np.float64],
        ci: tuple[NDArray[np.float64], NDArray[np.float64]],
        test: str,
        settings: Settings,
        correction: str | None,
        alpha: float,
        missing: str,
        random_state: int | None,
        exact: bool,
    ) -> None:
        self.systems = systems
        self.baseline = baseline
        self.baselines = list(baselines or ([] if baseline is None else [baseline]))
        self.metrics = metrics
        self.group_ids = group_ids
        self.weights = weights
        self.pairs = pairs
        self.per_query = {
            s: {m: values[i, j] for j, m in enumerate(metrics)}
            for i, s in enumerate(systems)
        }
        self.means = {
            s: {m: float(means[i, j]) for j, m in enumerate(metrics)}
            for i, s in enumerate(systems)
        }
        self.n_queries = int(group_ids.size)
        self.test = test
        self.correction = correction
        self.alpha = alpha
        self.confidence = settings.confidence
        self.alternative = settings.alternative
        self.interval = settings.interval
        self.n_resamples = settings.n_resamples
        self.zero_method = settings.zero_method
        self.exact = exact
        self.missing = missing
        self.random_state = random_state
        self._table = table
        self._mean_array = means
        self._ci = ci

    # ------------------------------------------------------------------
    # Derived facts
    # ------------------------------------------------------------------

    def _better(self):
        """``better[i][j]``: names system ``i`` beats significantly on metric j."""
        index = {s: i for i, s in enumerate(self.systems)}
        better = [[[] for _ in self.metrics] for _ in self.systems]
        sig, delta = self._table["significant"], self._table["delta"]
        for p, (a, b) in enumerate(self.pairs):
            for j in range(len(self.metrics)):
                if sig[p, j] and delta[p, j] > 0:
                    better[index[a]][j].append(b)
                elif sig[p, j] and delta[p, j] < 0:
                    better[index[b]][j].append(a)
        return better

    @property
    def _uses_random(self):
        random_test = self.test in ("bootstrap", "randomized_tukey_hsd") or (
            self.test == "randomization" and not self.exact
        )
        return random_test or self.interval != "t"

    def describe_method(self) -> str:
        """One sentence naming the test, correction, alpha, seed and conventions.

        Returns
        -------
        text : str
        """
        test = _TEST_NAMES[self.test]
        if self.test == "randomization":
            test += (
                f" (exact, all 2^{self.n_queries} sign flips)"
                if self.exact
                else f" ({self.n_resamples:,} random sign flips)"
            )
        elif self.test in ("bootstrap", "randomized_tukey_hsd"):
            test += f" ({self.n_resamples:,} resamples)"
        elif self.test == "wilcoxon":
            test += f" (zero differences: {self.zero_method})"
        n_pairs = len(self.pairs)
        if self.correction is None:
            corr = (
                "familywise by construction"
                if self.test.endswith("tukey_hsd")
                else "no correction"
            )
        else:
            corr = f"{_CORRECTION_NAMES[self.correction]} over {n_pairs} comparisons"
            corr += " per metric"
            if len(self.baselines) > 1:
                corr += (
                    f" (each system against each of {len(self.baselines)} "
                    f"baselines: {', '.join(self.baselines)})"
                )
        seed = f", seed {self.random_state}" if self._uses_random else ""
        if self._uses_random and self.random_state is None:
            seed = ", seed: a generator passed in"
        interval = {
            "t": "t",
            "percentile": "bootstrap percentile",
            "bca": "bootstrap BCa",
        }[self.interval]
        intervals = f"{self.confidence:.0%} {interval} intervals"
        if self.test.endswith("tukey_hsd"):
            intervals += (
                " of the means, simultaneous Tukey intervals of the differences"
            )
        return (
            f"Mean over {self.n_queries} queries (missing queries: {self.missing}). "
            f"{self.alternative.capitalize()} {test}, {corr}, "
            f"significant at adjusted p <= {self.alpha:g}{seed}; {intervals}."
        )

    # ------------------------------------------------------------------
    # Frames
    # ------------------------------------------------------------------

    @checked(kind=KIND, backend=BACKEND)
    def to_frame(
        self,
        kind: Literal["systems", "pairs"] = "systems",
        backend: Literal["pandas", "polars"] = "pandas",
    ) -> Any:
        """The comparison as a tidy pandas (or polars) DataFrame.

        Requires pandas (``pip install skirm[pandas]``), or polars for
        ``backend="polars"`` (``pip install skirm[polars]``).

        Parameters
        ----------
        kind : {"systems", "pairs"}, default="systems"
            ``"systems"``: one row per (system, metric) with columns
            ``system, metric, mean, ci_low, ci_high`` (the interval of the
            mean), ``delta, delta_ci_low, delta_ci_high, effect_size,
            statistic, p_value, p_adjusted, significant, wins, ties, losses``
            (against the baseline; the baseline's own row has ``delta`` 0
            and ties on every query; missing without a baseline) and
            ``better_than`` (the systems it beats significantly).
            ``"pairs"``: one row per (pair, metric) with columns ``system,
            other, metric, delta, ci_low, ci_high, effect_size, statistic,
            p_value, p_adjusted, significant, wins, ties, losses``.
        backend : {"pandas", "polars"}, default="pandas"
            The library of the frame. In a polars frame a missing value
            (NaN, or ``<NA>`` of the counts in pandas) is null, as
            ``polars.from_pandas`` converts the pandas frame, and
            ``better_than`` is a list of strings.

        Returns
        -------
        frame : pandas.DataFrame or polars.DataFrame
        """
        rows = self.to_records(kind)
        if backend == "polars":
            return polars_records(
                rows,
                "Comparison.to_frame",
                integers=("wins", "ties", "losses"),
                string_lists=("better_than",),
            )
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise MissingDependencyError(
                "Comparison.to_frame requires pandas; install it with "
                "`pip install skirm[pandas]`"
            ) from exc
        frame = pd.DataFrame(rows)
        for column in ("wins", "ties", "losses"):
            frame[column] = frame[column].astype("Int64")
        return frame

    @checked(kind=KIND)
    def to_records(
        self, kind: Literal["systems", "pairs"] = "systems"
    ) -> list[dict[str, Any]]:
        """The rows of :meth:`to_frame` as a list of dicts (no pandas needed).

        Parameters
        ----------
        kind : {"systems", "pairs"}, default="systems"

        Returns
        -------
        records : list of dict
            Missing values are NaN, or None for the counts.
        """
        return self._pair_rows() if kind == "pairs" else self._system_rows()

    def _pair_record(self, p, j):
        t = self._table
        return {
            "delta": float(t["delta"][p, j]),
            "ci_low": float(t["ci_low"][p, j]),
            "ci_high": float(t["ci_high"][p, j]),
            "effect_size": float(t["effect_size"][p, j]),
            "statistic": float(t["statistic"][p, j]),
            "p_value": float(t["pvalue"][p, j]),
            "p_adjusted": float(t["p_adjusted"][p, j]),
            "significant": bool(t["significant"][p, j]),
            "wins": int(t["wins"][p, j]),
            "ties": int(t["ties"][p, j]),
            "losses": int(t["losses"][p, j]),
        }

    def _pair_rows(self):
        return [
            {"system": a, "other": b, "metric": m, **self._pair_record(p, j)}
            for p, (a, b) in enumerate(self.pairs)
            for j, m in enumerate(self.metrics)
        ]

    def _system_rows(self):
        better = self._better()
        against = {a: p for p, (a, _) in enumerate(self.pairs)}
        empty = dict.fromkeys(
            [
                "delta",
                "ci_low",
                "ci_high",
                "effect_size",
                "statistic",
                "p_value",
                "p_adjusted",
            ],
            np.nan,
        )
        rows = []
        for i, system in enumerate(self.systems):
            for j, metric in enumerate(self.metrics):
                if self.baseline is None:
                    record = {
                        **empty,
                        "significant": False,
                        "wins": None,
                        "ties": None,
                        "losses": None,
                    }
                elif system == self.baseline:
                    record = {
                        **empty,
                        "delta": 0.0,
                        "significant": False,
                        "wins": 0,
                        "ties": self.n_queries,
                        "losses": 0,
                    }
                else:
                    record = self._pair_record(against[system], j)
                rows.append(
                    {
                        "system": system,
                        "metric": metric,
                        "mean": float(self._mean_array[i, j]),
                        "ci_low": float(self._ci[0][i, j]),
                        "ci_high": float(self._ci[1][i, j]),
                        "delta": record["delta"],
                        "delta_ci_low": record["ci_low"],
                        "delta_ci_high": record["ci_high"],
                        **{
                            key: record[key]
                            for key in (
                                "effect_size",
                                "statistic",
                                "p_value",
                                "p_adjusted",
                                "significant",
                                "wins",
                                "ties",
                                "losses",
                            )
                        },
                        "better_than": tuple(better[i][j]),
                    }
                )
        return rows

    # ------------------------------------------------------------------
    # Text renderings
    # ------------------------------------------------------------------

    def _cells(self, bold, superscript):
        """Mean cells: best per metric bold, letters of systems beaten."""
        letters = dict(zip(self.systems, _letters(len(self.systems)), strict=True))
        better = self._better()
        best = self._mean_array.max(axis=0)
        cells = []
        for i in range(len(self.systems)):
            row = []
            for j in range(len(self.metrics)):
                text = f"{self._mean_array[i, j]:.4f}"
                if self._mean_array[i, j] == best[j]:
                    text = bold(text)
                marks = "".join(sorted(letters[s] for s in better[i][j]))
                row.append(text + (superscript(marks) if marks else ""))
            cells.append(row)
        return letters, cells

    def _legend(self):
        return (
            "Bold: best mean per metric. Superscripts: the systems (by letter) "
            "that a system is significantly better than."
        )

    def to_latex(
        self, *, caption: str | None = None, label: str | None = "tab:comparison"
    ) -> str:
        r"""A booktabs LaTeX table: best per metric in bold, significance letters.

        Each system gets a letter; a superscript lists the systems it is
        significantly better than (after the correction). The default caption
        names the test, the correction, alpha, the seed and the conventions.
        Needs ``\usepackage{booktabs}``.

        Parameters
        ----------
        caption : str, default=None
            Replaces the generated caption.
        label : str or None, default="tab:comparison"
            The ``\label``; None for none.

        Returns
        -------
        latex : str
        """
        letters, cells = self._cells(
            lambda t: rf"\textbf{{{t}}}", lambda m: f"$^{{{m}}}$"
        )
        caption = caption or f"{self.describe_method()} {self._legend()}"
        header = " & ".join(["", "System", *(_latex_escape(m) for m in self.metrics)])
        lines = [
            r"\begin{table}[t]",
            r"\centering",
            rf"\caption{{{_latex_escape(caption)}}}",
        ]
        if label:
            lines.append(rf"\label{{{label}}}")
        lines += [
            rf"\begin{{tabular}}{{cl{'r' * len(self.metrics)}}}",
            r"\toprule",
            header + r" \\",
            r"\midrule",
        ]
        for system, row in zip(self.systems, cells, strict=True):
            lines.append(
                " & ".join([letters[system], _latex_escape(system), *row]) + r" \\"
            )
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        """A Markdown (pipe) table with the same marks as :meth:`to_latex`.

        Returns
        -------
        markdown : str
        """
        letters, cells = self._cells(lambda t: f"**{t}**", lambda m: f"<sup>{m}</sup>")
        lines = [
            "| | System | " + " | ".join(self.metrics) + " |",
            "|---|---|" + "---:|" * len(self.metrics),
        ]
        for system, row in zip(self.systems, cells, strict=True):
            lines.append(f"| {letters[system]} | {system} | " + " | ".join(row) + " |")
        lines += ["", f"{self.describe_method()} {self._legend()}"]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        letters, cells = self._cells(lambda t: f"{t}*", lambda m: f" >{m}")
        header = ["", "system", *self.metrics]
        rows = [header] + [
            [letters[s], s, *row] for s, row in zip(self.systems, cells, strict=True)
        ]
        widths = [max(len(r[c]) for r in rows) for c in range(len(header))]
        lines = [
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in rows
        ]
        lines.append("(* best mean; >x: significantly better than system x)")
        lines.append("")
        t = self._table
        for p, (a, b) in enumerate(self.pairs):
            for j, m in enumerate(self.metrics):
                mark = " *" if t["significant"][p, j] else ""
                lines.append(
                    f"{m}: {a} - {b} = {t['delta'][p, j]:+.4f} "
                    f"[{t['ci_low'][p, j]:+.4f}, {t['ci_high'][p, j]:+.4f}], "
                    f"d_z {t['effect_size'][p, j]:+.2f}, p {t['pvalue'][p, j]:.3g} "
                    f"(adjusted {t['p_adjusted'][p, j]:.3g}){mark}, W/T/L "
                    f"{t['wins'][p, j]}/{t['ties'][p, j]}/{t['losses'][p, j]}"
                )
        lines += ["", self.describe_method()]
        if self.n_queries >= LARGE_N:
            lines.append(large_n_note(self.n_queries))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"Comparison(systems={self.systems!r}, metrics={self.metrics!r}, "
            f"test={self.test!r}, correction={self.correction!r}, "
            f"n_queries={self.n_queries})"
        )

    def _repr_html_(self) -> str:
        """The notebook display: the means table and the pairs of
        :meth:`__str__` as HTML tables, with the test, correction and alpha."""
        from skirm.stats._report_html import render

        return render(self)
