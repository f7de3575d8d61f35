"""Ids of several shapes, for the differential tests of token columns:
each shape varies one dimension (lengths across word boundaries, past the
128-byte head, Unicode, bytes that are not UTF-8, prefixes and the empty
id)."""

from __future__ import annotations

import numpy as np


def id_values(rng, dimension, n_distinct):
    """``n_distinct`` distinct ids of one shape."""
    if dimension == "short":
        return [f"q{i}" for i in range(n_distinct)]
    if dimension == "word_boundaries":  # 7, 8, 9, 15, 16, 17 bytes
        widths = rng.choice([7, 8, 9, 15, 16, 17], n_distinct)
        return [f"{i:0{w}d}" for i, w in zip(range(n_distinct), widths, strict=True)]
    if dimension == "long":  # past the 128-byte head
        return [f"{'x' * 130}-{i}" for i in range(n_distinct)]
    if dimension == "unicode":
        return [f"é{i}ü" if i % 2 else f"{i}" for i in range(n_distinct)]
    if dimension == "latin1":  # bytes that are not UTF-8: lone surrogates
        return [f"d\udce9{i}" for i in range(n_distinct)]
    if dimension == "prefixes":  # ids that begin others, and the empty id
        return ["", *[("a" * (i % 9)) + str(i // 9) for i in range(n_distinct - 1)]]
    raise ValueError(dimension)


DIMENSIONS = ["short", "word_boundaries", "long", "unicode", "latin1", "prefixes"]


def id_column(rng, dimension, run):
    """A column of ids of one shape in runs of equal ones (1 to ``run``
    each), as a list of str."""
    values = id_values(rng, dimension, int(rng.integers(1, 30)))
    picks = rng.integers(0, len(values), int(rng.integers(1, 80)))
    sizes = rng.integers(1, run + 1, picks.size)
    return [values[i] for i in np.repeat(picks, sizes)]


def fake_hash(monkeypatch, hash_of):
    """``Tokens.hash`` made ``hash_of(tokens)``, to force collisions. Such a
    hash may collide on tokens of any length, so the exactness of the real
    hash on short tokens (``EXACT_BYTES``) is switched off with it."""
    import skirm.io._hashed_codes as hashed_codes_module
    from skirm.io._tokens import Tokens

    monkeypatch.setattr(Tokens, "hash", lambda self, cache=True: hash_of(self))
    monkeypatch.setattr(hashed_codes_module, "EXACT_BYTES", 0)
