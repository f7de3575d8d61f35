"""Builders shared by the tests of the TREC evaluation."""

import numpy as np
import pytest


@pytest.fixture
def assert_same():
    """``assert_same(a, b)``: two evaluations with the same queries,
    measures, run id and means, and per-query values with the same bits (no
    sum carries rounding from other queries)."""

    def check(a, b):
        assert a.group_ids.tolist() == b.group_ids.tolist()
        assert list(a.per_query) == list(b.per_query)
        for name in a.per_query:
            got, want = a.per_query[name], b.per_query[name]
            assert got.dtype == want.dtype, name
            if got.dtype.kind == "U":  # relstring
                assert got.tolist() == want.tolist(), name
                continue
            np.testing.assert_array_equal(got, want, name)
        assert list(a.means) == list(b.means)
        for name, want in b.means.items():  # NaN equals NaN, as above
            got = a.means[name]
            assert got == want or (got != got and want != want), name
        assert a.run_id == b.run_id

    return check
