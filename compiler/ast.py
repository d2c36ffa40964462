"""Typed, immutable syntax tree of a SPARQL 1.1 query.

Why a tree of our own: the compiler parses the gold Virtuoso-dialect queries, checks
them, rewrites them and writes them out again for Oxigraph, rdflib and Virtuoso. All
of that wants one plain, hashable, comparable value per query (``parse(a) ==
parse(b)`` when ``a`` and ``b`` mean the same), not a parser's tree or rdflib's
untyped ``CompValue`` dicts.

Rules every node keeps (other packages build on them; the names are stable):

* Nodes are frozen dataclasses with slots; equality and hashing are structural.
* Every node declares the fields that hold child nodes in ``children`` (the sqlglot
  habit), so :meth:`Node.walk`, :meth:`Node.transform` and :func:`variables` work on
  any node without knowing its class. A child field holds a node, ``None``, or a
  tuple (possibly nested, as the rows of :class:`Values`) of nodes and ``None``.
* Terms carry no presentation: :class:`IRI` is always the full IRI (prefixed names are
  expanded by the reader; the generator abbreviates again), variables carry their
  name without ``?``/``$``, numbers are :class:`Literal` with an XSD datatype.
* A query's :class:`Prologue` is presentation only (the prefixes to prefer when
  writing it out) and takes no part in equality.
* Layout of patterns follows the syntax, not the algebra: a ``{ ... }`` group is a
  :class:`GroupPattern` whose elements are :class:`BGP` (a run of triple patterns),
  :class:`Filter`, :class:`Optional`, :class:`Union`, :class:`Minus`, :class:`Bind`,
  :class:`Values`, :class:`Graph`, :class:`Service`, nested :class:`GroupPattern`,
  or a :class:`SubSelect` (which is then the group's only element, as in
  ``{ SELECT ... }``). Blank-node property lists (``[ ... ]``) and collections
  (``( ... )``) are expanded into triples over :class:`BlankNode` terms.
* ``str(node)`` writes the node as SPARQL (the ``sparql11`` generator); whole queries
  get their ``PREFIX`` lines, fragments use the well-known prefixes without them.

Example::

    >>> from nl2sparql.compiler import parse
    >>> q = parse("SELECT ?x WHERE { <http://ex/a> <http://ex/p> ?x }")
    >>> [t.object for t in q.where.walk() if isinstance(t, TriplePattern)]
    [Var(name='x')]
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias, TypeVar

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
RDF_TYPE = RDF + "type"
RDF_FIRST = RDF + "first"
RDF_REST = RDF + "rest"
RDF_NIL = RDF + "nil"
XSD_STRING = XSD + "string"
XSD_INTEGER = XSD + "integer"
XSD_DECIMAL = XSD + "decimal"
XSD_DOUBLE = XSD + "double"
XSD_BOOLEAN = XSD + "boolean"
XSD_DATETIME = XSD + "dateTime"

N = TypeVar("N", bound="Node")


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


class Node:
    """Base of every syntax-tree node (terms, paths, expressions, patterns, queries)."""

    __slots__ = ()
    #: names of the fields that hold child nodes, in source order
    children: ClassVar[tuple[str, ...]] = ()
    #: snake-case class name; the generator looks up ``<key>_sql`` by it
    key: ClassVar[str] = "node"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.key = _snake(cls.__name__)

    def iter_children(self) -> Iterator[Node]:
        """The direct child nodes, in field order (tuples flattened, ``None`` skipped)."""
        for name in self.children:
            yield from _nodes_in(getattr(self, name))

    def walk(self) -> Iterator[Node]:
        """This node and every node below it, depth first, in source order."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            kids = list(node.iter_children())
            kids.reverse()
            stack.extend(kids)

    def find_all(self, kind: type[N] | tuple[type[N], ...]) -> Iterator[N]:
        """Every node below (and including) this one that is an instance of ``kind``."""
        for node in self.walk():
            if isinstance(node, kind):
                yield node  # type: ignore[misc]

    def transform(self, fn: Callable[[Node], Node]) -> Node:
        """Rebuild the tree bottom-up, replacing each node ``n`` with ``fn(n)``.

        ``fn`` sees a node whose children are already transformed. Subtrees that ``fn``
        leaves alone are shared with the input, not copied.
        """
        changes: dict[str, Any] = {}
        for name in self.children:
            old = getattr(self, name)
            new = _transform_value(old, fn)
            if new is not old:
                changes[name] = new
        node = dataclasses.replace(self, **changes) if changes else self  # type: ignore[type-var]
        return fn(node)

    def replace(self: N, **changes: Any) -> N:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    def __str__(self) -> str:
        from nl2sparql.compiler.generator import generate

        return generate(self)


def _nodes_in(value: Any) -> Iterator[Node]:
    if isinstance(value, Node):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _nodes_in(item)


def _transform_value(value: Any, fn: Callable[[Node], Node]) -> Any:
    if isinstance(value, Node):
        return value.transform(fn)
    if isinstance(value, tuple):
        new = tuple(_transform_value(item, fn) for item in value)
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    return value


node = dataclass(frozen=True, slots=True)
query_node = dataclass(frozen=True, slots=True, kw_only=True)


# ---------------------------------------------------------------- terms


@node
class Var(Node):
    """A variable (``?x`` or ``$x``); ``name`` has no sigil."""

    name: str


@node
class IRI(Node):
    """An IRI, always absolute and expanded (``http://rdf.freebase.com/ns/m.0abc``)."""

    value: str


@node
class Literal(Node):
    """An RDF literal: the lexical form as written (escapes decoded), with either a
    datatype IRI or a language tag. Numbers and booleans written bare get their XSD
    datatype (``1`` -> ``Literal("1", XSD_INTEGER)``); simple strings have neither."""

    lexical: str
    datatype: str | None = None
    lang: str | None = None


@node
class BlankNode(Node):
    """A blank node in a pattern (``_:b1``, ``[]``); acts like a non-projectable variable."""

    label: str


Term: TypeAlias = Var | IRI | Literal | BlankNode


# ---------------------------------------------------------------- property paths [88]-[96]


@node
class PathAlternative(Node):
    """``p1 | p2 | ...``"""

    paths: tuple[Path, ...]
    children = ("paths",)


@node
class PathSequence(Node):
    """``p1 / p2 / ...``"""

    paths: tuple[Path, ...]
    children = ("paths",)


@node
class PathInverse(Node):
    """``^p``"""

    path: Path
    children = ("path",)


@node
class PathMod(Node):
    """``p*``, ``p+`` or ``p?`` (``mod`` is the character)."""

    path: Path
    mod: str
    children = ("path",)


@node
class PathNegated(Node):
    """``!(p1 | ^p2 | ...)``: each item an :class:`IRI` or a :class:`PathInverse` of one."""

    items: tuple[IRI | PathInverse, ...]
    children = ("items",)


Path: TypeAlias = IRI | PathAlternative | PathSequence | PathInverse | PathMod | PathNegated


@node
class TriplePattern(Node):
    """``subject predicate object``; the predicate is a term or a property path."""

    subject: Term
    predicate: Var | Path
    object: Term
    children = ("subject", "predicate", "object")


# ---------------------------------------------------------------- expressions [110]-[134]


@node
class BinaryOp(Node):
    """``left op right`` with ``op`` one of ``|| && = != < > <= >= + - * /``."""

    op: str
    left: Expression
    right: Expression
    children = ("left", "right")


@node
class UnaryOp(Node):
    """``op operand`` with ``op`` one of ``! - +``."""

    op: str
    operand: Expression
    children = ("operand",)


@node
class In(Node):
    """``expr IN (v1, v2, ...)``"""

    expr: Expression
    values: tuple[Expression, ...]
    children = ("expr", "values")


@node
class NotIn(Node):
    """``expr NOT IN (v1, v2, ...)``"""

    expr: Expression
    values: tuple[Expression, ...]
    children = ("expr", "values")


@node
class BuiltinCall(Node):
    """A SPARQL built-in function [121]; ``name`` is upper case (``LANGMATCHES``)."""

    name: str
    args: tuple[Expression, ...]
    children = ("args",)


@node
class FunctionCall(Node):
    """A call of a function named by an IRI [70], including casts (``xsd:dateTime(?d)``)."""

    iri: IRI
    args: tuple[Expression, ...]
    distinct: bool = False
    children = ("iri", "args")


@node
class Aggregate(Node):
    """``COUNT/SUM/MIN/MAX/AVG/SAMPLE/GROUP_CONCAT`` [127]; ``expr`` is ``None`` for ``*``."""

    name: str
    expr: Expression | None
    distinct: bool = False
    separator: str | None = None
    children = ("expr",)


@node
class Exists(Node):
    """``EXISTS { ... }``"""

    pattern: GroupPattern
    children = ("pattern",)


@node
class NotExists(Node):
    """``NOT EXISTS { ... }``"""

    pattern: GroupPattern
    children = ("pattern",)


Expression: TypeAlias = (
    Var
    | IRI
    | Literal
    | BlankNode
    | BinaryOp
    | UnaryOp
    | In
    | NotIn
    | BuiltinCall
    | FunctionCall
    | Aggregate
    | Exists
    | NotExists
)


# ---------------------------------------------------------------- graph patterns [53]-[68]


@node
class BGP(Node):
    """A basic graph pattern: a run of triple patterns inside a group [55]."""

    triples: tuple[TriplePattern, ...]
    children = ("triples",)


@node
class GroupPattern(Node):
    """``{ ... }`` [53]: its elements in source order."""

    patterns: tuple[Pattern, ...] = ()
    children = ("patterns",)


@node
class Optional(Node):
    """``OPTIONAL { ... }`` [57]"""

    pattern: GroupPattern
    children = ("pattern",)


@node
class Minus(Node):
    """``MINUS { ... }`` [66]"""

    pattern: GroupPattern
    children = ("pattern",)


@node
class Union(Node):
    """``{ ... } UNION { ... } UNION ...`` [67], two or more branches."""

    patterns: tuple[GroupPattern, ...]
    children = ("patterns",)


@node
class Graph(Node):
    """``GRAPH name { ... }`` [58]"""

    name: Var | IRI
    pattern: GroupPattern
    children = ("name", "pattern")


@node
class Service(Node):
    """``SERVICE [SILENT] name { ... }`` [59] (parsed; read-only validation refuses it)."""

    name: Var | IRI
    pattern: GroupPattern
    silent: bool = False
    children = ("name", "pattern")


@node
class Filter(Node):
    """``FILTER constraint`` [68]"""

    expr: Expression
    children = ("expr",)


@node
class Bind(Node):
    """``BIND (expr AS ?var)`` [60]"""

    expr: Expression
    var: Var
    children = ("expr", "var")


@node
class Values(Node):
    """``VALUES`` [61]/[28]: ``rows`` hold one term (or ``None`` for ``UNDEF``) per variable."""

    vars: tuple[Var, ...]
    rows: tuple[tuple[IRI | Literal | None, ...], ...]
    children = ("vars", "rows")


@node
class SubSelect(Node):
    """A nested ``SELECT`` [8]; appears as the only element of its :class:`GroupPattern`."""

    query: SelectQuery
    children = ("query",)


Pattern: TypeAlias = (
    BGP | GroupPattern | Optional | Minus | Union | Graph | Service | Filter | Bind | Values | SubSelect
)


# ---------------------------------------------------------------- query forms [2]-[28]


@node
class Alias(Node):
    """``(expr AS ?var)`` in a projection or a ``GROUP BY``."""

    expr: Expression
    var: Var
    children = ("expr", "var")


@node
class OrderCondition(Node):
    """One ``ORDER BY`` key [24]."""

    expr: Expression
    descending: bool = False
    children = ("expr",)


@node
class DatasetClause(Node):
    """``FROM <iri>`` or ``FROM NAMED <iri>`` [13]."""

    iri: IRI
    named: bool = False
    children = ("iri",)


@node
class Prologue(Node):
    """``BASE`` and ``PREFIX`` declarations [4], in source order (presentation only)."""

    base: str | None = None
    prefixes: tuple[tuple[str, str], ...] = ()

    def prefix_map(self) -> dict[str, str]:
        """``{prefix: namespace}``; a prefix declared twice keeps its last namespace."""
        return dict(self.prefixes)


EMPTY_PROLOGUE = Prologue()

_MODIFIERS = ("where", "group_by", "having", "order_by", "values")


@query_node
class SelectQuery(Node):
    """``SELECT`` [7] (and, inside :class:`SubSelect`, [8]). ``projection`` is ``None``
    for ``SELECT *``; ``group_by`` items are expressions or :class:`Alias`."""

    projection: tuple[Var | Alias, ...] | None
    where: GroupPattern
    distinct: bool = False
    reduced: bool = False
    group_by: tuple[Expression | Alias, ...] = ()
    having: tuple[Expression, ...] = ()
    order_by: tuple[OrderCondition, ...] = ()
    limit: int | None = None
    offset: int | None = None
    values: Values | None = None
    dataset: tuple[DatasetClause, ...] = ()
    prologue: Prologue = field(default=EMPTY_PROLOGUE, compare=False)
    children = ("projection", "dataset", *_MODIFIERS)


@query_node
class AskQuery(Node):
    """``ASK`` [12]"""

    where: GroupPattern
    group_by: tuple[Expression | Alias, ...] = ()
    having: tuple[Expression, ...] = ()
    order_by: tuple[OrderCondition, ...] = ()
    limit: int | None = None
    offset: int | None = None
    values: Values | None = None
    dataset: tuple[DatasetClause, ...] = ()
    prologue: Prologue = field(default=EMPTY_PROLOGUE, compare=False)
    children = ("dataset", *_MODIFIERS)


@query_node
class ConstructQuery(Node):
    """``CONSTRUCT`` [10]; the short form ``CONSTRUCT WHERE { T }`` reads as template ``T``."""

    template: tuple[TriplePattern, ...]
    where: GroupPattern
    group_by: tuple[Expression | Alias, ...] = ()
    having: tuple[Expression, ...] = ()
    order_by: tuple[OrderCondition, ...] = ()
    limit: int | None = None
    offset: int | None = None
    values: Values | None = None
    dataset: tuple[DatasetClause, ...] = ()
    prologue: Prologue = field(default=EMPTY_PROLOGUE, compare=False)
    children = ("template", "dataset", *_MODIFIERS)


@query_node
class DescribeQuery(Node):
    """``DESCRIBE`` [11]; ``targets`` is ``None`` for ``*``, ``where`` is optional."""

    targets: tuple[Var | IRI, ...] | None
    where: GroupPattern | None = None
    group_by: tuple[Expression | Alias, ...] = ()
    having: tuple[Expression, ...] = ()
    order_by: tuple[OrderCondition, ...] = ()
    limit: int | None = None
    offset: int | None = None
    values: Values | None = None
    dataset: tuple[DatasetClause, ...] = ()
    prologue: Prologue = field(default=EMPTY_PROLOGUE, compare=False)
    children = ("targets", "dataset", *_MODIFIERS)


Query: TypeAlias = SelectQuery | AskQuery | ConstructQuery | DescribeQuery
QUERY_TYPES: tuple[type[Node], ...] = (SelectQuery, AskQuery, ConstructQuery, DescribeQuery)


# ---------------------------------------------------------------- helpers


def variables(node: Node) -> set[str]:
    """Names of every variable mentioned anywhere below ``node`` (subqueries included)."""
    return {n.name for n in node.walk() if isinstance(n, Var)}


def triples(node: Node) -> list[TriplePattern]:
    """Every triple pattern below ``node``, in source order."""
    return [n for n in node.walk() if isinstance(n, TriplePattern)]


def is_term(value: object) -> bool:
    """True for the four RDF term nodes."""
    return isinstance(value, Var | IRI | Literal | BlankNode)
