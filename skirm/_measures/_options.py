"""The rules of the measures' options, one per option.

A measure's row in the table names its options and their defaults; the
values a caller gives are checked here, whichever door they come through
(a metric function, :func:`~skirm.metrics.get_metric`, ``evaluate``, a
scorer, an ir_measures string such as ``RBP(p=0.8)``).
"""

from __future__ import annotations

from skirm._errors import INPUT
from skirm._measures._rows import REL_FORMATS
from skirm._params import BOOLEAN, NONE, RELEVANCE_THRESHOLD, Interval, OneOf, Param

__all__ = ["ALPHA", "BETA", "OPTIONS", "REL_FORMAT"]

_POSITIVE = Interval(float, 0, closed="neither")

#: Each option's rule, by name.
OPTIONS = {
    param.name: param
    for param in (
        Param("normalize", BOOLEAN),
        Param("T", _POSITIVE),
        Param("min_rel", Interval(float)),
        Param("max_rel", NONE, _POSITIVE, expected="None or a number > 0"),
        Param("depth", Interval(int, 1, closed="left")),
        RELEVANCE_THRESHOLD,
        Param("gain", OneOf("linear", "exponential")),
        Param("log_base", Interval(float, 1, closed="neither")),
        Param("p", Interval(float, 0, 1, closed="neither")),
        Param(
            "max_grade",
            NONE,
            Interval(float, 0, closed="left"),
            expected="None or a non-negative number",
        ),
        Param("denominator", OneOf("R", "min_k", "hits")),
        # The measures of impression logs (:mod:`._impressions`).
        Param("weights", OneOf("impressions", "clicks", "uniform", "pairs")),
        Param(
            "one_class",
            OneOf("skip"),
            Interval(float, 0, 1),
            expected="'skip' or a number in [0, 1]",
        ),
        Param(
            "base_rate",
            OneOf("overall", "group"),
            Interval(float, 0, 1, closed="neither"),
            expected="'overall', 'group' or a number in (0, 1)",
        ),
        Param("n_bins", Interval(int, 1, closed="left")),
        Param("estimator", OneOf("ips", "snips")),
        Param("average", OneOf("micro", "macro")),
    )
}

#: The diversity measures' redundancy intolerance and patience.
ALPHA = Param("alpha", Interval(float, 0, 1), option="--alpha")
BETA = Param("beta", Interval(float, 0, 1), option="--beta")

#: The format of the relevance file (trec_eval's ``-R``, which exits 2 on an
#: illegal one).
REL_FORMAT = Param("rel_format", OneOf(*REL_FORMATS), option="-R", exit_status=INPUT)
