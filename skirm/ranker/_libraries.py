"""How each ranking library takes the queries, a validation set and early stopping.

:class:`~skirm.ranker.QueryRanker` sorts the rows by query and encodes the
query ids as consecutive codes; the functions here turn those codes (and a
validation set prepared the same way) into each library's own ``fit``
arguments, and read the evaluation history back in one form.

============  ==========================  ===============================
library       queries                     validation set
============  ==========================  ===============================
LightGBM      ``group=`` sizes            ``eval_X``/``eval_y`` (4.7;
                                          ``eval_set`` before) and
                                          ``eval_group=`` sizes
XGBoost       ``qid=`` sorted codes       ``eval_set`` and ``eval_qid``
CatBoost      ``group_id=`` codes         ``eval_set=Pool(group_id=...)``
============  ==========================  ===============================
"""

from __future__ import annotations

import inspect

import numpy as np

from skirm._measures import _table as table
from skirm._params import NONE, Param, Satisfies
from skirm.metrics._registry import Metric, get_metric
from skirm.ranker._eval_metric import make_eval_metric

__all__ = [
    "after_fit",
    "early_stopping_history",
    "library_metric_name",
    "query_fit_kwargs",
    "skirm_metric",
    "validation_fit_kwargs",
]

#: The name of the validation set in the evaluation history.
VALIDATION = "validation"


def _ndcg_cutoff(name):
    """The cutoff ``k`` of ``"ndcg@k"`` (a name the registry reads), else None."""
    metric = get_metric(name)
    return metric.k if metric.spec.measure is table.NDCG else None


#: The metric early stopping watches: the library's own (None, or the name
#: "ndcg@k"), or any other registered metric, computed by skirm.
EVAL_METRIC = Param(
    "eval_metric",
    NONE,
    Satisfies(
        lambda name: isinstance(name, (str, Metric)),
        "a registered metric name or Metric",
        rejected=(10, 0.5),
    ),
    expected="None (the library's own metric), a registered metric name "
    "('map@10', 'err@20', 'ndcg@10', ...) or a Metric from get_metric",
)


def library_metric_name(library, eval_metric):
    """The library's own name of ``"ndcg@k"``, e.g. ``"NDCG:top=10;type=Exp"``.

    ``None`` keeps the library's configured metric (its default or what the
    wrapped estimator was given) and returns None; so does a metric skirm
    computes (see :func:`skirm_metric`).
    """
    if isinstance(eval_metric, str):
        get_metric(eval_metric)  # an unknown name: the registry's own error
    if skirm_metric(eval_metric) is not None or EVAL_METRIC(eval_metric) is None:
        return None
    k = _ndcg_cutoff(eval_metric)
    if library == "catboost":
        return f"NDCG:top={k};type=Exp"
    return f"ndcg@{k}"


def skirm_metric(eval_metric):
    """The metric skirm computes for early stopping, or None when the library
    computes it: ``None`` and a name ``"ndcg@k"`` with a cutoff go to the
    library's own metric; any other registered name, or a
    :class:`~skirm.metrics.Metric`, is skirm's."""
    if EVAL_METRIC(eval_metric) is None:
        return None
    if isinstance(eval_metric, str) and _ndcg_cutoff(eval_metric) is not None:
        return None
    return eval_metric


def query_fit_kwargs(library, codes, sample_weight):
    """``fit`` keywords carrying the sorted query codes and the row weights."""
    kwargs = {}
    if library == "lightgbm":
        kwargs["group"] = np.bincount(codes)
    elif library == "xgboost":
        kwargs["qid"] = codes
    else:  # catboost
        kwargs["group_id"] = codes
    if sample_weight is not None:
        if library == "xgboost":  # one weight per query: the mean of its rows
            sums = np.bincount(codes, weights=sample_weight)
            sample_weight = sums / np.bincount(codes)
        kwargs["sample_weight"] = sample_weight
    return kwargs


def _accepts(method, name):
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False


def validation_fit_kwargs(
    library, estimator, X_val, y_val, codes_val, rounds, name, metric=None
):
    """``fit`` keywords passing a validation set sorted by query.

    Sets the estimator's own parameters where the library takes early
    stopping or the metric at construction (XGBoost, CatBoost). ``metric``,
    when given, is a metric skirm computes each round (see
    :func:`skirm_metric`), and the one early stopping watches.
    """
    if metric is not None:
        labels = {"y_true": y_val} if library == "catboost" else {}
        custom = make_eval_metric(metric, library, groups=codes_val, **labels)
        if library == "xgboost":
            return _xgboost_custom(estimator, X_val, y_val, codes_val, rounds, custom)
        if library == "catboost":
            estimator.set_params(eval_metric=custom)
    if library == "lightgbm":
        kwargs = _lightgbm_validation(estimator, X_val, y_val, codes_val, rounds, name)
        if metric is not None:  # the only metric, so the first one stops
            estimator.set_params(metric="None")
            kwargs["eval_metric"] = custom
        return kwargs
    if library == "xgboost":
        params = {"early_stopping_rounds": rounds}
        if name is not None:
            params["eval_metric"] = name
        estimator.set_params(**params)
        return {
            "eval_set": [(X_val, y_val)],
            "eval_qid": [codes_val],
            "verbose": False,
        }
    from catboost import Pool  # the estimator is a CatBoost model: installed

    if name is not None and metric is None:
        estimator.set_params(eval_metric=name)
    return {
        "eval_set": Pool(X_val, y_val, group_id=codes_val),
        "early_stopping_rounds": rounds,
        "use_best_model": rounds is not None,
    }


#: XGBoost's name of the (first) validation set of its scikit-learn API.
XGBOOST_VALIDATION = "validation_0"


def _xgboost_custom(estimator, X_val, y_val, codes_val, rounds, custom):
    """XGBoost with skirm's metric: XGBRanker's own ``eval_metric`` would see
    one query at a time, so a training callback scores the whole validation
    set each round, appends the value to the history, and (with ``rounds``)
    XGBoost's early stopping watches it, maximised. The callbacks are taken
    off the fitted estimator by :func:`after_fit`."""
    import xgboost  # the estimator is an XGBoost model: installed

    dval = xgboost.DMatrix(
        X_val,
        y_val,
        qid=codes_val,
        missing=estimator.missing,
        enable_categorical=estimator.enable_categorical,
    )
    callbacks = list(estimator.get_params().get("callbacks") or [])
    stopper = None
    if rounds is not None:
        stopper = xgboost.callback.EarlyStopping(
            rounds=rounds,
            metric_name=custom.name,
            data_name=XGBOOST_VALIDATION,
            maximize=custom.higher_is_better,
        )
    callbacks.append(_skirm_callback(xgboost, custom, dval, y_val, codes_val, stopper))
    estimator.set_params(early_stopping_rounds=None, callbacks=callbacks)
    return {"eval_set": [(X_val, y_val)], "eval_qid": [codes_val], "verbose": False}


def _skirm_callback(xgboost, custom, dval, y_val, codes_val, stopper):
    class SkirmMetric(xgboost.callback.TrainingCallback):
        """Appends skirm's metric on the validation set to the history,
        then asks the early stopping (``stopper``, if any) whether to stop:
        one callback, so that the stopping always sees this round's value,
        whatever order XGBoost runs its callbacks in."""

        def before_training(self, model):
            return model if stopper is None else stopper.before_training(model)

        def after_iteration(self, model, epoch, evals_log):
            value = custom.score(y_val, model.predict(dval), codes_val)
            history = evals_log.setdefault(XGBOOST_VALIDATION, {})
            history.setdefault(custom.name, []).append(value)
            if stopper is None:
                return False
            return stopper.after_iteration(model, epoch, evals_log)

        def after_training(self, model):
            return model if stopper is None else stopper.after_training(model)

    return SkirmMetric()


def after_fit(library, estimator, callbacks):
    """Put back the XGBoost estimator's own ``callbacks`` after a fit with
    skirm's metric (the fitted model keeps no reference to the validation
    set, and pickles)."""
    if library == "xgboost":
        estimator.set_params(callbacks=callbacks)


def _lightgbm_validation(estimator, X_val, y_val, codes_val, rounds, name):
    import lightgbm  # the estimator is a LightGBM model: installed

    kwargs = {"eval_group": [np.bincount(codes_val)], "eval_names": [VALIDATION]}
    if _accepts(lightgbm.LGBMRanker.fit, "eval_X"):  # 4.7 renamed eval_set
        kwargs.update(eval_X=(X_val,), eval_y=(y_val,))
    else:  # pragma: no cover - LightGBM before 4.7
        kwargs["eval_set"] = [(X_val, y_val)]
    if name is not None:
        kwargs.update(eval_metric="ndcg", eval_at=[int(name.split("@")[1])])
    if rounds is not None:
        kwargs["callbacks"] = [
            lightgbm.early_stopping(rounds, first_metric_only=True, verbose=False)
        ]
    return kwargs


def early_stopping_history(library, estimator, rounds):
    """``(history, stopping metric name, best round)`` of a fitted model.

    ``history`` maps each metric name (the library's own) to its validation
    values, one per boosting round. The best round is 0-based: the last round
    the fitted model predicts with (the best one under early stopping, else
    the last one trained).
    """
    if library == "lightgbm":
        history = estimator.evals_result_[VALIDATION]
        key = next(iter(history))  # first_metric_only: the first one stops
        best = estimator.best_iteration_ if rounds is not None else 0
    elif library == "xgboost":
        history = next(iter(estimator.evals_result().values()))
        key = list(history)[-1]  # XGBoost stops on the last metric
        best = estimator.best_iteration + 1 if rounds is not None else 0
    else:  # catboost
        history = estimator.get_evals_result()[VALIDATION]
        key = estimator.get_params().get("eval_metric")
        key = getattr(key, "name", key)  # skirm's metric: its name
        if key not in history:  # the library spells the name its own way
            key = next(iter(history))
        best = estimator.get_best_iteration() + 1 if rounds is not None else 0
    history = {
        metric: np.asarray(values, dtype=np.float64)
        for metric, values in history.items()
    }
    n_rounds = history[key].shape[0]
    best = (best or n_rounds) - 1
    return history, key, best
