"""Write the AST out as SPARQL text, one class per target dialect.

The sqlglot habit: :class:`Generator` has one ``<node key>_sql`` method per node class,
found by name, and a dialect subclass overrides only what differs. Output is
deterministic and meant to be read: ``PREFIX`` lines for the prefixes used, one
triple per line, two-space indentation, operators spaced, parentheses only where
precedence needs them. Reading the output back with the matching reader gives an
equal AST (``parse(generate(q, d), reader_for(d)) == q``).

* ``sparql11``: prefixed names where the local part is safe to write, with ``PREFIX``
  lines (the query's own prefixes first, then the well-known ones).
* ``full-iri``: no prefixed names at all (pyoxigraph 0.5.13 rejects ``ns:a.b.c``).
* ``virtuoso``: like ``sparql11``, but leaves out the declarations of the prefixes
  Virtuoso predefines (``xsd``, ``rdf``, ``rdfs``, ``owl``), as the gold queries do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from nl2sparql.compiler.ast import (
    BGP,
    IRI,
    QUERY_TYPES,
    RDF_TYPE,
    XSD_BOOLEAN,
    XSD_DECIMAL,
    XSD_DOUBLE,
    XSD_INTEGER,
    Aggregate,
    Alias,
    AskQuery,
    BinaryOp,
    Bind,
    BlankNode,
    BuiltinCall,
    ConstructQuery,
    DatasetClause,
    DescribeQuery,
    Exists,
    Filter,
    FunctionCall,
    Graph,
    GroupPattern,
    In,
    Literal,
    Minus,
    Node,
    NotExists,
    NotIn,
    Optional,
    OrderCondition,
    PathAlternative,
    PathInverse,
    PathMod,
    PathNegated,
    PathSequence,
    Prologue,
    SelectQuery,
    Service,
    SubSelect,
    TriplePattern,
    UnaryOp,
    Union,
    Values,
    Var,
)
from nl2sparql.compiler.dialects import WELL_KNOWN_PREFIXES
from nl2sparql.compiler.errors import DialectError

INDENT = "  "

# Expression precedence, loosest first ([110]-[119]); primaries bind tightest.
_PRECEDENCE = {
    "||": 1,
    "&&": 2,
    "=": 3,
    "!=": 3,
    "<": 3,
    ">": 3,
    "<=": 3,
    ">=": 3,
    "+": 4,
    "-": 4,
    "*": 5,
    "/": 5,
}
_UNARY, _PRIMARY = 6, 7
_RELATIONAL = 3

_NUMBER_SHAPES = {
    XSD_INTEGER: re.compile(r"[+-]?[0-9]+\Z"),
    XSD_DECIMAL: re.compile(r"[+-]?[0-9]*\.[0-9]+\Z"),
    XSD_DOUBLE: re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)[eE][+-]?[0-9]+\Z"),
    XSD_BOOLEAN: re.compile(r"(true|false)\Z"),
}
_PN_CHARS_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_PN_CHARS = _PN_CHARS_BASE + "_\\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
# A local name written without escapes ([169] minus PLX): safe to print after "prefix:".
_SAFE_LOCAL = re.compile(f"[{_PN_CHARS_BASE}_:0-9](?:[{_PN_CHARS}.:]*[{_PN_CHARS}:])?\\Z")
_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_STRING_SPECIAL = re.compile(r'[\\"\n\r\t\b\f]')

# How built-in names are spelled on output (the grammar reads them in any case).
_BUILTIN_SPELLING = {
    "LANGMATCHES": "langMatches",
    "SAMETERM": "sameTerm",
    "ISIRI": "isIRI",
    "ISURI": "isURI",
    "ISBLANK": "isBlank",
    "ISLITERAL": "isLiteral",
    "ISNUMERIC": "isNumeric",
    "LANG": "lang",
    "STR": "str",
    "DATATYPE": "datatype",
    "BOUND": "bound",
    "REGEX": "regex",
}


def _indent(text: str) -> str:
    return "\n".join(INDENT + line if line else line for line in text.split("\n"))


class Generator:
    """SPARQL 1.1 with prefixed names (dialect ``sparql11``)."""

    dialect = "sparql11"
    #: write IRIs as prefixed names where possible
    use_prefixes = True
    #: prefixes the target knows already: used without a ``PREFIX`` line
    predeclared: frozenset[str] = frozenset()

    def __init__(self, prefixes: Sequence[tuple[str, str]] = ()) -> None:
        seen: set[str] = set()
        self._namespaces: list[tuple[str, str]] = []
        for prefix, namespace in (*prefixes, *WELL_KNOWN_PREFIXES):
            if prefix not in seen and namespace:
                seen.add(prefix)
                self._namespaces.append((prefix, namespace))
        self._used: dict[str, str] = {}

    # ------------------------------------------------------------ entry points

    def generate(self, node: Node) -> str:
        """The text of ``node``; a whole query gets ``PREFIX`` lines for what it uses."""
        body = self.sql(node)
        if not isinstance(node, QUERY_TYPES):
            return body
        head = self.prologue_lines()
        return "\n".join([*head, body]) if head else body

    def sql(self, node: Node) -> str:
        method = getattr(self, f"{node.key}_sql", None)
        if method is None:
            raise TypeError(f"{type(self).__name__} cannot write a {type(node).__name__}")
        return method(node)

    def prologue_lines(self) -> list[str]:
        order = [prefix for prefix, _ in self._namespaces]
        known = dict(WELL_KNOWN_PREFIXES)
        return [
            f"PREFIX {prefix}: <{self._used[prefix]}>"
            for prefix in order
            if prefix in self._used and not (prefix in self.predeclared and known.get(prefix) == self._used[prefix])
        ]

    # ------------------------------------------------------------ terms

    def var_sql(self, node: Var) -> str:
        return f"?{node.name}"

    def iri_sql(self, node: IRI) -> str:
        value = node.value
        if self.use_prefixes:
            best: tuple[str, str] | None = None
            for prefix, namespace in self._namespaces:
                if value.startswith(namespace) and (best is None or len(namespace) > len(best[1])):
                    local = value[len(namespace) :]
                    if local == "" or _SAFE_LOCAL.match(local):
                        best = (prefix, namespace)
            if best is not None:
                self._used.setdefault(best[0], best[1])
                return f"{best[0]}:{value[len(best[1]) :]}"
        return f"<{value}>"

    def literal_sql(self, node: Literal) -> str:
        if node.lang is None and node.datatype in _NUMBER_SHAPES and _NUMBER_SHAPES[node.datatype].match(node.lexical):
            return node.lexical
        text = '"' + _STRING_SPECIAL.sub(lambda m: _STRING_ESCAPES[m.group()], node.lexical) + '"'
        if node.lang is not None:
            return f"{text}@{node.lang}"
        if node.datatype is not None:
            return f"{text}^^{self.iri_sql(IRI(node.datatype))}"
        return text

    def blank_node_sql(self, node: BlankNode) -> str:
        return f"_:{node.label}"

    # ------------------------------------------------------------ paths

    def _path(self, node: Node, level: int) -> str:
        """``level``: 1 alternative, 2 sequence, 3 element (inverse / modified), 4 primary."""
        own = {PathAlternative: 1, PathSequence: 2, PathInverse: 3, PathMod: 3}.get(type(node), 4)
        text = self.sql(node)
        return f"({text})" if own < level else text

    def path_alternative_sql(self, node: PathAlternative) -> str:
        return " | ".join(self._path(p, 2) for p in node.paths)

    def path_sequence_sql(self, node: PathSequence) -> str:
        return " / ".join(self._path(p, 3) for p in node.paths)

    def path_inverse_sql(self, node: PathInverse) -> str:
        inner = node.path
        text = self._path(inner, 4) if isinstance(inner, PathInverse) else self._path(inner, 3)
        return f"^{text}"

    def path_mod_sql(self, node: PathMod) -> str:
        return f"{self._path(node.path, 4)}{node.mod}"

    def path_negated_sql(self, node: PathNegated) -> str:
        items = [self.sql(item) for item in node.items]
        if len(items) == 1:
            return f"!{items[0]}"
        return f"!({' | '.join(items)})"

    def _predicate(self, node: Node) -> str:
        if isinstance(node, IRI) and node.value == RDF_TYPE:
            return "a"
        return self.sql(node)

    # ------------------------------------------------------------ expressions

    def _precedence(self, node: Node) -> int:
        if isinstance(node, BinaryOp):
            return _PRECEDENCE[node.op]
        if isinstance(node, In | NotIn):
            return _RELATIONAL
        if isinstance(node, UnaryOp):
            return _UNARY
        return _PRIMARY

    def _operand(self, node: Node, level: int, strict: bool) -> str:
        own = self._precedence(node)
        text = self.sql(node)
        return f"({text})" if own < level or (strict and own == level) else text

    def binary_op_sql(self, node: BinaryOp) -> str:
        level = _PRECEDENCE[node.op]
        left = self._operand(node.left, level, strict=level == _RELATIONAL)
        right = self._operand(node.right, level, strict=True)
        return f"{left} {node.op} {right}"

    def unary_op_sql(self, node: UnaryOp) -> str:
        operand = node.operand
        text = self.sql(operand)
        signed_number = isinstance(operand, Literal) and operand.datatype in _NUMBER_SHAPES
        if self._precedence(operand) < _PRIMARY or (signed_number and node.op in "+-"):
            text = f"({text})"
        return f"{node.op}{text}"

    def in_sql(self, node: In) -> str:
        values = ", ".join(self.sql(v) for v in node.values)
        return f"{self._operand(node.expr, _RELATIONAL, strict=True)} IN ({values})"

    def not_in_sql(self, node: NotIn) -> str:
        values = ", ".join(self.sql(v) for v in node.values)
        return f"{self._operand(node.expr, _RELATIONAL, strict=True)} NOT IN ({values})"

    def builtin_call_sql(self, node: BuiltinCall) -> str:
        name = _BUILTIN_SPELLING.get(node.name, node.name)
        return f"{name}({', '.join(self.sql(a) for a in node.args)})"

    def function_call_sql(self, node: FunctionCall) -> str:
        distinct = "DISTINCT " if node.distinct else ""
        return f"{self.sql(node.iri)}({distinct}{', '.join(self.sql(a) for a in node.args)})"

    def aggregate_sql(self, node: Aggregate) -> str:
        inner = "*" if node.expr is None else self.sql(node.expr)
        if node.distinct:
            inner = f"DISTINCT {inner}"
        if node.separator is not None:
            inner += f"; SEPARATOR = {self.literal_sql(Literal(node.separator))}"
        return f"{node.name}({inner})"

    def exists_sql(self, node: Exists) -> str:
        return f"EXISTS {self.sql(node.pattern)}"

    def not_exists_sql(self, node: NotExists) -> str:
        return f"NOT EXISTS {self.sql(node.pattern)}"

    # ------------------------------------------------------------ patterns

    def triple_pattern_sql(self, node: TriplePattern) -> str:
        return f"{self.sql(node.subject)} {self._predicate(node.predicate)} {self.sql(node.object)} ."

    def bgp_sql(self, node: BGP) -> str:
        return "\n".join(self.sql(t) for t in node.triples)

    def group_pattern_sql(self, node: GroupPattern) -> str:
        if not node.patterns:
            return "{}"
        return "{\n" + _indent("\n".join(self.sql(p) for p in node.patterns)) + "\n}"

    def optional_sql(self, node: Optional) -> str:
        return f"OPTIONAL {self.sql(node.pattern)}"

    def minus_sql(self, node: Minus) -> str:
        return f"MINUS {self.sql(node.pattern)}"

    def union_sql(self, node: Union) -> str:
        return "\nUNION\n".join(self.sql(p) for p in node.patterns)

    def graph_sql(self, node: Graph) -> str:
        return f"GRAPH {self.sql(node.name)} {self.sql(node.pattern)}"

    def service_sql(self, node: Service) -> str:
        silent = "SILENT " if node.silent else ""
        return f"SERVICE {silent}{self.sql(node.name)} {self.sql(node.pattern)}"

    def filter_sql(self, node: Filter) -> str:
        return f"FILTER ({self.sql(node.expr)})"

    def bind_sql(self, node: Bind) -> str:
        return f"BIND ({self.sql(node.expr)} AS {self.sql(node.var)})"

    def values_sql(self, node: Values) -> str:
        def value(term: Node | None) -> str:
            return "UNDEF" if term is None else self.sql(term)

        if len(node.vars) == 1:
            items = " ".join(value(row[0]) for row in node.rows)
            return (
                f"VALUES {self.sql(node.vars[0])} {{ {items} }}" if items else f"VALUES {self.sql(node.vars[0])} {{}}"
            )
        names = " ".join(self.sql(v) for v in node.vars)
        rows = "\n".join(f"({' '.join(value(t) for t in row)})" for row in node.rows)
        return f"VALUES ({names}) {{\n{_indent(rows)}\n}}" if rows else f"VALUES ({names}) {{}}"

    def sub_select_sql(self, node: SubSelect) -> str:
        return self.sql(node.query)

    # ------------------------------------------------------------ query forms

    def alias_sql(self, node: Alias) -> str:
        return f"({self.sql(node.expr)} AS {self.sql(node.var)})"

    def order_condition_sql(self, node: OrderCondition) -> str:
        if node.descending:
            return f"DESC({self.sql(node.expr)})"
        if isinstance(node.expr, Var | BuiltinCall | FunctionCall | Aggregate | Exists | NotExists):
            return self.sql(node.expr)
        return f"ASC({self.sql(node.expr)})"

    def dataset_clause_sql(self, node: DatasetClause) -> str:
        return f"FROM {'NAMED ' if node.named else ''}{self.sql(node.iri)}"

    def prologue_sql(self, node: Prologue) -> str:
        return "\n".join(f"PREFIX {p}: <{ns}>" for p, ns in node.prefixes)

    def _group_condition(self, node: Node) -> str:
        if isinstance(node, Var | Alias | BuiltinCall | FunctionCall | Aggregate):
            return self.sql(node)
        return f"({self.sql(node)})"

    def _modifiers(self, node: SelectQuery | AskQuery | ConstructQuery | DescribeQuery) -> list[str]:
        lines = []
        if node.group_by:
            lines.append("GROUP BY " + " ".join(self._group_condition(c) for c in node.group_by))
        if node.having:
            lines.append("HAVING " + " ".join(self.having_condition(c) for c in node.having))
        if node.order_by:
            lines.append("ORDER BY " + " ".join(self.sql(c) for c in node.order_by))
        if node.limit is not None:
            lines.append(f"LIMIT {node.limit}")
        if node.offset is not None:
            lines.append(f"OFFSET {node.offset}")
        if node.values is not None:
            lines.append(self.sql(node.values))
        return lines

    def having_condition(self, node: Node) -> str:
        return f"({self.sql(node)})"

    def _dataset(self, clauses: Iterable[DatasetClause]) -> list[str]:
        return [self.sql(c) for c in clauses]

    def select_query_sql(self, node: SelectQuery) -> str:
        head = "SELECT"
        if node.distinct:
            head += " DISTINCT"
        if node.reduced:
            head += " REDUCED"
        head += " *" if node.projection is None else " " + " ".join(self.sql(p) for p in node.projection)
        return "\n".join([head, *self._dataset(node.dataset), f"WHERE {self.sql(node.where)}", *self._modifiers(node)])

    def ask_query_sql(self, node: AskQuery) -> str:
        return "\n".join(["ASK", *self._dataset(node.dataset), f"WHERE {self.sql(node.where)}", *self._modifiers(node)])

    def construct_query_sql(self, node: ConstructQuery) -> str:
        template = self.sql(GroupPattern((BGP(node.template),))) if node.template else "{}"
        return "\n".join(
            [
                f"CONSTRUCT {template}",
                *self._dataset(node.dataset),
                f"WHERE {self.sql(node.where)}",
                *self._modifiers(node),
            ]
        )

    def describe_query_sql(self, node: DescribeQuery) -> str:
        targets = "*" if node.targets is None else " ".join(self.sql(t) for t in node.targets)
        lines = [f"DESCRIBE {targets}", *self._dataset(node.dataset)]
        if node.where is not None:
            lines.append(f"WHERE {self.sql(node.where)}")
        return "\n".join([*lines, *self._modifiers(node)])


class FullIriGenerator(Generator):
    """SPARQL 1.1 without prefixed names (dialect ``full-iri``), for Oxigraph."""

    dialect = "full-iri"
    use_prefixes = False


class VirtuosoGenerator(Generator):
    """SPARQL for Virtuoso (dialect ``virtuoso``): its predefined prefixes go undeclared."""

    dialect = "virtuoso"
    predeclared = frozenset({"xsd", "rdf", "rdfs", "owl"})


GENERATORS: dict[str, type[Generator]] = {
    "sparql11": Generator,
    "full-iri": FullIriGenerator,
    "virtuoso": VirtuosoGenerator,
}


def generate(node: Node, dialect: str = "sparql11") -> str:
    """Write ``node`` (a query or any fragment of one) in ``dialect``.

    >>> from nl2sparql.compiler.parser import parse
    >>> print(generate(parse("SELECT ?x { ?x a <http://rdf.freebase.com/ns/people.person> }")))
    PREFIX ns: <http://rdf.freebase.com/ns/>
    SELECT ?x
    WHERE {
      ?x a ns:people.person .
    }
    """
    try:
        cls = GENERATORS[dialect]
    except KeyError:
        raise DialectError(f"unknown SPARQL generator {dialect!r}; known: {', '.join(GENERATORS)}") from None
    prologue = getattr(node, "prologue", None)
    return cls(prologue.prefixes if prologue is not None else ()).generate(node)
