"""The agent's view of the graph: which edges a node has, a few of the nodes a pattern
reaches, whether a pattern reaches anything. Every look is one bounded query with the
store's timeout, cached for the question; a store error is an empty answer, never a
failure of the question (the generator's plans still stand).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from nl2sparql.candidates.hops import Edge
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.terms import Term

#: the most distinct predicates read around one node, and the most nodes sampled from a pattern
EDGE_LIMIT = 400
SAMPLE_LIMIT = 5
#: how many of the nodes a pattern reaches are looked at for the edges only some of them have
SPREAD = 1000
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


class GraphView:
    """Bounded looks at one store for one question (not shared between questions)."""

    def __init__(self, store: Any, timeout: float = 2.0, budget: int = 400, seconds: float = 10.0) -> None:
        self.store = store
        self.timeout = timeout
        self.budget = budget  # queries left for this question
        self.deadline = time.monotonic() + seconds  # and the time: a slow endpoint stops the search, not the question
        self._edges: dict[str, frozenset[Edge]] = {}
        self._asked: dict[str, bool] = {}
        self._sampled: dict[str, list[Term]] = {}

    def _select(self, query: str) -> list[dict[str, Term]]:
        left = self.deadline - time.monotonic()
        if self.budget <= 0 or left <= 0:
            return []
        self.budget -= 1
        try:
            return list(self.store.select(query, timeout=min(self.timeout, left)).rows)
        except (Nl2SparqlError, TimeoutError, OSError, ValueError):
            return []

    def edges(self, term: str) -> frozenset[Edge]:
        """The predicates around ``term`` (an ``<iri>`` or a literal), each with its direction."""
        if term not in self._edges:
            found = set()
            if term.startswith("<"):
                rows = self._select(f"SELECT DISTINCT ?p WHERE {{ {term} ?p ?o }} LIMIT {EDGE_LIMIT}")
                found |= {Edge(r["p"].value, "out") for r in rows if "p" in r}
            rows = self._select(f"SELECT DISTINCT ?p WHERE {{ ?s ?p {term} }} LIMIT {EDGE_LIMIT}")
            found |= {Edge(r["p"].value, "in") for r in rows if "p" in r}
            self._edges[term] = frozenset(found)
        return self._edges[term]

    def sample(self, patterns: Sequence[str], var: str, limit: int = SAMPLE_LIMIT) -> list[Term]:
        """Up to ``limit`` values of ``var`` that ``patterns`` reach (asked once a question)."""
        query = f"SELECT DISTINCT {var} WHERE {{ {' '.join(patterns)} }} LIMIT {limit}"
        if query not in self._sampled:
            self._sampled[query] = [row[var[1:]] for row in self._select(query) if var[1:] in row]
        return self._sampled[query]

    def reaches(self, patterns: Sequence[str]) -> bool:
        """Whether ``patterns`` match anything at all."""
        key = " ".join(patterns)
        if key not in self._asked:
            self._asked[key] = bool(self._select(f"SELECT * WHERE {{ {key} }} LIMIT 1"))
        return self._asked[key]

    def chains_to(self, start: Sequence[str], measures: Sequence[str], depth: int) -> list[tuple[str, ...]]:
        """How nodes holding a number under one of ``measures`` lead to a node ``start`` binds
        ``?x`` to (patterns) by ``depth`` edges, each pointing toward it (an order line sold
        in a city in a state of the region): ``(measure, p1, ..., p_depth)``, ``p1`` the edge
        that reaches ``?x``; no ``rdf:type`` edge on the way."""
        chain = " ".join(f"?w{i} ?p{i} {'?w' + str(i - 1) if i > 1 else '?x'} ." for i in range(1, depth + 1))
        typeless = " && ".join(f"?p{i} != <{RDF_TYPE}>" for i in range(1, depth + 1))
        heads = " ".join(f"?p{i}" for i in range(1, depth + 1))
        values = " ".join(f"<{m}>" for m in measures)
        query = (f"SELECT DISTINCT ?P {heads} WHERE {{ {' '.join(start)} VALUES ?P {{ {values} }} {chain} "
                 f"?w{depth} ?P ?v . FILTER(isNumeric(?v) && {typeless}) }} LIMIT {SAMPLE_LIMIT}")  # fmt: skip
        rows = self._select(query)
        return [tuple(row[k].value for k in ("P", *heads.replace("?", "").split())) for row in rows]

    def chains_to_class(self, start: Sequence[str], cls: str, directions: Sequence[str]) -> list[tuple[str, ...]]:
        """The predicates of paths from the nodes ``start`` binds ``?x`` to (patterns) to
        things of class ``cls``, each edge taken in its direction (``"in"``: pointing toward
        the node before it, ``"out"``: away from it), as many edges as ``directions``; no
        ``rdf:type`` edge."""
        parts, before = [], "?x"
        for i, direction in enumerate(directions, 1):
            parts.append(f"?w{i} ?p{i} {before} ." if direction == "in" else f"{before} ?p{i} ?w{i} .")
            before = f"?w{i}"
        heads = [f"?p{i}" for i in range(1, len(directions) + 1)]
        typeless = " && ".join(f"{head} != <{RDF_TYPE}>" for head in heads)
        path = " ".join((*start, *parts, f"{before} <{RDF_TYPE}> <{cls}> ."))
        where = f"{path} FILTER({typeless} && {before} != ?x)"
        query = f"SELECT DISTINCT {' '.join(heads)} WHERE {{ {where} }} LIMIT {SAMPLE_LIMIT}"
        return [tuple(row[h[1:]].value for h in heads) for row in self._select(query)]

    def edges_of_all(self, patterns: Sequence[str], var: str, nodes: int = 0) -> frozenset[Edge]:
        """The predicates leaving any node ``patterns`` bind ``var`` to (a class's instances:
        the edges only some of them have too); with ``nodes``, any of that many of them."""
        query = f"SELECT DISTINCT ?p WHERE {{ {distinct_nodes(patterns, var, nodes)} {var} ?p ?o }} LIMIT {EDGE_LIMIT}"
        return self._predicates(query, "out")

    def edges_into_all(self, patterns: Sequence[str], var: str) -> frozenset[Edge]:
        """The predicates that reach any node ``patterns`` bind ``var`` to, from a node
        (a class's instances: a role only some of them have, *runner-up*)."""
        where = f"{distinct_nodes(patterns, var, 0)} ?s ?p {var} . FILTER(isIRI(?s))"
        query = f"SELECT DISTINCT ?p WHERE {{ {where} }} LIMIT {EDGE_LIMIT}"
        return self._predicates(query, "in")

    def _predicates(self, query: str, direction: str) -> frozenset[Edge]:
        """The ``?p`` a query finds, as edges in ``direction`` (asked once a question)."""
        if query not in self._edges:
            self._edges[query] = frozenset(Edge(row["p"].value, direction) for row in self._select(query) if "p" in row)
        return self._edges[query]


def distinct_nodes(patterns: Sequence[str], var: str, limit: int = 0) -> str:
    """The nodes the patterns bind ``var`` to, each once, as a subquery (the class of every
    breach is one node, not a thousand rows to join on); with ``limit``, that many of them.

    >>> distinct_nodes(["?x a <C> ."], "?x", 0), distinct_nodes(["?x a <C> ."], "?x", 9)
    ('{ SELECT DISTINCT ?x WHERE { ?x a <C> . } }', '{ SELECT DISTINCT ?x WHERE { ?x a <C> . } LIMIT 9 }')
    """
    body = " ".join(patterns)
    return f"{{ SELECT DISTINCT {var} WHERE {{ {body} }}{f' LIMIT {limit}' if limit else ''} }}"
