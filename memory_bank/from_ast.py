"""Read a parsed query (the compiler's AST) into the decomposer's :class:`QueryGraph`.

Triples of the WHERE clause (UNION branches, OPTIONAL and nested groups and sub-selects
included) become edges. FILTERs are sorted: WebQSP's boiler-plate (``?x != topic``, the
``isLiteral / lang`` test) is dropped, comparisons become :class:`Comparison`, and the
``NOT EXISTS {...} || EXISTS {... FILTER(date op ...)}`` pairs become one
:class:`TimeWindow` per CVT (``<=`` on the start predicate, ``>=`` on the end one).
``ORDER BY`` / ``LIMIT`` become :class:`Order`, COUNT in a projection or a HAVING becomes
:class:`Count`. Whatever else the query holds is listed in ``unsupported`` so that coverage
counts it as a part without a statement, never silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from nl2sparql.compiler import ast, parse
from nl2sparql.memory_bank.query_graph import (
    Comparison,
    Count,
    Edge,
    OneOf,
    Order,
    QueryGraph,
    RawConstraint,
    TimeWindow,
)

FREEBASE_NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
_COMPARE = {"=", "!=", "<", ">", "<=", ">="}
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!="}
_COMMENTED_ENTITY = re.compile(r"ns:(m\.[0-9a-z_]+)[^#\n]*#\s*(.+?)\s*$", re.MULTILINE)


def term_text(term: ast.Node, namespace: str = FREEBASE_NS) -> str:
    """The decomposer's compact form of an AST term."""
    match term:
        case ast.Var(name=name):
            return f"?{name}"
        case ast.BlankNode(label=label):
            return f"?_{label}"
        case ast.IRI(value=value):
            return "ns:" + value[len(namespace) :] if value.startswith(namespace) else f"<{value}>"
        case ast.Literal(lexical=lexical, datatype=datatype, lang=lang):
            text = '"' + lexical.replace("\\", "\\\\").replace('"', '\\"') + '"'
            if lang:
                return f"{text}@{lang}"
            if datatype:
                return text + "^^" + ("xsd:" + datatype[len(XSD) :] if datatype.startswith(XSD) else f"<{datatype}>")
            return text
    raise TypeError(f"not a term: {term!r}")


def labels_from_comments(text: str) -> dict[str, str]:
    """``ns:m.01ync . # Colorado Rockies`` -> ``{"ns:m.01ync": "Colorado Rockies"}`` (manual queries)."""
    return {f"ns:{mid}": name for mid, name in _COMMENTED_ENTITY.findall(text)}


def graph_from_text(
    text: str,
    dialect: str = "virtuoso",
    topics: Iterable[str] = (),
    labels: Mapping[str, str] | None = None,
) -> QueryGraph:
    """Parse ``text`` (``SparqlSyntaxError`` when it is not SPARQL) and read it into a graph."""
    query = parse(text, dialect=dialect)
    merged = {**labels_from_comments(text), **(labels or {})}
    return graph_from_query(query, topics, merged)


def graph_from_query(
    query: ast.Node, topics: Iterable[str] = (), labels: Mapping[str, str] | None = None
) -> QueryGraph:
    reader = _Reader(query)
    if not isinstance(query, ast.SelectQuery):
        reader.unsupported.append(f"{type(query).__name__} (only SELECT queries are decomposed)")
        where = getattr(query, "where", None)
        if where is not None:
            reader.group(where)
        answers: tuple[str, ...] = ()
    else:
        answers = reader.select(query)
    topic_set = {_compact_id(t) for t in topics} or reader.topic_guesses
    return QueryGraph(
        edges=tuple(dict.fromkeys(reader.edges)),
        answers=answers,
        topics=frozenset(topic_set),
        constraints=tuple(reader.constraints()),
        labels=dict(labels or {}),
        unsupported=tuple(reader.unsupported),
    )


def _compact_id(entity: str) -> str:
    if entity.startswith(FREEBASE_NS):
        return "ns:" + entity[len(FREEBASE_NS) :]
    if entity.startswith(("ns:", "<", "?")):
        return entity
    return "ns:" + entity


def _strip_cast(expr: ast.Node) -> ast.Node:
    """``xsd:dateTime(?d)`` / ``str(?d)`` -> ``?d`` (WebQSP casts what it compares)."""
    if isinstance(expr, ast.FunctionCall) and len(expr.args) == 1 and expr.iri.value.startswith(XSD):
        return _strip_cast(expr.args[0])
    if isinstance(expr, ast.BuiltinCall) and expr.name == "STR" and len(expr.args) == 1:
        return _strip_cast(expr.args[0])
    return expr


def _is_zero(expr: ast.Node) -> bool:
    return isinstance(expr, ast.Literal) and expr.lexical.strip() in {"0", "0.0"} and not expr.lang


def _disjuncts(expr: ast.Node) -> list[ast.Node]:
    if isinstance(expr, ast.BinaryOp) and expr.op == "||":
        return [*_disjuncts(expr.left), *_disjuncts(expr.right)]
    return [expr]


def _is_term(expr: ast.Node) -> bool:
    return isinstance(expr, ast.Var | ast.IRI | ast.Literal | ast.BlankNode)


class _Reader:
    def __init__(self, query: ast.Node | None = None) -> None:
        self.query = query
        self.edges: list[Edge] = []
        self.unsupported: list[str] = []
        self.topic_guesses: set[str] = set()
        self._raw: list[RawConstraint] = []
        # (var, date) -> [start predicate, end predicate]
        self._windows: dict[tuple[str, str], list[str | None]] = {}

    # -- query level ---------------------------------------------------------------------------

    def select(self, query: ast.SelectQuery) -> tuple[str, ...]:
        answers: list[str] = []
        for item in query.projection or ():
            if isinstance(item, ast.Var):
                answers.append(term_text(item))
            elif isinstance(item, ast.Alias):
                agg = item.expr
                if isinstance(agg, ast.Aggregate) and agg.name == "COUNT" and isinstance(agg.expr, ast.Var):
                    self._raw.append(Count(term_text(agg.expr)))
                    answers.append(term_text(agg.expr))
                else:
                    self.unsupported.append(f"projection {item}")
        self.group(query.where)
        for cond in query.having:
            self._having(cond)
        if query.order_by:
            key = _strip_cast(query.order_by[0].expr)
            if isinstance(key, ast.Var) and len(query.order_by) == 1:
                self._raw.append(Order(term_text(key), query.order_by[0].descending, query.limit, query.offset))
            else:
                self.unsupported.append(f"ORDER BY {', '.join(str(c) for c in query.order_by)}")
        return tuple(answers)

    def _having(self, cond: ast.Node) -> None:
        if isinstance(cond, ast.BinaryOp) and cond.op in _COMPARE:
            left, right, op = cond.left, cond.right, cond.op
            if isinstance(right, ast.Aggregate):
                left, right, op = right, left, _FLIP[op]
            if (
                isinstance(left, ast.Aggregate)
                and left.name == "COUNT"
                and isinstance(left.expr, ast.Var)
                and _is_term(right)
            ):
                self._raw.append(Count(term_text(left.expr), op, term_text(right)))
                return
        self.unsupported.append(f"HAVING {cond}")

    # -- patterns ------------------------------------------------------------------------------

    def group(self, group: ast.GroupPattern) -> None:
        for element in group.patterns:
            self.pattern(element)

    def pattern(self, element: ast.Node) -> None:
        match element:
            case ast.BGP(triples=triples):
                for t in triples:
                    self.triple(t)
            case ast.GroupPattern():
                self.group(element)
            case ast.Union(patterns=branches):
                for number, branch in enumerate(branches, 1):
                    self.group(_rename_locals(branch, self.outside(element), number))
            case ast.Optional(pattern=inner):
                self.group(inner)
            case ast.SubSelect(query=sub):
                self.select(sub)
            case ast.Filter(expr=expr):
                self.filter(expr)
            case _:
                self.unsupported.append(f"{type(element).__name__} pattern")

    def triple(self, t: ast.TriplePattern) -> None:
        predicate = t.predicate
        subject, obj = t.subject, t.object
        if isinstance(predicate, ast.PathInverse) and isinstance(predicate.path, ast.IRI):
            predicate, subject, obj = predicate.path, obj, subject
        if isinstance(predicate, ast.IRI | ast.Var):
            self.edges.append(Edge(term_text(subject), term_text(predicate), term_text(obj)))
        else:
            self.unsupported.append(f"property path {predicate}")

    def outside(self, part: ast.Node) -> set[str]:
        """Variables the query mentions outside ``part``."""
        found: set[str] = set()
        stack = [self.query] if self.query is not None else []
        while stack:
            node = stack.pop()
            if node is part:
                continue
            if isinstance(node, ast.Var):
                found.add(node.name)
            stack.extend(node.iter_children())
        return found

    # -- filters -------------------------------------------------------------------------------

    def filter(self, expr: ast.Node) -> None:
        if isinstance(expr, ast.BinaryOp) and expr.op == "&&":
            self.filter(expr.left)
            self.filter(expr.right)
            return
        if _is_language_test(expr):
            return
        if self._time_window(expr) or self._one_of(expr):
            return
        if isinstance(expr, ast.BinaryOp) and expr.op in _COMPARE:
            left, right = _strip_cast(expr.left), _strip_cast(expr.right)
            if isinstance(left, ast.BinaryOp) and left.op == "-" and _is_zero(right):
                left, right = _strip_cast(left.left), _strip_cast(left.right)  # a - b > 0  ->  a > b
            if _is_term(left) and _is_term(right):
                lt, rt = term_text(left), term_text(right)
                if expr.op == "!=" and isinstance(left, ast.Var) and isinstance(right, ast.IRI):
                    self.topic_guesses.add(rt)
                self._raw.append(Comparison(lt, expr.op, rt))
                return
        self.unsupported.append(f"FILTER {expr}")

    def _one_of(self, expr: ast.Node) -> bool:
        """``?k = ns:a || ?k = ns:b``: one variable equal to one of several constants."""
        parts = _disjuncts(expr)
        if len(parts) < 2:
            return False
        var, values = None, []
        for part in parts:
            if not (isinstance(part, ast.BinaryOp) and part.op == "="):
                return False
            left, right = _strip_cast(part.left), _strip_cast(part.right)
            if isinstance(right, ast.Var):
                left, right = right, left
            if not (isinstance(left, ast.Var) and isinstance(right, ast.IRI | ast.Literal)):
                return False
            if var not in (None, left):
                return False
            var = left
            values.append(term_text(right))
        self._raw.append(OneOf(term_text(var), tuple(values)))
        return True

    def _time_window(self, expr: ast.Node) -> bool:
        """``NOT EXISTS {?y P ?a} || EXISTS {?y P ?b . FILTER(?b op date)}`` (either order)."""
        if not (isinstance(expr, ast.BinaryOp) and expr.op == "||"):
            return False
        sides = (expr.left, expr.right)
        missing = next((s for s in sides if isinstance(s, ast.NotExists)), None)
        present = next((s for s in sides if isinstance(s, ast.Exists)), None)
        if missing is None or present is None:
            return False
        triples = [t for t in present.pattern.find_all(ast.TriplePattern)]
        filters = [f for f in present.pattern.find_all(ast.Filter)]
        if len(triples) != 1 or len(filters) != 1 or not isinstance(triples[0].predicate, ast.IRI):
            return False
        cmp = filters[0].expr
        if not (isinstance(cmp, ast.BinaryOp) and cmp.op in ("<", "<=", ">", ">=")):
            return False
        left, right, op = _strip_cast(cmp.left), _strip_cast(cmp.right), cmp.op
        if not isinstance(left, ast.Var):
            left, right, op = right, left, _FLIP[op]
        if not (isinstance(left, ast.Var) and _is_term(right) and triples[0].object == left):
            return False
        var, date = term_text(triples[0].subject), term_text(right)
        slot = self._windows.setdefault((var, date), [None, None])
        slot[0 if op in ("<", "<=") else 1] = term_text(triples[0].predicate)
        return True

    def constraints(self) -> list[RawConstraint]:
        windows = [TimeWindow(var, s, e, date) for (var, date), (s, e) in self._windows.items()]
        return [*windows, *self._raw]


def _rename_locals(branch: ast.GroupPattern, outside: set[str], number: int) -> ast.GroupPattern:
    """A UNION branch's own variables get a branch suffix: ``?y`` of two branches is two nodes."""

    def rename(node: ast.Node) -> ast.Node:
        if isinstance(node, ast.Var) and node.name not in outside:
            return ast.Var(f"{node.name}_u{number}")
        return node

    renamed = branch.transform(rename)
    assert isinstance(renamed, ast.GroupPattern)
    return renamed


def _is_language_test(expr: ast.Node) -> bool:
    """WebQSP's ``!isLiteral(?x) || lang(?x) = '' || langMatches(lang(?x), 'en')``."""
    names = {n.name for n in expr.find_all(ast.BuiltinCall)}
    return bool(names) and names <= {"ISLITERAL", "LANG", "LANGMATCHES"} and not list(expr.find_all(ast.Exists))
