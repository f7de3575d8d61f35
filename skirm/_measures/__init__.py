"""The measures: one table, its grammars, its options' rules.

Every measure skirm knows is one row of :mod:`._table`, with its spellings
in each grammar (skirm's, trec_eval's, ir_measures', ndeval's), its
options, the tool whose definition it follows and what computes it. The
name grammars (:mod:`._grammar`) and the rules of the options
(:mod:`._options`) read it; so do the metric registry, the TREC evaluation,
the command line and the documentation's tables. This package computes
nothing: the kernels live with the engines that run them
(:mod:`skirm.metrics`, :mod:`skirm.trec`).
"""
