"""load_svmlight_ranking on the LETOR MQ2008 and LightGBM lambdarank files."""

import gzip
import io
import re

import numpy as np
import pytest
from sklearn.utils import Bunch

from skirm.datasets import load_svmlight_ranking


def _qids_and_docids(path):
    """An independent line-by-line parse of the qid and docid of each row."""
    qids, docids = [], []
    for line in path.read_text().splitlines():
        if not line.split("#", 1)[0].strip():
            continue
        qids.append(int(re.search(r"qid:(\d+)", line).group(1)))
        docids.append(line.split("docid = ", 1)[1].split()[0])
    return np.array(qids), np.array(docids)


@pytest.mark.parametrize(
    "name, n_rows, n_queries", [("test.txt", 2874, 156), ("vali.txt", 2707, 157)]
)
def test_mq2008(shared_data, name, n_rows, n_queries):
    path = shared_data / "mq2008" / name
    data = load_svmlight_ranking(path)
    assert isinstance(data, Bunch)
    assert data.data.shape == (n_rows, 46)
    assert data.target.shape == data.groups.shape == data.doc_ids.shape == (n_rows,)
    assert np.unique(data.groups).shape[0] == n_queries
    qids, docids = _qids_and_docids(path)
    np.testing.assert_array_equal(data.groups, qids)
    np.testing.assert_array_equal(data.doc_ids.astype(str), docids)
    assert set(np.unique(data.target)) == {0.0, 1.0, 2.0}


def test_mq2008_label_counts_and_first_row(shared_data):
    data = load_svmlight_ranking(shared_data / "mq2008" / "test.txt")
    assert np.bincount(data.target.astype(int)).tolist() == [2319, 378, 177]
    # The first row of the file: feature 1 (column 0) is 0.052893, feature 46
    # (column 45) is 0.966667.
    first = data.data[0].toarray().ravel()
    assert first[0] == pytest.approx(0.052893)
    assert first[45] == pytest.approx(0.966667)
    assert data.doc_ids[0] == "GX004-93-7097963"


def test_return_X_y(shared_data):
    path = shared_data / "mq2008" / "test.txt"
    X, y, groups = load_svmlight_ranking(path, return_X_y=True)
    data = load_svmlight_ranking(path)
    assert (X != data.data).nnz == 0
    np.testing.assert_array_equal(y, data.target)
    np.testing.assert_array_equal(groups, data.groups)


def test_gzip_and_open_file(shared_data, tmp_path):
    path = shared_data / "mq2008" / "vali.txt"
    expected = load_svmlight_ranking(path)
    gz = tmp_path / "vali.txt.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    for source in (gz, str(gz)):
        data = load_svmlight_ranking(source)
        np.testing.assert_array_equal(data.groups, expected.groups)
        np.testing.assert_array_equal(data.doc_ids, expected.doc_ids)
    with open(path, "rb") as handle:
        data = load_svmlight_ranking(handle)
    np.testing.assert_array_equal(data.target, expected.target)


def _lightgbm_sizes(path):
    return [int(line) for line in path.read_text().split()]


@pytest.mark.parametrize("name, n_rows", [("rank.train", 3005), ("rank.test", 768)])
def test_lightgbm_query_file_auto(shared_data, name, n_rows):
    path = shared_data / "lightgbm-lambdarank" / name
    data = load_svmlight_ranking(path, n_features=300)
    assert data.data.shape == (n_rows, 300)
    assert data.doc_ids is None
    sizes = _lightgbm_sizes(path.with_name(name + ".query"))
    _, counts = np.unique(data.groups, return_counts=True)
    assert counts.tolist() == sizes
    # Groups are numbered in row order and contiguous.
    assert (np.diff(data.groups) >= 0).all()
    assert set(np.unique(data.target)) <= {0.0, 1.0, 2.0, 3.0, 4.0}


def test_lightgbm_explicit_query_file(shared_data):
    folder = shared_data / "lightgbm-lambdarank"
    auto = load_svmlight_ranking(folder / "rank.test")
    with (
        open(folder / "rank.test", "rb") as rows,
        open(folder / "rank.test.query", "rb") as sizes,
    ):
        explicit = load_svmlight_ranking(rows, query_file=sizes)
    np.testing.assert_array_equal(auto.groups, explicit.groups)


@pytest.mark.oracle
def test_lightgbm_reads_the_same_groups_and_labels(shared_data):
    import lightgbm

    path = shared_data / "lightgbm-lambdarank" / "rank.train"
    dataset = lightgbm.Dataset(str(path), params={"verbose": -1}).construct()
    data = load_svmlight_ranking(path)
    np.testing.assert_array_equal(data.target, dataset.get_label())
    _, counts = np.unique(data.groups, return_counts=True)
    np.testing.assert_array_equal(counts, dataset.get_group())


def test_no_queries_raises(shared_data):
    path = shared_data / "lightgbm-lambdarank" / "rank.train"
    with pytest.raises(ValueError, match="no 'qid:' and no `query_file`"):
        load_svmlight_ranking(path, query_file=None)


def test_query_file_with_qid_raises(shared_data):
    with pytest.raises(ValueError, match="`query_file` must be None or 'auto'"):
        load_svmlight_ranking(
            shared_data / "mq2008" / "test.txt",
            query_file=io.BytesIO(b"2874\n"),
        )


def test_query_sizes_must_add_up():
    rows = io.BytesIO(b"1 1:1\n0 1:2\n1 1:3\n")
    with pytest.raises(ValueError, match="sum to 2 but the data file has 3 rows"):
        load_svmlight_ranking(rows, query_file=io.BytesIO(b"1\n1\n"))


@pytest.mark.parametrize("bad", [b"2\nx\n", b"2\n0\n", b"2\n-1\n"])
def test_bad_query_size_names_the_line(bad):
    rows = io.BytesIO(b"1 1:1\n0 1:2\n1 1:3\n")
    with pytest.raises(ValueError, match=r":2: expected a positive integer group"):
        load_svmlight_ranking(rows, query_file=io.BytesIO(bad))


def test_comments_and_blank_lines_are_not_rows():
    text = b"# header\n\n2 qid:1 1:1 # docid = a\n  \n0 qid:1 1:2 #docid=b\n"
    data = load_svmlight_ranking(io.BytesIO(text))
    assert data.target.tolist() == [2.0, 0.0]
    assert data.doc_ids.tolist() == ["a", "b"]


def test_docids_on_some_rows_only_raise():
    text = b"2 qid:1 1:1 # docid = a\n0 qid:1 1:2\n"
    with pytest.raises(ValueError, match=r"row 2 .* has none"):
        load_svmlight_ranking(io.BytesIO(text))


def test_malformed_row_names_the_file():
    with pytest.raises(ValueError, match="<f>: not a valid SVMlight file"):
        load_svmlight_ranking(io.BytesIO(b"1 qid:1 1:abc\n"))


def test_empty_file_raises():
    with pytest.raises(ValueError, match="holds no data rows"):
        load_svmlight_ranking(io.BytesIO(b"# only a comment\n"))


def test_missing_file_and_bad_types(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_svmlight_ranking(tmp_path / "missing.txt")
    with pytest.raises(TypeError, match="`f` must be a path or a file"):
        load_svmlight_ranking(42)
    with pytest.raises(TypeError, match="`return_X_y` must be True or False"):
        load_svmlight_ranking(io.BytesIO(b"1 qid:1 1:1\n"), return_X_y="yes")


def test_text_file_object():
    data = load_svmlight_ranking(io.StringIO("1 qid:7 1:1\n0 qid:7 1:0\n"))
    assert data.groups.tolist() == [7, 7]
