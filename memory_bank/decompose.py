"""MemQ 4.1: cut a query's graph pattern into statements that each have one readable meaning.

A statement starts and ends at non-CVT nodes and passes through at most one CVT:

* structure 1: one triple between two non-CVT nodes;
* structure 2: two triples through one CVT (one input, one output);
* structure 3: a CVT with three or more non-CVT neighbours (two or more inputs, one output).

Directions come from data flow: topic entities are known (rank 0), ranks grow along the
graph, and a statement's inputs are its lower-ranked ends. Constants that are not topic
entities (``ns:m.05zppz`` = Male, a literal) are where a path ends: the statement gets a
slot there and an ``equals`` constraint keeps the constant. When a CVT has one known
neighbour and several unknown ones, the first output (the one nearest an answer) is read
through the CVT (structure 2) and every further one with both as inputs (structure 3:
"?e3 is the start date of the position ?e1 held by ?e2"), so the CVT is shared as in the
query. Slots are numbered inputs first (``?e1``, ``?e2``), the output last, the CVT is
``?cvt``; structure-3 inputs are ordered by their triple text, so a statement has one
canonical text wherever it comes from.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from nl2sparql.memory_bank.cvt import CvtJudge
from nl2sparql.memory_bank.query_graph import (
    Comparison,
    Count,
    Edge,
    OneOf,
    Order,
    QueryGraph,
    TimeWindow,
    is_entity,
    is_literal,
    is_var,
)
from nl2sparql.memory_bank.statement import (
    CVT_SLOT,
    Constant,
    Constraint,
    Entry,
    Statement,
    Triple,
    slot,
)

Describe = Callable[[Entry], str]
_UNREACHED = 10**6


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One statement as it occurs in a query: the entry and what its slots stand for there."""

    entry: Entry
    bindings: tuple[tuple[str, str], ...]

    def binding(self, slot_name: str) -> str | None:
        return dict(self.bindings).get(slot_name)


@dataclass(frozen=True, slots=True)
class Decomposition:
    statements: tuple[Occurrence, ...]
    constraints: tuple[Occurrence, ...]
    cvts: frozenset[str]
    problems: tuple[str, ...]

    @property
    def complete(self) -> bool:
        """True when every part of the query became a statement."""
        return not self.problems

    def keys(self) -> frozenset[str]:
        return frozenset(o.entry.key for o in self.statements)


@dataclass(frozen=True, slots=True)
class _Link:
    """A CVT's neighbour: the node and the edge between them."""

    node: str
    edge: Edge


def decompose(graph: QueryGraph, judge: CvtJudge, describe: Describe | None = None) -> Decomposition:
    """Cut ``graph`` into graph statements and constraint statements (descriptions by ``describe``)."""
    problems: list[str] = list(graph.unsupported)
    edges = []
    for e in graph.edges:
        if is_var(e.predicate):
            problems.append(f"variable predicate {e.predicate} in {e.subject} {e.predicate} {e.object}")
        else:
            edges.append(e)
    cvts = judge.cvt_nodes(graph)
    adjacency = _adjacency(edges)
    topics = {n for n in adjacency if n in graph.topics and not is_var(n)}
    rank = _ranks(adjacency, topics, cvts, set(graph.answers))
    to_answer = _distances(adjacency, set(graph.answers))
    sinks = {n for n in adjacency if not is_var(n) and n not in topics and rank.get(n, 0) > 0}

    occurrences: list[Occurrence] = []
    for e in edges:
        if e.subject in cvts or e.object in cvts:
            continue
        occurrences.append(_structure1(e, rank, sinks, set(graph.answers)))
    for cvt in sorted(cvts):
        occurrences += _through_cvt(cvt, adjacency, cvts, rank, to_answer, problems)

    constraints: list[Occurrence] = []
    bound = {term for occ in occurrences for _, term in occ.bindings}
    for term in sorted(sinks & bound):
        constraints.append(_equals(term, (term,), graph.labels))
    for raw in graph.constraints:
        made = _constraint(raw, graph, topics)
        if made is not None:
            constraints.append(made)

    if describe is not None:
        occurrences = [_described(o, describe) for o in occurrences]
        constraints = [_described(o, describe) for o in constraints]
    if not occurrences and not problems:
        problems.append("no triple pattern to decompose")
    return Decomposition(tuple(occurrences), tuple(constraints), cvts, tuple(problems))


# -- graph helpers ------------------------------------------------------------------------------


def _adjacency(edges: Iterable[Edge]) -> dict[str, list[tuple[str, Edge]]]:
    adj: dict[str, list[tuple[str, Edge]]] = {}
    for e in edges:
        adj.setdefault(e.subject, []).append((e.object, e))
        adj.setdefault(e.object, []).append((e.subject, e))
    return adj


def _ranks(
    adj: dict[str, list[tuple[str, Edge]]], topics: set[str], cvts: frozenset[str], answers: set[str]
) -> dict[str, int]:
    """Breadth-first distance from the known nodes; non-topic constants end a path."""
    rank: dict[str, int] = {}

    def flood(seeds: Iterable[str]) -> None:
        queue = deque()
        for s in seeds:
            if s not in rank:
                rank[s] = 0
                queue.append(s)
        while queue:
            node = queue.popleft()
            if rank[node] > 0 and not is_var(node):
                continue  # a value constant: reached, never passed through
            for other, _ in adj[node]:
                if other not in rank:
                    rank[other] = rank[node] + 1
                    queue.append(other)

    flood(sorted(topics))
    # Components without a topic entity start from their constants, else from a leaf that
    # is not an answer (the answer is what a query flows towards).
    for component in _components(adj):
        if any(n in rank for n in component):
            continue
        consts = sorted(n for n in component if not is_var(n))
        if consts:
            flood(consts)
            continue
        leaves = sorted(
            (n for n in component if n not in cvts and n not in answers),
            key=lambda n: (len(adj[n]), n),
        )
        flood(leaves[:1] or sorted(n for n in component if n not in cvts)[:1] or sorted(component)[:1])
    return rank


def _components(adj: dict[str, list[tuple[str, Edge]]]) -> list[list[str]]:
    seen: set[str] = set()
    out = []
    for start in sorted(adj):
        if start in seen:
            continue
        seen.add(start)
        stack, comp = [start], []
        while stack:
            node = stack.pop()
            comp.append(node)
            for other, _ in adj[node]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        out.append(comp)
    return out


def _distances(adj: dict[str, list[tuple[str, Edge]]], targets: set[str]) -> dict[str, int]:
    dist = {t: 0 for t in targets if t in adj}
    queue = deque(dist)
    while queue:
        node = queue.popleft()
        for other, _ in adj[node]:
            if other not in dist:
                dist[other] = dist[node] + 1
                queue.append(other)
    return dist


def _short(term: str) -> str:
    return term.removeprefix("ns:")


def _sub(term: str, mapping: dict[str, str]) -> str:
    return mapping.get(term, term)


def _triple(e: Edge, mapping: dict[str, str]) -> Triple:
    return Triple(_sub(e.subject, mapping), e.predicate, _sub(e.object, mapping))


# -- graph statements ---------------------------------------------------------------------------


def _structure1(e: Edge, rank: dict[str, int], sinks: set[str], answers: set[str]) -> Occurrence:
    rs, ro = rank.get(e.subject, _UNREACHED), rank.get(e.object, _UNREACHED)
    if rs != ro:
        forward = rs < ro
    elif (e.subject in sinks) != (e.object in sinks):
        forward = e.object in sinks
    elif (e.subject in answers) != (e.object in answers):
        forward = e.object in answers
    else:
        forward = True
    source, target = (e.subject, e.object) if forward else (e.object, e.subject)
    mapping = {source: slot(1), target: slot(2)}
    stmt = Statement.create(1, (_triple(e, mapping),), (slot(1),), slot(2))
    return Occurrence(stmt, ((slot(1), source), (slot(2), target)))


def _through_cvt(
    cvt: str,
    adj: dict[str, list[tuple[str, Edge]]],
    cvts: frozenset[str],
    rank: dict[str, int],
    to_answer: dict[str, int],
    problems: list[str],
) -> list[Occurrence]:
    links: list[_Link] = []
    for other, edge in adj.get(cvt, []):
        if other in cvts:
            if other != cvt and cvt < other:
                problems.append(f"adjacent CVT nodes {cvt} and {other} ({edge.predicate})")
            continue
        links.append(_Link(other, edge))
    if len(links) < 2:
        if links:
            problems.append(f"CVT {cvt} has one non-CVT neighbour ({links[0].edge.predicate})")
        return []
    own = rank.get(cvt, _UNREACHED)
    upstream = [lk for lk in links if rank.get(lk.node, _UNREACHED) < own]
    downstream = [lk for lk in links if lk not in upstream]

    def towards_answer(lk: _Link) -> tuple[int, int, str]:
        return (to_answer.get(lk.node, _UNREACHED), 0 if is_var(lk.node) else 1, _link_text(lk, cvt))

    downstream.sort(key=towards_answer)
    if not upstream:
        upstream, downstream = downstream[-1:], downstream[:-1]
    if not downstream:
        # Every neighbour is known: the CVT only checks that they are linked. Read it
        # towards the latest-reached neighbour.
        upstream.sort(key=lambda lk: (rank.get(lk.node, _UNREACHED), is_var(lk.node), _link_text(lk, cvt)))
        downstream = [upstream.pop()]
    out: list[Occurrence] = []
    if len(upstream) == 1:
        first = downstream[0]
        out.append(_cvt_statement(cvt, upstream, first))
        for lk in downstream[1:]:
            out.append(_cvt_statement(cvt, [upstream[0], first], lk))
    else:
        for lk in downstream:
            out.append(_cvt_statement(cvt, upstream, lk))
    return out


def _link_text(lk: _Link, cvt: str) -> str:
    return _triple(lk.edge, {lk.node: "?e", cvt: CVT_SLOT}).text()


def _cvt_statement(cvt: str, inputs: list[_Link], output: _Link) -> Occurrence:
    # Slots are given per link, not per node: a node linked to the CVT twice (an
    # organisation that is both parent and, through the CVT, child) fills two slots.
    ordered = sorted(inputs, key=lambda lk: _link_text(lk, cvt))
    out_slot = slot(len(ordered) + 1)
    slots = [*(slot(i) for i in range(1, len(ordered) + 1)), out_slot]
    triples = tuple(
        _triple(lk.edge, {cvt: CVT_SLOT, lk.node: s}) for lk, s in zip((*ordered, output), slots, strict=True)
    )
    structure = 2 if len(ordered) == 1 else 3
    in_slots = tuple(slot(i) for i in range(1, len(ordered) + 1))
    stmt = Statement.create(structure, triples, in_slots, out_slot)
    bindings = (
        *((slot(i), lk.node) for i, lk in enumerate(ordered, 1)),
        (out_slot, output.node),
        (CVT_SLOT, cvt),
    )
    return Occurrence(stmt, tuple(bindings))


# -- constraints --------------------------------------------------------------------------------


def _label(term: str, labels: Mapping[str, str]) -> str:
    if term in labels:
        return labels[term]
    if is_literal(term) and term.startswith('"'):
        return term[1:].rsplit('"', 1)[0]
    return _short(term)


def _equals(bound_to: str, values: tuple[str, ...], labels: Mapping[str, str]) -> Occurrence:
    """``FILTER(?e1 = ns:m.05zppz)``; a plain literal compares by ``str()``; several values: ``||``."""

    def test(value: str) -> str:
        plain = value.startswith('"') and "^^" not in value
        if plain:
            value = '"' + value[1:].rsplit('"', 1)[0] + '"'  # drop a language tag
        return f"str(?e1) = {value}" if plain else f"?e1 = {value}"

    sparql = "FILTER(" + " || ".join(test(v) for v in values) + ")"
    constants = tuple(Constant(v, _label(v, labels)) for v in values)
    item = Constraint.create("equals", sparql, (slot(1),), constants=constants)
    return Occurrence(item, ((slot(1), bound_to),))


_DATE_TYPES = ("xsd:dateTime", "xsd:date", "xsd:gYear", "xsd:gYearMonth", "xsd:datetime")


def literal_datatype(term: str) -> str | None:
    if "^^" in term:
        return term.rsplit("^^", 1)[1]
    return None


def _is_date(term: str) -> bool:
    dt = literal_datatype(term)
    return dt is not None and any(dt.endswith(t.split(":")[1]) for t in _DATE_TYPES)


def _constraint(raw: object, graph: QueryGraph, topics: set[str]) -> Occurrence | None:
    match raw:
        case OneOf(var=var, values=values):
            return _equals(var, values, graph.labels)
        case Comparison(left=left, op=op, right=right):
            return _comparison(left, op, right, graph, topics)
        case TimeWindow(var=var, start=start, end=end, date=date):
            parts = []
            if start:
                parts.append(
                    f"FILTER(NOT EXISTS {{?e1 {start} ?t0}} || "
                    f"EXISTS {{?e1 {start} ?t1 . FILTER(xsd:dateTime(?t1) <= ?e2)}})"
                )
            if end:
                parts.append(
                    f"FILTER(NOT EXISTS {{?e1 {end} ?t2}} || "
                    f"EXISTS {{?e1 {end} ?t3 . FILTER(xsd:dateTime(?t3) >= ?e2)}})"
                )
            if not parts:
                return None
            preds = tuple(p.removeprefix("ns:") for p in (start, end) if p)
            item = Constraint.create("time_window", " ".join(parts), (slot(1), slot(2)), predicates=preds)
            return Occurrence(item, ((slot(1), var), (slot(2), date)))
        case Order(key=key, descending=desc, limit=limit, offset=offset):
            text = f"ORDER BY {'DESC' if desc else 'ASC'}(?e1)"
            if limit is not None:
                text += f" LIMIT {limit}"
            if offset:
                text += f" OFFSET {offset}"
            return Occurrence(Constraint.create("order", text, (slot(1),)), ((slot(1), key),))
        case Count(var=var, op=op, value=value):
            if op is None:
                item = Constraint.create("count", "SELECT (COUNT(?e1) AS ?e2)", (slot(1),))
                return Occurrence(item, ((slot(1), var),))
            item = Constraint.create("count", f"GROUP BY ?e1 HAVING (COUNT(?e1) {op} ?e2)", (slot(1), slot(2)))
            return Occurrence(item, ((slot(1), var), (slot(2), value or "")))
    return None


def _comparison(left: str, op: str, right: str, graph: QueryGraph, topics: set[str]) -> Occurrence | None:
    if op == "!=" and (left in topics or right in topics or (is_var(left) and is_var(right))):
        return None  # WebQSP's "the answer is not the topic entity" boiler-plate
    if is_var(right) is False and is_var(left):
        var, value = left, right
    elif is_var(right) and not is_var(left):
        var, value = right, left
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
    else:
        var, value = left, right
    if op == "=" and (is_entity(value) or is_literal(value)) and is_var(var):
        return _equals(var, (value,), graph.labels)
    if is_var(value):
        item = Constraint.create("comparison", f"FILTER(?e1 {op} ?e2)", (slot(1), slot(2)))
        return Occurrence(item, ((slot(1), var), (slot(2), value)))
    rhs = "xsd:dateTime(?e2)" if _is_date(value) else "?e2"
    if is_literal(value) or is_entity(value):
        item = Constraint.create("comparison", f"FILTER(?e1 {op} {rhs})", (slot(1), slot(2)))
        return Occurrence(item, ((slot(1), var), (slot(2), value)))
    return None


def _described(occ: Occurrence, describe: Describe) -> Occurrence:
    return Occurrence(occ.entry.with_(description=describe(occ.entry)), occ.bindings)
