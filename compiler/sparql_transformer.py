"""Turn a ``sparql.lark`` parse tree into the compiler's typed AST (``nl2sparql.compiler.ast``).

The grammar accepts the union of SPARQL 1.1 and the Virtuoso extensions found in the
gold WebQSP / CWQ queries; :class:`ReaderOptions` (``sparql_options.py``) says which of
them a reader allows,
which prefixes it knows without a ``PREFIX`` line, and which function IRIs it
rewrites (Virtuoso's ``xsd:datetime`` is ``xsd:dateTime``). What the reader refuses is
raised as :class:`ReaderError` with the offending token's position; the compiler turns
it into its ``SparqlSyntaxError`` (this package knows nothing of the compiler's errors).

One transformer instance reads one query: it keeps the prologue's prefixes as it meets
them (the prologue is transformed before the body) and numbers anonymous blank nodes.
Refusals tied to a token are collected in :attr:`SparqlTransformer.errors` rather than
raised, because the tree is transformed bottom-up: the caller reports the one that comes
first in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urljoin

from lark import Token, Transformer, v_args

from nl2sparql.compiler.ast import (
    BGP,
    IRI,
    RDF_FIRST,
    RDF_NIL,
    RDF_REST,
    RDF_TYPE,
    XSD_BOOLEAN,
    XSD_DATETIME,
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
from nl2sparql.compiler.sparql_options import ReaderOptions


class ReaderError(Exception):
    """The text is well-formed for the grammar but not for this reader."""

    def __init__(self, message: str, token: Token | None, expected: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.line = getattr(token, "line", None)
        self.column = getattr(token, "column", None)
        self.token = str(token) if token is not None else None
        self.expected = tuple(expected)


class _TriplesNode:
    """A ``[ ... ]`` or ``( ... )`` in a triple: the node that stands for it and its triples."""

    __slots__ = ("term", "triples")

    def __init__(self, term: Any, triples: list[TriplePattern]) -> None:
        self.term = term
        self.triples = triples


_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_LOCAL_ESCAPE = re.compile(r"\\(.)")
_BLANK_LABEL = re.compile(r"_:([^\s.;,()\[\]{}]+)")
_CONSTRAINT_NODES = (BuiltinCall, Aggregate, FunctionCall, Exists, NotExists)
_PARTIAL_DATETIME = re.compile(r"(-?[0-9]{4,})(?:-([0-9]{2}))?(?:-([0-9]{2}))?\Z")


def _completed_datetime(value: Any) -> Any:
    """``"2015-08-10"^^xsd:dateTime`` -> ``"2015-08-10T00:00:00"^^xsd:dateTime`` (others unchanged)."""
    if not isinstance(value, Literal) or value.datatype != XSD_DATETIME:
        return value
    match = _PARTIAL_DATETIME.match(value.lexical)
    if match is None:
        return value
    year, month, day = match.groups()
    return Literal(f"{year}-{month or '01'}-{day or '01'}T00:00:00", XSD_DATETIME)


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body

    def one(match: re.Match[str]) -> str:
        short, long, char = match.groups()
        if short or long:
            return chr(int(short or long, 16))
        return _ECHAR[char]

    return _ESCAPE.sub(one, body)


def _string_value(token: Token) -> str:
    quote = 3 if token.type.startswith("STRING_LITERAL_LONG") else 1
    return _unescape(token[quote:-quote])


def _tokens_removed(items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(item for item in items if not isinstance(item, Token))


@v_args(inline=True)
class SparqlTransformer(Transformer[Token, Any]):
    """Parse tree -> AST for one query text."""

    def __init__(self, options: ReaderOptions, text: str) -> None:
        super().__init__(visit_tokens=True)
        self.options = options
        self.text = text
        self.prefixes: dict[str, str] = dict(options.builtin_prefixes)
        self.declared: list[tuple[str, str]] = []
        self.base: str | None = None
        self.aliases = dict(options.iri_aliases)
        self._bracketted: set[int] = set()
        self._blank_count = 0
        self._user_labels: set[str] | None = None
        self.errors: list[ReaderError] = []

    def _refuse(self, message: str, token: Token, expected: Iterable[str]) -> None:
        self.errors.append(ReaderError(message, token, expected))

    # ------------------------------------------------------------ tokens

    def IRIREF(self, token: Token) -> str:  # noqa: N802 - lark calls terminals by name
        value = token[1:-1]
        if self.base is not None and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", value):
            value = urljoin(self.base, value)
        return value

    def INTEGER(self, token: Token) -> Literal:  # noqa: N802
        return Literal(str(token), XSD_INTEGER)

    def DECIMAL(self, token: Token) -> Literal:  # noqa: N802
        return Literal(str(token), XSD_DECIMAL)

    def DOUBLE(self, token: Token) -> Literal:  # noqa: N802
        return Literal(str(token), XSD_DOUBLE)

    INTEGER_POSITIVE = INTEGER_NEGATIVE = INTEGER
    DECIMAL_POSITIVE = DECIMAL_NEGATIVE = DECIMAL
    DOUBLE_POSITIVE = DOUBLE_NEGATIVE = DOUBLE

    def STRING_LITERAL1(self, token: Token) -> str:  # noqa: N802
        return _string_value(token)

    STRING_LITERAL2 = STRING_LITERAL_LONG1 = STRING_LITERAL_LONG2 = STRING_LITERAL1

    # ------------------------------------------------------------ prologue and query forms

    def base_decl(self, iri: str) -> None:
        self.base = iri

    def prefix_decl(self, name: Token, iri: str) -> None:
        prefix = str(name)[:-1]
        self.prefixes[prefix] = iri
        self.declared.append((prefix, iri))

    def prologue(self, *_: None) -> Prologue:
        return Prologue(base=self.base, prefixes=tuple(self.declared))

    def query_unit(self, prologue: Prologue, query: Any, values: Values | None = None) -> Any:
        return query.replace(prologue=prologue, values=values)

    def select_query(self, clause: dict[str, Any], *rest: Any) -> SelectQuery:
        *dataset, where, modifiers = rest
        return SelectQuery(**clause, where=where, dataset=tuple(dataset), **modifiers)

    def sub_select(
        self,
        clause: dict[str, Any],
        where: GroupPattern,
        modifiers: dict[str, Any],
        values: Values | None = None,
    ) -> SubSelect:
        return SubSelect(SelectQuery(**clause, where=where, values=values, **modifiers))

    def select_clause(self, *items: Any) -> dict[str, Any]:
        distinct = reduced = star = False
        projection = []
        for item in items:
            if isinstance(item, Token):
                distinct |= item.type == "DISTINCT"
                reduced |= item.type == "REDUCED"
                star |= item.type == "STAR"
            else:
                projection.append(item)
        return {"projection": None if star else tuple(projection), "distinct": distinct, "reduced": reduced}

    def alias(self, expr: Any, var: Var) -> Alias:
        return Alias(expr, var)

    def construct_query(self, template: tuple[TriplePattern, ...], *rest: Any) -> ConstructQuery:
        *dataset, where, modifiers = rest
        return ConstructQuery(template=template, where=where, dataset=tuple(dataset), **modifiers)

    def construct_where(self, *rest: Any) -> ConstructQuery:
        *head, modifiers = rest
        dataset = tuple(item for item in head if isinstance(item, DatasetClause))
        bgps = [item for item in head if isinstance(item, BGP)]
        template = self._template(bgps[0].triples if bgps else ())
        where = GroupPattern((BGP(template),)) if template else GroupPattern()
        return ConstructQuery(template=template, where=where, dataset=dataset, **modifiers)

    def construct_template(self, bgp: BGP | None = None) -> tuple[TriplePattern, ...]:
        return self._template(bgp.triples if bgp else ())

    def _template(self, triples: tuple[TriplePattern, ...]) -> tuple[TriplePattern, ...]:
        for triple in triples:
            if not isinstance(triple.predicate, Var | IRI):
                raise ReaderError("a CONSTRUCT template cannot use a property path", None, ["an IRI or a variable"])
        return triples

    def describe_query(self, *items: Any) -> DescribeQuery:
        targets: list[Any] = []
        star = False
        dataset: list[DatasetClause] = []
        where = None
        modifiers: dict[str, Any] = {}
        for item in items:
            if isinstance(item, Token):
                star = True
            elif isinstance(item, Var | IRI):
                targets.append(item)
            elif isinstance(item, DatasetClause):
                dataset.append(item)
            elif isinstance(item, GroupPattern):
                where = item
            else:
                modifiers = item
        return DescribeQuery(targets=None if star else tuple(targets), where=where, dataset=tuple(dataset), **modifiers)

    def ask_query(self, *rest: Any) -> AskQuery:
        *dataset, where, modifiers = rest
        return AskQuery(where=where, dataset=tuple(dataset), **modifiers)

    def dataset_clause(self, *items: Any) -> DatasetClause:
        return DatasetClause(items[-1], named=len(items) == 2)

    # ------------------------------------------------------------ solution modifiers

    def solution_modifier(self, *clauses: tuple[str, Any]) -> dict[str, Any]:
        return dict(clauses)

    def group_clause(self, *conditions: Any) -> tuple[str, Any]:
        return ("group_by", conditions)

    def having_clause(self, keyword: Token, *conditions: Any) -> tuple[str, Any]:
        if not self.options.virtuoso:
            for condition in conditions:
                if id(condition) not in self._bracketted and not isinstance(condition, _CONSTRAINT_NODES):
                    self._refuse(
                        "a HAVING condition must be bracketted, a built-in or a function call "
                        "(Virtuoso accepts a bare expression: read it with the 'virtuoso' dialect)",
                        keyword,
                        ["(expression)"],
                    )
        return ("having", conditions)

    def order_clause(self, *conditions: OrderCondition) -> tuple[str, Any]:
        return ("order_by", conditions)

    def order_condition(self, *items: Any) -> OrderCondition:
        if len(items) == 2:
            return OrderCondition(items[1], descending=items[0].upper() == "DESC")
        return OrderCondition(items[0])

    def limit_clause(self, value: Literal) -> tuple[str, Any]:
        return ("limit", int(value.lexical))

    def offset_clause(self, value: Literal) -> tuple[str, Any]:
        return ("offset", int(value.lexical))

    def values_clause(self, values: Values) -> Values:
        return values

    # ------------------------------------------------------------ graph patterns

    def group_graph_pattern(self, *elements: Any) -> GroupPattern:
        return GroupPattern(tuple(elements))

    def triples_block(self, *groups: list[TriplePattern]) -> BGP:
        return BGP(tuple(triple for group in groups for triple in group))

    def optional_graph_pattern(self, group: GroupPattern) -> Optional:
        return Optional(group)

    def minus_graph_pattern(self, group: GroupPattern) -> Minus:
        return Minus(group)

    def graph_graph_pattern(self, name: Var | IRI, group: GroupPattern) -> Graph:
        return Graph(name, group)

    def service_graph_pattern(self, *items: Any) -> Service:
        return Service(items[-2], items[-1], silent=len(items) == 3)

    def group_or_union_graph_pattern(self, *groups: GroupPattern) -> GroupPattern | Union:
        return groups[0] if len(groups) == 1 else Union(groups)

    def filter(self, expr: Any) -> Filter:
        return Filter(expr)

    def bind(self, expr: Any, var: Var) -> Bind:
        return Bind(expr, var)

    def inline_data(self, values: Values) -> Values:
        return values

    def data_one_var(self, var: Var, *values: Any) -> Values:
        return Values((var,), tuple((value,) for value in values))

    def data_full(self, *items: Any) -> Values:
        variables = tuple(item for item in items if isinstance(item, Var))
        rows = tuple(item for item in items if isinstance(item, tuple))
        for row in rows:
            if len(row) != len(variables):
                raise ReaderError(f"a VALUES row has {len(row)} values for {len(variables)} variables", None, [])
        return Values(variables, rows)

    def data_row(self, *values: Any) -> tuple[Any, ...]:
        return _tokens_removed(values) if not (len(values) == 1 and isinstance(values[0], Token)) else ()

    def undef(self) -> None:
        return None

    # ------------------------------------------------------------ triples

    def triples_same_subject_path(self, subject: Any, properties: list[Any] | None = None) -> list[TriplePattern]:
        out: list[TriplePattern] = []
        if isinstance(subject, _TriplesNode):
            out.extend(subject.triples)
            subject = subject.term
        for verb, objects in properties or ():
            for obj in objects:
                if isinstance(obj, _TriplesNode):
                    out.append(TriplePattern(subject, verb, obj.term))
                    out.extend(obj.triples)
                else:
                    out.append(TriplePattern(subject, verb, obj))
        return out

    def property_list(self, *pairs: tuple[Any, tuple[Any, ...]]) -> list[tuple[Any, tuple[Any, ...]]]:
        return list(pairs)

    def verb_objects(self, verb: Any, *objects: Any) -> tuple[Any, tuple[Any, ...]]:
        return (verb, objects)

    def blank_node_property_list(self, properties: list[Any]) -> _TriplesNode:
        node = self._fresh_blank()
        return _TriplesNode(node, self.triples_same_subject_path(node, properties))

    def collection(self, *items: Any) -> _TriplesNode:
        heads = [self._fresh_blank() for _ in items]
        out: list[TriplePattern] = []
        for index, (head, item) in enumerate(zip(heads, items, strict=True)):
            if isinstance(item, _TriplesNode):
                out.append(TriplePattern(head, IRI(RDF_FIRST), item.term))
                out.extend(item.triples)
            else:
                out.append(TriplePattern(head, IRI(RDF_FIRST), item))
            rest = heads[index + 1] if index + 1 < len(heads) else IRI(RDF_NIL)
            out.append(TriplePattern(head, IRI(RDF_REST), rest))
        return _TriplesNode(heads[0], out)

    def _fresh_blank(self) -> BlankNode:
        if self._user_labels is None:
            self._user_labels = set(_BLANK_LABEL.findall(self.text))
        while True:
            label = f"b{self._blank_count}"
            self._blank_count += 1
            if label not in self._user_labels:
                return BlankNode(label)

    # ------------------------------------------------------------ paths

    def path_alternative(self, *paths: Any) -> PathAlternative:
        return PathAlternative(_tokens_removed(paths))

    def path_sequence(self, *paths: Any) -> PathSequence:
        return PathSequence(_tokens_removed(paths))

    def path_inverse(self, path: Any) -> PathInverse:
        return PathInverse(path)

    def path_mod(self, path: Any, mod: Token) -> PathMod:
        return PathMod(path, str(mod))

    def path_negated(self, *items: Any) -> PathNegated:
        return PathNegated(_tokens_removed(items))

    def rdf_type(self) -> IRI:
        return IRI(RDF_TYPE)

    def inverse_rdf_type(self) -> PathInverse:
        return PathInverse(IRI(RDF_TYPE))

    # ------------------------------------------------------------ terms

    def var(self, token: Token) -> Var:
        return Var(token[1:])

    def iri(self, value: str) -> IRI:
        if not isinstance(value, Token):
            return IRI(value)
        prefix, _, local = value.partition(":")
        namespace = self.prefixes.get(prefix)
        if namespace is None:
            self._refuse(f"undeclared prefix '{prefix}:'", value, [f"PREFIX {prefix}: <...> before the query"])
            namespace = ""
        if "\\" in local:
            local = _LOCAL_ESCAPE.sub(r"\1", local)
        return IRI(namespace + local)

    def nil(self, _: Token) -> IRI:
        return IRI(RDF_NIL)

    def blank_node(self, token: Token) -> BlankNode:
        if token.type == "ANON":
            return self._fresh_blank()
        return BlankNode(token[2:])

    def rdf_literal(self, value: str, suffix: Any = None) -> Literal:
        if suffix is None:
            return Literal(value)
        if isinstance(suffix, IRI):
            return Literal(value, datatype=self.aliases.get(suffix.value, suffix.value))
        return Literal(value, lang=str(suffix)[1:])

    def boolean_literal(self, token: Token) -> Literal:
        return Literal(str(token), XSD_BOOLEAN)

    # ------------------------------------------------------------ expressions

    def or_expression(self, *items: Any) -> Any:
        return self._fold_logical("||", items)

    def and_expression(self, *items: Any) -> Any:
        return self._fold_logical("&&", items)

    def _fold_logical(self, op: str, items: tuple[Any, ...]) -> Any:
        result = None
        for item in items:
            if isinstance(item, Token):
                if not self.options.virtuoso:
                    self._refuse(
                        f"'{item}' is Virtuoso's spelling of '{op}' (read with the 'virtuoso' dialect)",
                        item,
                        [op],
                    )
                continue
            result = item if result is None else BinaryOp(op, result, item)
        return result

    def comparison(self, left: Any, op: Token, right: Any) -> BinaryOp:
        if self.options.complete_datetimes:
            left, right = _completed_datetime(left), _completed_datetime(right)
        return BinaryOp(str(op), left, right)

    def in_expression(self, expr: Any, values: tuple[Any, ...]) -> In:
        return In(expr, values)

    def not_in_expression(self, expr: Any, values: tuple[Any, ...]) -> NotIn:
        return NotIn(expr, values)

    def expression_list(self, *items: Any) -> tuple[Any, ...]:
        return _tokens_removed(items)

    def additive_expression(self, *items: Any) -> Any:
        result = items[0]
        index = 1
        while index < len(items):
            item = items[index]
            if isinstance(item, Token):  # '+' or '-' and its operand
                result = BinaryOp(str(item), result, items[index + 1])
                index += 2
                continue
            # a signed number right after an operand, with the '*' / '/' factors that follow it
            term = item
            index += 1
            while index < len(items) and isinstance(items[index], Token) and items[index] in ("*", "/"):
                term = BinaryOp(str(items[index]), term, items[index + 1])
                index += 2
            result = BinaryOp("+", result, term)
        return result

    def multiplicative_expression(self, *items: Any) -> Any:
        result = items[0]
        for index in range(1, len(items), 2):
            result = BinaryOp(str(items[index]), result, items[index + 1])
        return result

    def unary(self, op: Token, operand: Any) -> UnaryOp:
        return UnaryOp(str(op), operand)

    def bracketted_expression(self, expr: Any) -> Any:
        self._bracketted.add(id(expr))
        return expr

    def builtin(self, name: Token, *args: Any) -> BuiltinCall:
        return BuiltinCall(name.upper(), _tokens_removed(args))

    def builtin_list(self, name: Token, args: tuple[Any, ...]) -> BuiltinCall:
        return BuiltinCall(name.upper(), args)

    def exists(self, group: GroupPattern) -> Exists:
        return Exists(group)

    def not_exists(self, group: GroupPattern) -> NotExists:
        return NotExists(group)

    def function_call(self, iri: IRI, *args: Any) -> FunctionCall:
        distinct = any(isinstance(arg, Token) and arg.type == "DISTINCT" for arg in args)
        iri = IRI(self.aliases.get(iri.value, iri.value))
        return FunctionCall(iri, _tokens_removed(args), distinct)

    def aggregate(self, name: Token, *items: Any) -> Aggregate:
        distinct = any(isinstance(item, Token) and item.type == "DISTINCT" for item in items)
        rest = _tokens_removed(items)
        return Aggregate(name.upper(), rest[0] if rest else None, distinct)

    def group_concat(self, name: Token, *items: Any) -> Aggregate:
        distinct = any(isinstance(item, Token) and item.type == "DISTINCT" for item in items)
        rest = [item for item in items if not isinstance(item, Token) or item.type != "DISTINCT"]
        separator = rest[1] if len(rest) > 1 else None
        return Aggregate("GROUP_CONCAT", rest[0], distinct, separator)
