"""Numbers gathered from the things that lead to a node: *the total sales of each region*,
where the sales are the order lines', and a line reaches its region through its city and
the city's state.

A base finds the nodes asked about (``?x``: the regions). A path of hops leads back from each
to the things that hold the number (``?w1`` ... ``?v``), as the agent found it on the graph
(:meth:`~nl2sparql.candidates.graph.GraphView.chains_to`). The operators aggregate the
number per ``?x`` (``GROUP BY ?x``), rank the ``?x`` by the aggregate, or keep the ``?x``
whose aggregate passes a number the question writes (``HAVING``). A star schema (facts
pointing to their dimensions) asks this of every dimension; a Freebase-style graph seldom.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from nl2sparql.candidates.candidate import Candidate
from nl2sparql.candidates.cues import Cues
from nl2sparql.candidates.hops import Hop
from nl2sparql.candidates.shapes import (
    FUNCTIONS,
    attribute_phrase,
    by_one_value,
    condition,
    direction,
    found_phrase,
    kept_rows,
    without_answer,
)
from nl2sparql.candidates.shapes import counted as counting


def _walk(base: Candidate, path: Sequence[Hop]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The base's steps and patterns, then the path's (without the base's answer line)."""
    steps = (*without_answer(base), *(hop.sentence for hop in path))
    return steps, base.patterns + tuple(p for hop in path for p in hop.patterns)


def _measured(function: str) -> tuple[str, str]:
    """The step and the SPARQL of ``function`` over ``?v`` per ``?x``: ``count`` counts the
    things a path reaches (*the airline that flies to the most airports*)."""
    if function == "count":
        return "Count ?v for each ?x, assign it to ?a.", "COUNT(DISTINCT ?v)"
    return f"Compute the {function} of ?v for each ?x, assign it to ?a.", f"{FUNCTIONS[function]}(?v)"


def per_node(base: Candidate, path: Sequence[Hop], function: str) -> Candidate:
    """Each ``?x`` with the ``function`` (sum, average, ..., count) of the numbers (or the
    things) that lead to it.

    >>> base = Candidate("lookup", ("Find the entity whose type is region, assign it to ?x.",
    ...                  "The answer is ?x."), ("?x a <http://x/Region> .",))
    >>> path = [Hop("Find the state whose region is ?x, assign it to ?w1.", ("?w1 <http://x/region> ?x .",),
    ...             "?w1", "s1"),
    ...         Hop("Find the sales of the state ?w1, assign it to ?v.", ("?w1 <http://x/sales> ?v .",), "?v", "s2")]
    >>> candidate = per_node(base, path, "sum")
    >>> candidate.steps[-2:]
    ('Compute the sum of ?v for each ?x, assign it to ?a.', 'The answer is ?x and ?a.')
    >>> candidate.head, candidate.tail
    ('SELECT ?x (SUM(?v) AS ?a)', 'GROUP BY ?x')
    """
    steps, patterns = _walk(base, path)
    sentence, measure = _measured(function)
    steps = (*steps, sentence, "The answer is ?x and ?a.")
    head = f"SELECT ?x ({measure} AS ?a)"
    return replace(
        base, shape="group", steps=steps, patterns=patterns, head=head, tail="GROUP BY ?x", hops=base.hops + len(path)
    )


def per_node_columns(base: Candidate, route: Sequence[Hop], measures: Sequence[Hop], function: str) -> Candidate:
    """Each ``?x`` with the ``function`` of several numbers gathered along one ``route``, a
    column each (*for each region, its total sales and its total profit*)."""
    steps, patterns = _walk(base, route)
    columns = []
    for number, measure in enumerate(measures, 1):
        value, column = f"?v{number}", f"?a{number}"
        computed = f"Compute the {function} of {value} for each ?x, assign it to {column}."
        steps += (measure.sentence.replace("?v", value), computed)
        patterns += tuple(p.replace("?v", value).replace("?cwv", f"?cwv{number}") for p in measure.patterns)
        columns.append((value, column))
    steps += ("The answer is " + " and ".join(["?x", *(c for _, c in columns)]) + ".",)
    head = "SELECT ?x " + " ".join(f"({FUNCTIONS[function]}({v}) AS {c})" for v, c in columns)
    return replace(base, shape="group", steps=steps, patterns=patterns, head=head, tail="GROUP BY ?x",
                   hops=base.hops + len(route) + 1)  # fmt: skip


def ranked_nodes(
    base: Candidate, path: Sequence[Hop], function: str, descending: bool, offset: int, keep: int
) -> Candidate:
    """The ``?x`` whose numbers add up to the most (or the least, or by another ``function``)."""
    steps, patterns = _walk(base, path)
    order = "descending" if descending else "ascending"
    sentence, measure = _measured(function)
    steps = (*steps, sentence, f"Rank ?x by ?a in {order} order and {kept_rows(offset, keep)}.", "The answer is ?x.")
    tail = f"GROUP BY ?x ORDER BY {'DESC' if descending else 'ASC'}({measure}) LIMIT {keep}"
    tail += f" OFFSET {offset}" if offset else ""
    return replace(base, shape="rank", steps=steps, patterns=patterns, head="SELECT ?x", tail=tail,
                   hops=base.hops + len(path))  # fmt: skip


def kept_nodes(base: Candidate, path: Sequence[Hop], function: str, op: str, number: str) -> Candidate:
    """The ``?x`` whose numbers' ``function`` compares with a number the question writes
    (*the states with total sales above 20000*)."""
    steps, patterns = _walk(base, path)
    sentence, measure = _measured(function)
    steps = (*steps, sentence, f"Make sure ?a is {op} {number}.", "The answer is ?x.")
    tail = f"GROUP BY ?x HAVING ({condition(measure, op, number)})"
    return replace(base, shape="compare", steps=steps, patterns=patterns, head="SELECT ?x", tail=tail,
                   hops=base.hops + len(path))  # fmt: skip


def kept_by_one(base: Candidate, path: Sequence[Hop], op: str, number: str) -> Candidate:
    """The ``?x`` one of whose numbers compares with a number the question writes (*which
    storms had a central pressure below 920 millibars*: any one observation of each).

    >>> base = Candidate("lookup", ("Find the entity whose type is storm, assign it to ?x.",
    ...                  "The answer is ?x."), ("?x a <http://x/Storm> .",))
    >>> path = [Hop("Find the observation whose storm is ?x, assign it to ?w1.", ("?w1 <http://x/storm> ?x .",),
    ...             "?w1", "s1"),
    ...         Hop("Find the pressure of the observation ?w1, assign it to ?v.", ("?w1 <http://x/p> ?v .",),
    ...             "?v", "s2")]
    >>> kept = kept_by_one(base, path, "less than", "920")
    >>> kept.steps[-2:], kept.patterns[-1], kept.tail
    (('Make sure ?v is less than 920.', 'The answer is ?x.'), 'FILTER(?v < 920)', '')
    """
    steps, patterns = _walk(base, path)
    steps = (*steps, f"Make sure ?v is {op} {number}.", "The answer is ?x.")
    return replace(base, shape="compare", steps=steps, patterns=(*patterns, f"FILTER({condition('?v', op, number)})"),
                   hops=base.hops + len(path))  # fmt: skip


def kept_by_none(base: Candidate, path: Sequence[Hop], op: str, number: str) -> Candidate:
    """The ``?x`` none of whose numbers compares with a number the question writes (*which
    restaurants have no item with more than 1500 calories*).

    >>> base = Candidate("lookup", ("Find the entity whose type is restaurant, assign it to ?x.",
    ...                  "The answer is ?x."), ("?x a <http://x/Restaurant> .",))
    >>> path = [Hop("Find the item whose restaurant is ?x, assign it to ?w1.", ("?w1 <http://x/r> ?x .",),
    ...             "?w1", "s1"),
    ...         Hop("Find the calories of the item ?w1, assign it to ?v.", ("?w1 <http://x/c> ?v .",), "?v", "s2")]
    >>> kept = kept_by_none(base, path, "greater than", "1500")
    >>> kept.steps[1]
    'Make sure nothing is the item whose restaurant is ?x with calories greater than 1500.'
    >>> kept.patterns[-1]
    'FILTER NOT EXISTS { ?w1 <http://x/r> ?x . ?w1 <http://x/c> ?v . FILTER(?v > 1500) }'
    """
    first, measure = found_phrase(path[0].sentence), attribute_phrase(path[-1].sentence)
    said = f"Make sure nothing is {first} with {measure} {op} {number}."
    inner = " ".join((*(p for hop in path for p in hop.patterns), f"FILTER({condition('?v', op, number)})"))
    steps = (*without_answer(base), said, "The answer is ?x.")
    patterns = (*base.patterns, f"FILTER NOT EXISTS {{ {inner} }}")
    return replace(base, shape="negation", steps=steps, patterns=patterns, hops=base.hops + len(path))


def gathered_operators(
    base: Candidate, cues: Cues, paths: Sequence[Sequence[Hop]], counted: bool = False
) -> Iterator[Candidate]:
    """Every shape the cues open on ``base`` with numbers gathered along ``paths``: a total
    unless the question names another function (*the average discount in each category*);
    with ``counted``, the paths end at things of a class the question counts, and they are
    counted (*the airline that flies to the most airports*)."""
    functions = ("count",) if counted else cues.named_functions or ("sum",)
    for path in paths:
        one_value = not counted and not cues.named_functions and by_one_value(cues, path[-1])
        # things compared by their records: by any one record unless a total is asked (*an item
        # with more than 3500 milligrams of sodium*; *total sales above 20000*)
        one_compared = not counted and not cues.named_functions and not cues.by_total
        if cues.per_group:
            for function in functions if counted else cues.aggregates or functions:
                yield per_node(base, path, function)
        if cues.ranking:
            offset, keep = cues.window or (0, 1)
            if one_value:
                most, _ = direction(cues, path[-1])  # *the fastest time*: the least of each's times
                yield ranked_nodes(base, path, "maximum" if most else "minimum", most, offset, keep)
            else:
                for function in functions:
                    yield ranked_nodes(base, path, function, not cues.least, offset, keep)
        if cues.compare and cues.count and one_compared:  # *how many storms reached a wind speed of more than 130*
            yield counting(kept_by_one(base, path, *cues.compare))
        if cues.compare and cues.negation and one_compared:  # *which restaurants have no item with more than ...*
            yield kept_by_none(base, path, *cues.compare)
        if cues.compare and cues.things:
            if one_compared:  # *a time under 2.1 hours*: any one under it
                yield kept_by_one(base, path, *cues.compare)
            else:
                for function in functions:
                    yield kept_nodes(base, path, function, *cues.compare)
    if cues.per_group and cues.columns and not counted:
        routes: dict[tuple[str, ...], list[Sequence[Hop]]] = {}
        for path in paths:
            routes.setdefault(tuple(hop.sentence for hop in path[:-1]), []).append(path)
        for same in routes.values():
            if len(same) > 1:
                for function in cues.aggregates or functions:
                    yield per_node_columns(base, same[0][:-1], [path[-1] for path in same[:3]], function)
