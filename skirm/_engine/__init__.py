"""The ranking engine: validate once, sort once, reduce per query.

Every metric in skirm is computed in three steps: put each query's rows in
rank order, look at the labels in that order, reduce per query. This package
does the first step, once, and offers the per-query reductions the metrics
share. It is vectorised numpy throughout: no Python loop over queries.

Its door has two verbs: :func:`check_input` validates the public arguments
once (rows, or ranked lists already ranked) and :func:`rank` sorts what it
returns into a :class:`Ranking`; :func:`map_query_blocks` ranks large inputs
block by block instead. The TREC join, whose rows come from files and are
already checked, enters by the side door :func:`rank_order` (sort) and
:func:`ranking_of` (with its labels).

Its modules follow the stages of the work, each importing only earlier ones:

==================  =========================================================
``_runs``           query labels checked; where each run of equal labels
                    starts (grouping)
``_encode``         query ids to dense codes; where each query's rows start
``_reduce``         sums by query, padded-line sums, discount tables
``_ideal``          the ideal ordering of each query's labels and its DCG
``_ranking``        the :class:`Ranking`: rows in rank order, tie blocks,
                    relevance, the ideal ordering
``_threads``        tasks shared out to threads, the calling one among them;
                    blocks made one at a time, mapped in order
                    (:func:`share_blocks`)
``_check``          checks of rows: :class:`CheckedInput`
``_counted``        ranks of a few rows of each query counted, or searched
                    among sorted rows, without a sort of every row
``_rank``           the grouped sort and the tie policies: :func:`rank`,
                    :func:`rank_order`, :func:`ranking_of`; :func:`relabel`
``_blocks``         blocks of whole queries, in threads: :func:`map_query_blocks`
``_lists``          ranked id lists matched to relevant sets: :func:`from_lists`
``_lists_html``     the HTML view of ranked lists
``_input``          the door for public arguments: :func:`check_input`
==================  =========================================================

Higher layers import from this package, never from its modules.
"""

from skirm._engine._blocks import in_appearance_order, map_query_blocks
from skirm._engine._check import CheckedInput
from skirm._engine._counted import (
    count_scores,
    ranges,
    scored_rows,
    search_descending,
    starts_of,
)
from skirm._engine._encode import encode_grouped, encode_groups
from skirm._engine._ideal import running_sums
from skirm._engine._input import check_input
from skirm._engine._list_ids import id_array
from skirm._engine._lists import RankedLists, flatten_lists, from_lists
from skirm._engine._rank import rank, rank_order, ranking_of, relabel
from skirm._engine._ranking import Ranking
from skirm._engine._ranking_parts import Judgments, Rows
from skirm._engine._reduce import (
    at_cutoffs,
    prefix_lines,
    prefix_sums,
    safe_divide,
    segment_cumsum,
    sum_by,
)
from skirm._engine._runs import check_groups
from skirm._engine._threads import share_blocks, side_by_side
from skirm.io._keys import dense_codes, packed_key, stable_code_sort

__all__ = [
    "CheckedInput",
    "Judgments",
    "RankedLists",
    "Ranking",
    "Rows",
    "at_cutoffs",
    "check_groups",
    "check_input",
    "count_scores",
    "dense_codes",
    "encode_grouped",
    "encode_groups",
    "flatten_lists",
    "from_lists",
    "id_array",
    "in_appearance_order",
    "map_query_blocks",
    "packed_key",
    "prefix_lines",
    "prefix_sums",
    "ranges",
    "rank",
    "rank_order",
    "ranking_of",
    "relabel",
    "running_sums",
    "safe_divide",
    "scored_rows",
    "search_descending",
    "segment_cumsum",
    "share_blocks",
    "side_by_side",
    "stable_code_sort",
    "starts_of",
    "sum_by",
]
