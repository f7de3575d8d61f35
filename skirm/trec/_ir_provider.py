"""skirm as an ir_measures provider, registered on request.

ir_measures keeps its providers in ``ir_measures.providers.registry`` (by
``NAME``) and computes its module-level ``calc_aggregate``/``iter_calc``
with ``ir_measures.DefaultPipeline``, a fallback over a list of providers
(the first one supporting a measure computes it). ir_measures is imported
only when :func:`register_ir_measures_provider` is called.
"""

from __future__ import annotations

from typing import Any

from skirm._errors import InvalidInputError, MissingDependencyError
from skirm.trec._ir_measures import Evaluator, _Request

__all__ = ["register_ir_measures_provider"]

_PROVIDER: list[Any] = []


def _import_ir_measures():
    try:
        import ir_measures
    except ImportError as error:
        raise MissingDependencyError(
            "register_ir_measures_provider() requires ir_measures; install "
            "it with `pip install skirm[ir_measures]`"
        ) from error
    return ir_measures


def _build(ir_measures):
    """The provider class, made on ir_measures' own base classes."""
    base = ir_measures.providers

    class SkirmEvaluator(base.Evaluator):
        def __init__(self, measures, qrels):
            self._skirm = Evaluator(list(measures), qrels)
            super().__init__(measures, set(self._skirm.qrels.query_ids()))

        def iter_calc(self, run):
            # skirm's records as they are: they already hold what ir_measures
            # reports (0 for a query the run lacks), and no more (its
            # accuracy provider leaves queries out, which the base class's
            # iter_calc would fill with the measure's default)
            for record in self._skirm.iter_calc(run):
                yield ir_measures.Metric(record.query_id, record.measure, record.value)

        _iter_calc = iter_calc

    class SkirmProvider(base.Provider):
        """skirm's engine behind ir_measures' interface: each measure as
        ir_measures' default pipeline computes it, ties included."""

        NAME = "skirm"
        SUPPORTED_MEASURES: tuple = ()

        def supports(self, measure):
            try:
                _Request(measure)
            except (ValueError, InvalidInputError):
                return False
            return True

        def _evaluator(self, measures, qrels):
            return SkirmEvaluator(measures, qrels)

    return SkirmProvider()


def register_ir_measures_provider(*, default: bool = False) -> Any:
    """Register skirm as the ir_measures provider ``"skirm"``.

    Parameters
    ----------
    default : bool, default=False
        Also put skirm first in ``ir_measures.DefaultPipeline``, so that
        ``ir_measures.calc_aggregate``, ``iter_calc``, ``evaluator`` and
        the code calling them compute every measure skirm knows with
        skirm (ir_measures' own providers keep the others).

    Returns
    -------
    provider : ir_measures.providers.Provider
        The provider (also ``ir_measures.providers.registry["skirm"]``).

    Examples
    --------
    >>> import ir_measures
    >>> from skirm.trec import register_ir_measures_provider
    >>> provider = register_ir_measures_provider()
    >>> res = provider.calc_aggregate([ir_measures.RBP(rel=1)],
    ...     {"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 0.5, "d2": 0.5}})
    >>> round(res[ir_measures.RBP(rel=1)], 3)
    0.2
    """
    ir_measures = _import_ir_measures()
    if not _PROVIDER:
        _PROVIDER.append(_build(ir_measures))
    provider = _PROVIDER[0]
    ir_measures.providers.register(provider)
    pipeline = ir_measures.DefaultPipeline.providers
    if default and provider not in pipeline:
        pipeline.insert(0, provider)
    return provider
