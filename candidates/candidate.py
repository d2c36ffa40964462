"""A candidate: one complete reading of the question over the graph, as plan sentences and
the graph patterns they are bound to.

Candidates are data (Pangu's habit): the agent makes them, the ranker scores them, the
pipeline runs the best one that answers. The patterns come from the memory bank's
statements, already bound to the graph's terms, so a candidate needs no recall; its query
is read and written by the compiler (:meth:`Candidate.query`), so no SPARQL text leaves
this package unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from nl2sparql.compiler import parse
from nl2sparql.compiler.ast import Query

#: how a plan sentence starts that finds every instance of a class
TYPED = "Find the entity whose type is "
#: such a sentence: the class's name, and the variable its instances are assigned to
TYPED_STEP = re.compile(rf"^{TYPED}(.+), assign it to (\?\w+)\.$")
#: what a candidate does with the nodes its patterns find
SHAPES: tuple[str, ...] = (
    "lookup", "count", "yes-no", "rank", "compare", "aggregate", "group", "negation", "columns", "contains",
    "difference", "share", "generated",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Anchor:
    """A grounded item a candidate starts from: an entity, a class or a literal value."""

    term: str  # as SPARQL writes it: <iri> or a literal
    name: str  # as a plan sentence names it
    kind: str  # "entity", "class", "value" or "year" (a year that dates fall in)
    score: float
    predicates: tuple[str, ...] = ()  # a value's: the predicates it is an object of
    unique: bool = False  # a value held by one node only under a name: it names that node (a title, a name)
    once: bool = False  # a value held by one node only
    asked: bool = False  # a class the question asks for (*which airports ...*): the answer's
    partial: bool = False  # an entity the question names by part of its name (*the RER*: RER A)
    follows: str = ""  # a class's: the entity whose name its word follows (*the women's division*: Women)


@dataclass(frozen=True, slots=True)
class Candidate:
    """Plan sentences (``steps``), the SPARQL they are bound to, and where they came from."""

    shape: str
    steps: tuple[str, ...]
    patterns: tuple[str, ...]
    head: str = "SELECT DISTINCT ?x"
    tail: str = ""
    anchors: tuple[str, ...] = ()
    hops: int = 1
    source: str = "graph"
    #: what the answer is, where the agent looked: "uri" (a node) or "literal" (a value)
    answer_kind: str = ""
    #: the answer is a node the question itself names (by a title or a name it holds: *how
    #: many albums has Iron Maiden released* counts no album titled *Iron Maiden*)
    names_answer: bool = False
    #: "named": the answer nodes are of a class the question names; "other": only of other
    #: classes; "record": the answers are the years or dates of nameless records of the
    #: class the question asks for (*in which midterm*: its year); "": not known (no class
    #: named, or the answers are values)
    answer_class: str = ""
    #: the datatype of the answer's values where they are typed literals (numbers, dates)
    answer_datatype: str = ""
    #: the answer nodes have no name (a record: *the award whose winner is ...*)
    answer_nameless: bool = False
    #: the answer's values are written without a letter (a time kept as the text 02:05:06, a code)
    answer_wordless: bool = False
    score: float = 0.0
    features: Mapping[str, float] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The plan as one line: what the ranker reads beside the question."""
        return " ".join(self.steps)

    def sparql(self, prefixes: Mapping[str, str]) -> str:
        """The candidate as SPARQL text (prefixed names as the bank's statements write them)."""
        header = "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in prefixes.items())
        body = " ".join(self.patterns)
        return f"{header}{self.head} WHERE {{ {body} }} {self.tail}".strip()

    def query(self, prefixes: Mapping[str, str]) -> Query:
        """The candidate read by the compiler's SPARQL reader (raises on a malformed one)."""
        query = parse(self.sparql(prefixes), "sparql11")
        assert isinstance(query, Query)
        return query

    def scored(self, score: float, **features: float) -> Candidate:
        return replace(self, score=score, features={**self.features, **features})

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "plan": list(self.steps),
            "score": round(self.score, 4),
            "source": self.source,
            "anchors": list(self.anchors),
            "features": {k: round(v, 4) for k, v in self.features.items()},
        }
