"""Hops: a memory statement bound to a start node, as a plan sentence and graph patterns.

A statement (``?e2 is the member of the band ?e1`` over ``?e1 schema:hasMember ?e2 .``)
applies to a node when the node has the predicate the statement's first triple leaves
``?e1`` by, in that direction. Binding it writes the sentence (``Find the member of the
band Queen, assign it to ?x.``) and the patterns (``<...Queen> schema:hasMember ?x .``).
A literal value becomes a start the other way round: ``the band whose nickname is "The
Stones"`` from the statement that reads a band's nickname.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nl2sparql.compiler.assemble import STATEMENT_PREFIXES
from nl2sparql.memory_bank.statement import Statement

_SLOT = re.compile(r"\?(e[1-9]|cvt)\b")
_OF = re.compile(r"^the (.+?) of (?:(the .+?) )?\?e1$")
_TRIPLE_END = re.compile(r"\s\.(?:\s+|$)")


@dataclass(frozen=True, slots=True)
class Edge:
    """How a statement leaves its input ``?e1``: by ``predicate``, ``out`` (subject) or ``in``."""

    predicate: str
    direction: str


@dataclass(frozen=True, slots=True)
class Hop:
    """A statement bound to its start: the sentence and the patterns, ending at ``target``."""

    sentence: str
    patterns: tuple[str, ...]
    target: str
    statement_id: str
    dated: bool = False  # its values are dates (compared by year when the question writes one)
    flag: bool = False  # its values are true or false (a yes/no attribute: *won the division*)
    via: str = "?x"  # the node it starts from: ``?x``, or a node on the way to it (``?m``)


def _triples(statement: Statement) -> list[tuple[str, str, str]]:
    """``(subject, predicate, object)`` of a statement's SPARQL, read by whitespace: statements
    are written by the bank's builder, one plain triple at a time (the FB bank holds 77k)."""
    found = []
    for triple in _TRIPLE_END.split(statement.sparql):
        parts = triple.split()
        if len(parts) == 3:
            found.append((parts[0], parts[1], parts[2]))
    return found


def _expand(predicate: str, prefixes: Mapping[str, str]) -> str:
    if predicate.startswith("<") and predicate.endswith(">"):
        return predicate[1:-1]
    prefix, _, local = predicate.partition(":")
    return prefixes.get(prefix, prefix + ":") + local


def edge_of(statement: Statement, prefixes: Mapping[str, str] = STATEMENT_PREFIXES) -> Edge | None:
    """The edge by which a one-input statement leaves ``?e1`` (``None`` for other statements).

    >>> s = Statement("s1", 1, "?e1 ns:a.b ?cvt . ?cvt ns:a.c ?e2 .", ("?e1",), "?e2", "?e2 is x of ?e1", ())
    >>> edge_of(s)
    Edge(predicate='http://rdf.freebase.com/ns/a.b', direction='out')
    """
    if len(statement.inputs) != 1:
        return None
    for subject, predicate, obj in _triples(statement):
        if subject == "?e1":
            return Edge(_expand(predicate, prefixes), "out")
        if obj == "?e1":
            return Edge(_expand(predicate, prefixes), "in")
    return None


def _node(text: str, names: Mapping[str, str]) -> str:
    """A statement's node with its slot (``?e1``, ``?cvt``) bound; a constant as written."""
    return _SLOT.sub(lambda m: names.get(m.group(1), "?" + m.group(1)), text)


def body(statement: Statement) -> str:
    """The description without its ``?e2 is`` head: ``the member of the band ?e1``."""
    head = f"{statement.output} is "
    return statement.description[len(head) :] if statement.description.startswith(head) else statement.description


def bind(
    statement: Statement,
    start: str,
    name: str,
    target: str,
    fresh: Iterable[str],
    prefixes: Mapping[str, str] = STATEMENT_PREFIXES,
) -> Hop:
    """``statement`` from the node ``start`` (a term or a variable) named ``name`` to ``target``.

    >>> s = Statement("s1", 1, "?e1 <http://x/hasMember> ?e2 .", ("?e1",), "?e2",
    ...               "?e2 is the member of the band ?e1", ("http://x/hasMember",))
    >>> hop = bind(s, "<http://x/Queen>", "Queen", "?x", ["?c1"])
    >>> hop.sentence
    'Find the member of the band Queen, assign it to ?x.'
    >>> hop.patterns
    ('<http://x/Queen> <http://x/hasMember> ?x .',)
    """
    spare = iter(fresh)
    names = {"e1": start, statement.output[1:]: target, "cvt": next(spare, "?c9")}
    patterns = tuple(
        " ".join((_node(s, names), f"<{_expand(p, prefixes)}>", _node(o, names))) + " ."
        for s, p, o in _triples(statement)
    )
    text = _SLOT.sub(lambda m: name if m.group(1) == "e1" else m.group(0), body(statement))
    return Hop(f"Find {' '.join(text.split())}, assign it to {target}.", patterns, target, statement.id)


def bind_reversed(
    statement: Statement, value: str, shown: str, target: str, prefixes: Mapping[str, str] = STATEMENT_PREFIXES
) -> Hop | None:
    """The holders of a literal ``value`` under a statement that reads it (``the nickname of
    the band ?e1`` gives ``the band whose nickname is "The Stones"``); ``None`` when the
    statement is not one plain triple from ``?e1`` or its description is not ``the X of Y``.

    >>> s = Statement("s2", 1, "?e1 <http://x/nickname> ?e2 .", ("?e1",), "?e2",
    ...               "?e2 is the nickname of the band ?e1", ("http://x/nickname",))
    >>> bind_reversed(s, '"The Stones"', '"The Stones"', "?x").sentence
    'Find the band whose nickname is "The Stones", assign it to ?x.'

    A property with no domain reads its holder as any entity (*the year of ?e1*).

    >>> s = Statement("s3", 1, "?e1 <http://x/year> ?e2 .", ("?e1",), "?e2", "?e2 is the year of ?e1", ("http://x/year",))
    >>> bind_reversed(s, "2001", "2001", "?x").sentence
    'Find the entity whose year is 2001, assign it to ?x.'
    """
    edge = edge_of(statement, prefixes)
    match = _OF.match(body(statement))
    if edge is None or edge.direction != "out" or statement.structure != 1 or match is None:
        return None
    attribute, holder = match.group(1), match.group(2) or "the entity"
    sentence = f"Find {holder} whose {attribute} is {shown}, assign it to {target}."
    return Hop(sentence, (f"{target} <{edge.predicate}> {value} .",), target, statement.id)
