"""Figures (``--plot``): drawn with :mod:`skirm.plot` on matplotlib's Agg canvas."""

from __future__ import annotations

import contextlib
import os

from skirm._cli._usage import UsageError
from skirm._measures._table import NDCG


def check_plot(path):
    """Fail before any work when ``--plot`` is given without matplotlib."""
    if path is None:
        return
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(
            "--plot needs matplotlib; install it with `pip install skirm[plot]`"
        ) from None


def _figure(n_panels):
    """A figure of ``n_panels`` side by side on the Agg canvas (no pyplot
    window, no global backend change)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.0 * n_panels, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, n_panels, squeeze=False)[0]
    return figure, axes


def plot_eval(path, qrels, runs, labels, params):
    from skirm.plot import MetricAtKDisplay, PrecisionRecallDisplay

    figure, (left, right) = _figure(2)
    for run, label in zip(runs, labels, strict=True):
        MetricAtKDisplay.from_run(
            qrels,
            run,
            metric=NDCG.name,
            k=range(1, 101),
            name=label,
            ax=left,
            run_params=params,
        )
        PrecisionRecallDisplay.from_run(
            qrels, run, name=label, ax=right, run_params=params
        )
    save_whole(figure, path)


def plot_compare(path, comparison):
    from skirm.plot import ComparisonDisplay

    figure, axes = _figure(len(comparison.metrics))
    for metric, ax in zip(comparison.metrics, axes, strict=True):
        ComparisonDisplay.from_comparison(comparison, metric=metric, ax=ax)
    save_whole(figure, path)


def save_whole(figure, path):
    """``figure.savefig(path)``, whole or not at all: drawn to a temporary
    file beside ``path`` (the same extension, so the same format), renamed
    over it once written. An error or an interrupt leaves no partial file,
    and an existing ``path`` as it was."""
    import tempfile  # here: a run without a figure never loads it

    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1]
    fd, temporary = tempfile.mkstemp(prefix=".skirm-", suffix=suffix, dir=directory)
    os.close(fd)
    try:
        figure.savefig(temporary)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as a file opened for writing
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
