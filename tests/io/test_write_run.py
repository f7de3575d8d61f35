"""write_run: the text it writes to paths, gzip paths and open files, and the
arguments it refuses."""

import gzip
import io
import os
import subprocess
import sys

import numpy as np
import pytest

import skirm
from skirm.io import read_run, write_run

IDS = (["q1", "q1", "q2"], ["dé", "d2", "d7"], [0.2, 0.9, 0.5])
TEXT = "q1 Q0 d2 1 0.9 skirm\nq1 Q0 dé 2 0.2 skirm\nq2 Q0 d7 1 0.5 skirm\n"


def test_write_run_to_a_path_writes_utf8_text(tmp_path):
    path = tmp_path / "run.txt"
    write_run(path, *IDS)
    assert path.read_bytes() == TEXT.encode("utf-8")
    write_run(str(path), *IDS, run_id="again")
    assert path.read_bytes() == TEXT.replace("skirm", "again").encode("utf-8")


def test_write_run_to_a_gz_path_compresses(tmp_path):
    path = tmp_path / "run.gz"
    write_run(path, *IDS)
    assert gzip.decompress(path.read_bytes()) == TEXT.encode("utf-8")


@pytest.mark.parametrize("name", ["run.txt", "run.gz"])
def test_write_run_writes_utf8_whatever_the_locale(tmp_path, name):
    """An ASCII locale (no UTF-8 mode) still gets UTF-8 files."""
    path = tmp_path / name
    code = (
        "import sys; from skirm.io import write_run; "
        "write_run(sys.argv[1], ['q1', 'q1', 'q2'], ['d\\u00e9', 'd2', 'd7'], "
        "[0.2, 0.9, 0.5])"
    )
    env = {**os.environ, "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    subprocess.run([sys.executable, "-c", code, str(path)], env=env, check=True)
    data = path.read_bytes()
    assert (gzip.decompress(data) if name.endswith(".gz") else data) == TEXT.encode()


def test_write_run_to_any_object_with_write():
    class Sink:
        def __init__(self):
            self.parts = []

        def write(self, text):
            self.parts.append(text)

    sink = Sink()
    write_run(sink, *IDS)
    assert "".join(sink.parts) == TEXT


def test_write_run_of_no_row_writes_nothing():
    out = io.StringIO()
    write_run(out, [], [], [])
    assert out.getvalue() == ""


def test_write_run_max_docs_of_one_keeps_each_query_top():
    out = io.StringIO()
    write_run(out, *IDS, max_docs=1)
    assert out.getvalue() == "q1 Q0 d2 1 0.9 skirm\nq2 Q0 d7 1 0.5 skirm\n"


@pytest.mark.parametrize("max_docs", [True, 2.5, "3", 0, -1])
def test_write_run_refuses_a_max_docs_that_is_not_a_positive_integer(max_docs):
    shown = f"{max_docs!r} ({type(max_docs).__name__})"
    message = f"`max_docs` must be a positive integer or None, got {shown}"
    with pytest.raises(skirm.InvalidParameterError) as error:
        write_run(io.StringIO(), *IDS, max_docs=max_docs)
    assert str(error.value) == message


@pytest.mark.parametrize("run_id", [3, "", "my run"])
def test_write_run_refuses_a_run_id_that_is_not_a_word(run_id):
    shown = f"{run_id!r} ({type(run_id).__name__})"
    with pytest.raises(skirm.InvalidParameterError) as error:
        write_run(io.StringIO(), *IDS, run_id=run_id)
    assert str(error.value) == f"`run_id` must be a non-empty word, got {shown}"


def test_regression_an_empty_id_is_shown_as_a_python_string():
    # The message showed it as numpy 2 spells a scalar: got np.str_('')
    with pytest.raises(ValueError) as error:
        write_run(io.StringIO(), ["q", "q", "q"], ["ab", "", "c"], [1.0, 2.0, 3.0])
    assert str(error.value) == (
        "`doc_ids` must be non-empty strings without whitespace, got ''"
    )


@pytest.mark.parametrize("doc", [" a", "a b", "a\t", "\na", "a\rb"])
def test_write_run_refuses_ids_with_whitespace_anywhere(doc):
    # the message shows the first offending id (before, it showed none)
    with pytest.raises(ValueError) as error:
        write_run(io.StringIO(), ["q", "q", "q"], ["d", doc, "x y"], [1.0, 2.0, 3.0])
    assert str(error.value) == (
        f"`doc_ids` must be non-empty strings without whitespace, got {doc!r}"
    )
    with pytest.raises(ValueError) as error:
        write_run(io.StringIO(), ["q", doc], ["d", "e"], [1.0, 2.0])
    assert str(error.value) == (
        f"`query_ids` must be non-empty strings without whitespace, got {doc!r}"
    )


def test_write_run_keeps_ids_with_letters_and_punctuation():
    out = io.StringIO()
    write_run(out, ["QX"], ["XX-doc.1#2"], [np.float64(1.5)])
    assert out.getvalue() == "QX Q0 XX-doc.1#2 1 1.5 skirm\n"
    assert read_run(io.StringIO(out.getvalue())).doc_ids.tolist() == ["XX-doc.1#2"]


def test_write_run_refuses_what_is_not_a_file():
    with pytest.raises(skirm.InvalidParameterError) as error:
        write_run(3, *IDS)
    assert str(error.value) == "`file` must be a path or an open text file, got 3 (int)"
