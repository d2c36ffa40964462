"""The readers: every SPARQL 1.1 construct becomes the expected AST node; the Virtuoso
reader accepts exactly the gold queries' extensions; bad input is a SparqlSyntaxError
with a position, never a lark exception."""

from __future__ import annotations

import pytest

from nl2sparql.compiler import SparqlSyntaxError, parse, parse_expression, parse_pattern
from nl2sparql.compiler.ast import (
    BGP,
    IRI,
    RDF_FIRST,
    RDF_NIL,
    RDF_REST,
    RDF_TYPE,
    XSD,
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
    NotExists,
    NotIn,
    Optional,
    OrderCondition,
    PathAlternative,
    PathInverse,
    PathMod,
    PathNegated,
    PathSequence,
    SelectQuery,
    Service,
    SubSelect,
    TriplePattern,
    UnaryOp,
    Union,
    Values,
    Var,
)
from nl2sparql.errors import Nl2SparqlError

EX = "http://ex.org/"
P = f"PREFIX : <{EX}>\nPREFIX xsd: <{XSD}>\n"


def ex(local: str) -> IRI:
    return IRI(EX + local)


def where(text: str, dialect: str = "sparql11") -> tuple:
    return parse(P + f"SELECT * WHERE {{ {text} }}", dialect).where.patterns


def expr(text: str) -> object:
    (element,) = where(f"FILTER ({text})")
    return element.expr


def triples(text: str) -> tuple[TriplePattern, ...]:
    (bgp,) = where(text)
    assert isinstance(bgp, BGP)
    return bgp.triples


# ---------------------------------------------------------------- terms and prologue


def test_prefixed_names_expand_and_keywords_are_case_insensitive() -> None:
    query = parse("prefix ns: <http://rdf.freebase.com/ns/> select distinct ?x where { ns:m.0abc ns:a.b.c ?x }")
    assert isinstance(query, SelectQuery) and query.distinct
    (triple,) = query.where.patterns[0].triples
    assert triple == TriplePattern(
        IRI("http://rdf.freebase.com/ns/m.0abc"), IRI("http://rdf.freebase.com/ns/a.b.c"), Var("x")
    )
    assert query.prologue.prefixes == (("ns", "http://rdf.freebase.com/ns/"),)


def test_empty_prefix_escaped_local_names_and_base() -> None:
    query = parse("BASE <http://b.org/dir/> PREFIX : <http://e/> SELECT ?x { :a\\.b <rel> ?x . :c%20d :p $x }")
    first, second = query.where.patterns[0].triples
    assert first.subject == IRI("http://e/a.b") and first.predicate == IRI("http://b.org/dir/rel")
    assert second.subject == IRI("http://e/c%20d") and second.object == Var("x")


def test_the_prologue_does_not_take_part_in_equality() -> None:
    a = parse("PREFIX a: <http://ex.org/> SELECT ?x { ?x a:p a:o }")
    b = parse("SELECT ?x { ?x <http://ex.org/p> <http://ex.org/o> }")
    assert a == b and hash(a) == hash(b)


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ('"plain"', Literal("plain")),
        ("'single'", Literal("single")),
        ('"chat"@fr', Literal("chat", lang="fr")),
        ('"colour"@en-GB', Literal("colour", lang="en-GB")),
        ('"5"^^xsd:integer', Literal("5", XSD_INTEGER)),
        ('"2009"^^<http://www.w3.org/2001/XMLSchema#gYear>', Literal("2009", XSD + "gYear")),
        ('"""long "quoted"\nline"""', Literal('long "quoted"\nline')),
        ("'''it's'''", Literal("it's")),
        (r'"tab\there \"q\" \\ \u00e9"', Literal('tab\there "q" \\ é')),
        ("42", Literal("42", XSD_INTEGER)),
        ("-7", Literal("-7", XSD_INTEGER)),
        ("+7", Literal("+7", XSD_INTEGER)),
        ("3.25", Literal("3.25", XSD_DECIMAL)),
        (".5", Literal(".5", XSD_DECIMAL)),
        ("1e3", Literal("1e3", XSD_DOUBLE)),
        ("-1.5E-2", Literal("-1.5E-2", XSD_DOUBLE)),
        ("true", Literal("true", XSD_BOOLEAN)),
        ("false", Literal("false", XSD_BOOLEAN)),
    ],
)
def test_literals(text: str, literal: Literal) -> None:
    (triple,) = triples(f"?s :p {text}")
    assert triple.object == literal


def test_xsd_prefix_must_be_declared_in_sparql11_but_not_for_virtuoso() -> None:
    with pytest.raises(SparqlSyntaxError) as caught:
        parse('SELECT ?x { ?x <http://p> "1"^^xsd:integer }')
    assert caught.value.line == 1 and caught.value.column == 32 and "xsd:" in caught.value.message
    assert parse('SELECT ?x { ?x <http://p> "1"^^xsd:integer }', "virtuoso").where.patterns[0].triples[
        0
    ].object == Literal("1", XSD_INTEGER)


def test_a_blank_nodes_and_nil() -> None:
    first, second, third = triples("?x a :T . _:b1 :p () . [] :q ?y")
    assert first.predicate == IRI(RDF_TYPE)
    assert second.subject == BlankNode("b1") and second.object == IRI(RDF_NIL)
    assert isinstance(third.subject, BlankNode) and third.subject != second.subject


def test_blank_node_property_lists_expand_into_triples() -> None:
    found = triples("?x :knows [ :name ?n ; :age 3 ] .")
    node = found[0].object
    assert isinstance(node, BlankNode)
    assert found == (
        TriplePattern(Var("x"), ex("knows"), node),
        TriplePattern(node, ex("name"), Var("n")),
        TriplePattern(node, ex("age"), Literal("3", XSD_INTEGER)),
    )


def test_anonymous_blank_nodes_never_take_a_label_the_query_uses() -> None:
    found = triples("_:b0 :p [ :q ?y ] .")
    assert found[0].object != BlankNode("b0")


def test_collections_expand_into_rdf_lists() -> None:
    found = triples("?x :list (1 ?y) .")
    head = found[0].object
    assert isinstance(head, BlankNode)
    rest = found[2].object
    assert found[1:] == (
        TriplePattern(head, IRI(RDF_FIRST), Literal("1", XSD_INTEGER)),
        TriplePattern(head, IRI(RDF_REST), rest),
        TriplePattern(rest, IRI(RDF_FIRST), Var("y")),
        TriplePattern(rest, IRI(RDF_REST), IRI(RDF_NIL)),
    )


def test_property_lists_and_object_lists() -> None:
    assert triples("?x :p ?a , ?b ; :q ?c ; .") == (
        TriplePattern(Var("x"), ex("p"), Var("a")),
        TriplePattern(Var("x"), ex("p"), Var("b")),
        TriplePattern(Var("x"), ex("q"), Var("c")),
    )


# ---------------------------------------------------------------- paths


def test_path_operators_and_their_precedence() -> None:
    (triple,) = triples("?x ^:a/:b* | !(:c|^:d) | (:e|:f)+ | !a ?y")
    assert triple.predicate == PathAlternative(
        (
            PathSequence((PathInverse(ex("a")), PathMod(ex("b"), "*"))),
            PathNegated((ex("c"), PathInverse(ex("d")))),
            PathMod(PathAlternative((ex("e"), ex("f"))), "+"),
            PathNegated((IRI(RDF_TYPE),)),
        )
    )


def test_path_modifier_question_mark_and_variable_objects() -> None:
    (triple,) = triples("?x :p? ?y")
    assert triple.predicate == PathMod(ex("p"), "?") and triple.object == Var("y")
    (grouped,) = triples("?x (:p) ?y")
    assert grouped.predicate == ex("p")


# ---------------------------------------------------------------- patterns


def test_group_elements_keep_their_order() -> None:
    elements = where(
        """?x :p ?y . OPTIONAL { ?y :q ?z } FILTER (?z > 1) . ?x :r ?w
           MINUS { ?x :s 1 } BIND (?w + 1 AS ?v) VALUES ?x { :a :b }
           { ?x :t 1 } UNION { ?x :t 2 } UNION { ?x :t 3 } GRAPH ?g { ?x :u ?u }
           SERVICE SILENT <http://s> { ?x :v 1 }"""
    )
    kinds = [type(e) for e in elements]
    assert kinds == [BGP, Optional, Filter, BGP, Minus, Bind, Values, Union, Graph, Service]
    assert len(elements[7].patterns) == 3
    assert elements[9].silent and elements[6] == Values((Var("x"),), ((ex("a"),), (ex("b"),)))


def test_nested_groups_and_sub_selects() -> None:
    (group,) = where("{ SELECT ?x WHERE { ?x :p ?y } GROUP BY ?x LIMIT 1 }")
    assert isinstance(group, GroupPattern)
    (sub,) = group.patterns
    assert isinstance(sub, SubSelect) and sub.query.limit == 1 and sub.query.group_by == (Var("x"),)


def test_values_full_form_with_undef() -> None:
    query = parse(P + "SELECT * { ?x :p ?y } VALUES (?x ?y) { (:a 1) (UNDEF :b) }")
    assert query.values == Values((Var("x"), Var("y")), ((ex("a"), Literal("1", XSD_INTEGER)), (None, ex("b"))))


def test_values_rows_must_match_the_variables() -> None:
    with pytest.raises(SparqlSyntaxError, match="VALUES row has 1 values for 2 variables"):
        parse("SELECT * { VALUES (?x ?y) { (<http://a>) } }")


# ---------------------------------------------------------------- expressions


def test_logical_and_comparison_precedence() -> None:
    assert expr("?a = 1 || ?b < 2 && !?c") == BinaryOp(
        "||",
        BinaryOp("=", Var("a"), Literal("1", XSD_INTEGER)),
        BinaryOp("&&", BinaryOp("<", Var("b"), Literal("2", XSD_INTEGER)), UnaryOp("!", Var("c"))),
    )


def test_arithmetic_precedence_and_associativity() -> None:
    one, two, three = (Literal(str(n), XSD_INTEGER) for n in (1, 2, 3))
    assert expr("?a - 1 - 2 * 3 > -?b") == BinaryOp(
        ">",
        BinaryOp("-", BinaryOp("-", Var("a"), one), BinaryOp("*", two, three)),
        UnaryOp("-", Var("b")),
    )


def test_a_signed_number_right_after_an_operand_is_added() -> None:
    # [116]: "?a -1" is ?a plus the literal -1; "?a -2 * 3" adds (-2 * 3)
    assert expr("?a -1 = 0") == BinaryOp(
        "=", BinaryOp("+", Var("a"), Literal("-1", XSD_INTEGER)), Literal("0", XSD_INTEGER)
    )
    assert expr("?a -2 * 3 = 0").left == BinaryOp(
        "+", Var("a"), BinaryOp("*", Literal("-2", XSD_INTEGER), Literal("3", XSD_INTEGER))
    )


def test_in_not_in_exists_and_not_exists() -> None:
    assert expr("?x IN (:a, :b)") == In(Var("x"), (ex("a"), ex("b")))
    assert expr("?x NOT IN ()") == NotIn(Var("x"), ())
    both = expr("NOT EXISTS { ?y :from ?s } || EXISTS { ?y :to ?t }")
    assert isinstance(both.left, NotExists) and isinstance(both.right, Exists)
    (filter_,) = where("FILTER NOT EXISTS { ?x :p ?y }")
    assert isinstance(filter_.expr, NotExists)


def test_builtin_calls_are_upper_case_and_casts_are_function_calls() -> None:
    assert expr("langMatches(LANG(?x), 'en')") == BuiltinCall(
        "LANGMATCHES", (BuiltinCall("LANG", (Var("x"),)), Literal("en"))
    )
    assert expr("isLiteral(?x) && bound(?y) && regex(?n, 'a', 'i')").right == BuiltinCall(
        "REGEX", (Var("n"), Literal("a"), Literal("i"))
    )
    assert expr("xsd:dateTime(?d) > NOW()") == BinaryOp(
        ">", FunctionCall(IRI(XSD + "dateTime"), (Var("d"),)), BuiltinCall("NOW", ())
    )
    assert expr("COALESCE(?a, 1) = CONCAT()").right == BuiltinCall("CONCAT", ())
    assert expr("IF(?a, 1, 2)") == BuiltinCall("IF", (Var("a"), Literal("1", XSD_INTEGER), Literal("2", XSD_INTEGER)))


def test_aggregates_group_by_having_order_limit_offset() -> None:
    query = parse(
        P
        + """SELECT ?x (COUNT(DISTINCT *) AS ?n) (GROUP_CONCAT(?y ; SEPARATOR = ", ") AS ?ys)
           (SAMPLE(?y) AS ?s)
           WHERE { ?x :p ?y } GROUP BY ?x (STR(?y) AS ?k) HAVING (COUNT(?y) > 1) (SUM(?y) < 9)
           ORDER BY DESC(?n) ASC(?x) STR(?x) ?s LIMIT 10 OFFSET 5"""
    )
    n, ys, sample = query.projection[1:]
    assert n == Alias(Aggregate("COUNT", None, distinct=True), Var("n"))
    assert ys.expr == Aggregate("GROUP_CONCAT", Var("y"), separator=", ")
    assert sample.expr == Aggregate("SAMPLE", Var("y"))
    assert query.group_by == (Var("x"), Alias(BuiltinCall("STR", (Var("y"),)), Var("k")))
    assert len(query.having) == 2
    assert query.order_by == (
        OrderCondition(Var("n"), descending=True),
        OrderCondition(Var("x")),
        OrderCondition(BuiltinCall("STR", (Var("x"),))),
        OrderCondition(Var("s")),
    )
    assert (query.limit, query.offset) == (10, 5)


# ---------------------------------------------------------------- query forms


def test_ask_construct_describe_and_datasets() -> None:
    ask = parse(P + "ASK FROM :g FROM NAMED :h { ?x :p 1 }")
    assert isinstance(ask, AskQuery) and ask.dataset == (
        DatasetClause(ex("g")),
        DatasetClause(ex("h"), named=True),
    )
    construct = parse(P + "CONSTRUCT { ?x :q ?y } WHERE { ?x :p ?y }")
    assert isinstance(construct, ConstructQuery) and construct.template == (TriplePattern(Var("x"), ex("q"), Var("y")),)
    short = parse(P + "CONSTRUCT WHERE { ?x :p ?y }")
    assert (
        short.template == (TriplePattern(Var("x"), ex("p"), Var("y")),)
        and short.where.patterns[0].triples == short.template
    )
    describe = parse(P + "DESCRIBE ?x :a WHERE { ?x :p 1 }")
    assert isinstance(describe, DescribeQuery) and describe.targets == (Var("x"), ex("a"))
    assert parse("DESCRIBE *").targets is None and parse("DESCRIBE <http://a>").where is None


def test_a_construct_template_cannot_hold_a_path() -> None:
    with pytest.raises(SparqlSyntaxError, match="property path"):
        parse(P + "CONSTRUCT { ?x :p/:q ?y } WHERE { ?x :p ?y }")


# ---------------------------------------------------------------- the Virtuoso reader


def test_or_and_keywords_only_for_virtuoso() -> None:
    text = "SELECT ?x { ?x <http://p> ?y FILTER (?y = 1 OR ?y = 2 and ?x != 3) }"
    query = parse(text, "virtuoso")
    assert query == parse(text.replace(" OR ", " || ").replace(" and ", " && "))
    with pytest.raises(SparqlSyntaxError) as caught:
        parse(text)
    assert (caught.value.line, caught.value.column, caught.value.token) == (1, 45, "OR")
    assert "virtuoso" in caught.value.message and caught.value.expected == ("||",)


def test_bare_having_only_for_virtuoso() -> None:
    text = "SELECT ?c { ?y <http://p> ?c } GROUP BY ?c\nHaving COUNT(?c) = 2"
    assert parse(text, "virtuoso").having == (BinaryOp("=", Aggregate("COUNT", Var("c")), Literal("2", XSD_INTEGER)),)
    with pytest.raises(SparqlSyntaxError) as caught:
        parse(text)
    assert (caught.value.line, caught.value.column) == (2, 1)
    assert parse(text.replace("COUNT(?c) = 2", "(COUNT(?c) = 2)")).having == parse(text, "virtuoso").having


def test_virtuoso_datetime_cast_means_xsd_datetime() -> None:
    query = parse('SELECT ?x { ?x ns:p ?d FILTER (xsd:datetime(?d) <= "2015"^^xsd:dateTime) }', "virtuoso")
    cast = query.where.patterns[1].expr.left
    assert cast == FunctionCall(IRI(XSD + "dateTime"), (Var("d"),))
    strict = parse(f"PREFIX xsd: <{XSD}> SELECT ?x {{ ?x <http://p> ?d FILTER (xsd:datetime(?d) > 1) }}")
    assert strict.where.patterns[1].expr.left.iri == IRI(XSD + "datetime")


def test_virtuoso_reads_date_only_datetimes_in_comparisons_as_midnight() -> None:
    text = """SELECT ?x { ?x ns:p "2009"^^xsd:dateTime ; ns:q ?d
              FILTER (?d >= "2015-08-10"^^xsd:dateTime && ?d < "2016"^^xsd:dateTime) }"""
    bgp, filter_ = parse(text, "virtuoso").where.patterns
    assert bgp.triples[0].object == Literal("2009", XSD + "dateTime")  # matched by identity: as written
    assert filter_.expr.left.right == Literal("2015-08-10T00:00:00", XSD + "dateTime")
    assert filter_.expr.right.right == Literal("2016-01-01T00:00:00", XSD + "dateTime")
    declared = f"PREFIX ns: <http://rdf.freebase.com/ns/>\nPREFIX xsd: <{XSD}>\n" + text
    assert parse(declared).where.patterns[1].expr.left.right == Literal("2015-08-10", XSD + "dateTime")


def test_virtuoso_knows_the_gold_prefixes() -> None:
    query = parse("SELECT ?x { ?x rdf:type rdfs:Class ; ns:a.b owl:Thing }", "virtuoso")
    assert {t.predicate.value for t in query.where.patterns[0].triples} == {
        RDF_TYPE,
        "http://rdf.freebase.com/ns/a.b",
    }


# ---------------------------------------------------------------- fragments


def test_parse_pattern_with_and_without_braces_and_extra_prefixes() -> None:
    group = parse_pattern(
        "?e1 ns:people.person.sibling_s ?cvt . ?cvt ns:a.b ?e2 .",
        prefixes={"ns": "http://rdf.freebase.com/ns/"},
    )
    assert isinstance(group, GroupPattern) and len(group.patterns[0].triples) == 2
    assert parse_pattern("{ ?x <http://p> ?y }") == parse_pattern("?x <http://p> ?y")


def test_parse_expression() -> None:
    assert parse_expression("?d >= 3") == BinaryOp(">=", Var("d"), Literal("3", XSD_INTEGER))


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "line", "column", "token"),
    [
        ("SELECT ?x WHERE {\n  ?x <http://p> ?y\n  FILTER (?y > )\n}", 3, 16, ")"),
        ("SELECT ?x WHERE { ?x <http://p> ?y ", 1, 36, None),
        ("SELECT ?x WHERE { ?x <http://p> 'unterminated }", 1, 33, "'"),
        ("SELEKT ?x { }", 1, 1, "S"),
        ("", 1, 1, None),
        ("SELECT ?x { ?x ?p ?o } LIMIT -1", 1, 30, "-1"),
    ],
)
def test_syntax_errors_carry_a_position(text: str, line: int, column: int, token: str | None) -> None:
    with pytest.raises(SparqlSyntaxError) as caught:
        parse(text)
    error = caught.value
    assert isinstance(error, Nl2SparqlError)
    assert (error.line, error.column, error.token) == (line, column, token)
    assert str(error).startswith(f"{line}:{column}: ")
    assert error.__cause__ is None and error.__suppress_context__  # no lark exception behind it


def test_expected_tokens_are_named_for_people() -> None:
    with pytest.raises(SparqlSyntaxError) as caught:
        parse("SELECT ?x WHERE { ?x <http://p> }")
    assert "a variable" in caught.value.expected and "an IRI <...>" in caught.value.expected
    assert caught.value.describe("q.rq").startswith("q.rq:1:33: unexpected '}'; expected ")


def test_deep_nesting_is_a_syntax_error_not_a_crash() -> None:
    deep = "SELECT ?x { FILTER (" + "(" * 3000 + "1" + ")" * 3000 + ") }"
    with pytest.raises(SparqlSyntaxError, match="nests too deeply"):
        parse(deep)


def test_unknown_dialect_is_a_clear_error() -> None:
    with pytest.raises(Nl2SparqlError, match="unknown SPARQL reader 'sql'; known: sparql11, virtuoso"):
        parse("ASK {}", "sql")


def test_non_text_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="must be str"):
        parse(b"ASK {}")  # type: ignore[arg-type]


# ---------------------------------------------------------------- the AST's generic API


def test_walk_find_transform_and_str() -> None:
    query = parse(P + "SELECT ?x { ?x :p ?y . OPTIONAL { ?y :q ?z } FILTER (?z > 1) }")
    assert [n.name for n in query.find_all(Var)] == ["x", "x", "y", "y", "z", "z"]
    renamed = query.transform(lambda n: Var("w") if n == Var("z") else n)
    assert "?z" not in str(renamed) and "?w" in str(renamed.where)
    assert renamed.where.patterns[0] is query.where.patterns[0]  # untouched subtrees are shared
    assert str(TriplePattern(Var("x"), IRI("http://rdf.freebase.com/ns/a.b"), Var("y"))) == "?x ns:a.b ?y ."
    assert GroupPattern.key == "group_pattern" and IRI.key == "iri" and BGP.key == "bgp"
