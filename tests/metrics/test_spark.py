"""The Spark recipe of the user guide, on pyspark's local mode.

skirm does not depend on Spark: the recipe repartitions the rows by query and
runs a plain function over each partition's Arrow record batches
(``mapInArrow``). The function below is the one the user guide shows. The
oracle is :func:`skirm.metrics.evaluate` on all the rows in one process.
"""

import sys

import numpy as np
import pytest

from skirm.metrics import evaluate

pa = pytest.importorskip("pyarrow")
pyspark = pytest.importorskip("pyspark")

METRICS = ("ndcg@10", "map", "mrr")

#: pyspark warns about pandas >= 3 on every Arrow call, pandas used or not.
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)


def per_query_batches(batches, metrics=METRICS):
    """Per-query skirm values of one Spark partition's Arrow record batches.

    After ``repartition("qid")`` a partition holds whole queries, possibly
    spread over several batches: gather them, then evaluate once.
    """
    import pyarrow as pa

    from skirm.metrics import evaluate

    table = pa.Table.from_batches(list(batches))
    if table.num_rows == 0:
        return
    result = evaluate(
        table["label"].to_numpy(),
        table["score"].to_numpy(),
        groups=table["qid"].to_numpy(),
        metrics=metrics,
    )
    columns = {"qid": result.group_ids}
    for name, values in result.per_query.items():
        columns[name.replace("@", "_at_")] = values  # Spark column names
    yield pa.RecordBatch.from_pydict(columns)


@pytest.fixture(scope="module")
def spark():
    from pyspark import cloudpickle
    from pyspark.sql import SparkSession

    patch = pytest.MonkeyPatch()
    patch.setenv("PYSPARK_PYTHON", sys.executable)  # workers: this interpreter
    # The recipe's function travels by value: pickled by reference, it names
    # this test module as pytest imported it, which a worker cannot import
    # (seen with pyspark 4.3.0).
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    session = (
        SparkSession.builder.master("local[2]")
        .appName("skirm-recipe")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "50")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    patch.undo()


@pytest.mark.oracle
@pytest.mark.slow
def test_spark_recipe_equals_one_process(spark):
    from pyspark.sql import functions as F

    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 40, size=80)
    qid = np.repeat(np.arange(80, dtype=np.int64) * 7, sizes)
    label = rng.integers(0, 4, size=qid.shape[0]).astype(np.float64)
    score = rng.integers(0, 6, size=qid.shape[0]).astype(np.float64)  # ties
    perm = rng.permutation(qid.shape[0])
    rows = spark.createDataFrame(
        [
            (int(q), float(y), float(s))
            for q, y, s in zip(qid[perm], label[perm], score[perm], strict=True)
        ],
        "qid long, label double, score double",
    )
    schema = "qid long, ndcg_at_10 double, map double, mrr double"
    per_query = rows.repartition(8, "qid").mapInArrow(per_query_batches, schema)
    means = per_query.agg(
        *(F.avg(c).alias(c) for c in ("ndcg_at_10", "map", "mrr"))
    ).first()
    values = per_query.orderBy("qid").collect()

    expected = evaluate(label, score, groups=qid, metrics=METRICS)
    np.testing.assert_array_equal([r["qid"] for r in values], expected.group_ids)
    for name in METRICS:
        column = name.replace("@", "_at_")
        np.testing.assert_allclose(
            [r[column] for r in values], expected.per_query[name], rtol=1e-12
        )
        assert means[column] == pytest.approx(expected[name], rel=1e-12)
