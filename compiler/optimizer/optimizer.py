"""The optimiser pipeline: a plain tuple of passes, run in order.

Each pass is one function in its own module (``propagate_constants.py`` ->
``propagate_constants(query)``) that returns a query with the same answers. A pass
that needs more than the query names it as a keyword parameter (``stats``);
:func:`optimize` hands over only the keywords a pass declares.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nl2sparql.compiler.ast import Query
from nl2sparql.compiler.optimizer.order_by_selectivity import order_by_selectivity
from nl2sparql.compiler.optimizer.propagate_constants import propagate_constants
from nl2sparql.compiler.optimizer.push_down_filters import push_down_filters
from nl2sparql.compiler.optimizer.remove_duplicate_patterns import remove_duplicate_patterns
from nl2sparql.compiler.optimizer.remove_duplicate_unions import remove_duplicate_unions
from nl2sparql.compiler.optimizer.unnest_groups import unnest_groups

Rule = Callable[..., Query]

RULES: tuple[Rule, ...] = (
    remove_duplicate_unions,
    unnest_groups,
    remove_duplicate_patterns,
    propagate_constants,
    push_down_filters,
    order_by_selectivity,
)

_PARAMETERS: dict[Rule, frozenset[str]] = {}


def _accepts(rule: Rule) -> frozenset[str]:
    names = _PARAMETERS.get(rule)
    if names is None:
        names = frozenset(list(inspect.signature(rule).parameters)[1:])
        _PARAMETERS[rule] = names
    return names


def optimize(
    query: Query, stats: Mapping[str, int] | None = None, rules: Sequence[Rule] = RULES, **kwargs: Any
) -> Query:
    """Run ``rules`` over ``query``; ``stats`` (predicate IRI -> triple count) guides ordering.

    >>> from nl2sparql.compiler import parse
    >>> q = parse('''SELECT DISTINCT ?x WHERE { ?x <http://ex/g> ?g . ?x <http://ex/g> ?g .
    ...                                         FILTER(?g = <http://ex/male>) }''')
    >>> print(optimize(q).where)
    {
      ?x <http://ex/g> <http://ex/male> .
    }
    """
    options = {"stats": stats, **kwargs}
    for rule in rules:
        accepted = _accepts(rule)
        query = rule(query, **{k: v for k, v in options.items() if k in accepted})
    return query
