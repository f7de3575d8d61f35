"""Builders shared by the tests of the readers and their tokens."""

import numpy as np
import pytest


@pytest.fixture
def token_column():
    """``token_column(texts, rng)``: the tokens of ``texts`` read as a reader
    reads them, offsets into a buffer where other bytes surround each one."""
    from skirm.io._tokens import PAD, Tokens

    def build(texts, rng):
        data, start, end = b"", [], []
        for text in texts:
            data += bytes(rng.integers(1, 255, size=int(rng.integers(0, 4))).tolist())
            start.append(len(data))
            data += text.encode("utf-8", "surrogateescape")
            end.append(len(data))
        buf = np.frombuffer(data + b"\0" * PAD, dtype=np.uint8)
        return Tokens(buf, np.array(start), np.array(end))

    return build
