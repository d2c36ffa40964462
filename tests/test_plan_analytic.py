"""The analytic shapes of the plan language: several columns, groups with HAVING, optional
values, absence, ranking windows with an offset, and arithmetic.

For each shape: its sentence reads and writes back unchanged, misuse is refused by
``check_plan`` with the step's line, and on ``fixtures/own_kg/records.ttl`` a gold query of
that shape is written as a plan by the synthesiser (in the words of a bank built from the
store), compiled back through recall, and answers as the gold query does on Oxigraph.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nl2sparql.compiler import generate, parse
from nl2sparql.compiler.assemble import Recalled, resolve_plan
from nl2sparql.compiler.ast import AskQuery, NotExists, Optional, SelectQuery, SubSelect
from nl2sparql.compiler.lowering import LoweringOptions, lower, style
from nl2sparql.evaluation.reconstruction_report import answer_set
from nl2sparql.kg.store import Store, open_store
from nl2sparql.memory_bank.bank import MemoryBank
from nl2sparql.memory_bank.build_store import build_bank_from_store
from nl2sparql.memory_bank.embedder import default_embedder
from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import (
    Absent,
    Answer,
    Calculate,
    Compute,
    Count,
    Find,
    Literal,
    MakeSure,
    Plan,
    PlanError,
    PlanSyntaxError,
    Rank,
    Var,
    check_plan,
)
from nl2sparql.plan.writer import format_plan
from nl2sparql.reconstruction import PlanCompiler
from nl2sparql.training.synthesise import PlanSynthesiser, SynthesisError, query_entities

RECORDS = Path(__file__).parent / "fixtures" / "own_kg" / "records.ttl"
PREFIXES = "PREFIX rec: <http://example.org/records/schema#> PREFIX data: <http://example.org/records/id/> "
DATA = "http://example.org/records/id/"
BANDS = "Find the entity whose type is Band, assign it to ?x.\n"
BAND_CLASS = {"http://example.org/records/schema#Band": "Band"}

# -- the sentences -------------------------------------------------------------------------------

SENTENCES = {
    "columns": (
        BANDS + "Find the year that the band ?x is formed in, assign it to ?v1.\nThe answer is ?x and ?v1.\n",
        Answer(Var("x"), more=(Var("v1"),)),
    ),
    "grouped count": (
        BANDS + "Find the album recorded by the band ?x, assign it to ?v1.\n"
        "Count ?v1 for each ?x, assign it to ?n.\nThe answer is ?x and ?n.\n",
        Count(Var("v1"), Var("n"), (Var("x"),)),
    ),
    "grouped average": (
        BANDS + "Find the length of ?x, assign it to ?v1.\n"
        "Compute the average of ?v1 for each ?x, assign it to ?a.\nThe answer is ?x and ?a.\n",
        Compute("average", Var("v1"), Var("a"), (Var("x"),)),
    ),
    "two groups": (
        BANDS + "Find the genre of ?x, assign it to ?g.\nFind the member of ?x, assign it to ?m.\n"
        "Count ?m for each ?x and ?g, assign it to ?n.\nMake sure ?n is at least 4.\nThe answer is ?g.\n",
        Count(Var("m"), Var("n"), (Var("x"), Var("g"))),
    ),
    "optional": (
        BANDS + "Find the nickname of the band ?x, assign it to ?v1 if any.\nThe answer is ?x and ?v1.\n",
        Find("the nickname of the band ?x", (), Var("v1"), optional=True),
    ),
    "absence": (
        BANDS + "Make sure nothing is the nickname of the band ?x.\nThe answer is ?x.\n",
        Absent("the nickname of the band ?x", ()),
    ),
    "window": (
        "Find the album recorded by Queen, assign it to ?x.\nFind the length of ?x, assign it to ?v1.\n"
        "Rank ?x by ?v1 in descending order and keep results 3 to 4.\nThe answer is ?x.\n",
        Rank(Var("x"), Var("v1"), True, keep=2, skip=2),
    ),
    "sorted window": (
        "Find the album recorded by Queen, assign it to ?x.\nFind the length of ?x, assign it to ?v1.\n"
        "Sort the result based on ?v1 in ascending order and keep results 6 to 6.\nThe answer is ?x.\n",
        Rank(None, Var("v1"), False, keep=1, skip=5),
    ),
    "difference": (
        "Find the album recorded by Queen, assign it to ?v1.\nFind the release year of ?v1, assign it to ?v2.\n"
        "Compute the maximum of ?v2, assign it to ?a.\nCompute the minimum of ?v2, assign it to ?b.\n"
        "Compute ?a minus ?b, assign it to ?x.\nThe answer is ?x.\n",
        Calculate("minus", Var("a"), Var("b"), Var("x")),
    ),
    "percentage": (
        "Find the album recorded by Queen, assign it to ?x.\nFind the length of ?x, assign it to ?l.\n"
        "Find the release year of ?x, assign it to ?y.\n"
        "Compute ?l as a percentage of ?y, assign it to ?p.\nThe answer is ?x and ?p.\n",
        Calculate("as a percentage of", Var("l"), Var("y"), Var("p")),
    ),
}


@pytest.mark.parametrize("name", list(SENTENCES))
def test_each_shape_reads_and_writes_back_unchanged(name: str) -> None:
    text, step = SENTENCES[name]
    plan = parse_plan(text)
    assert step in plan.steps
    assert format_plan(plan) == text
    assert parse_plan(format_plan(plan)) == plan


@pytest.mark.parametrize("op", ["plus", "minus", "times", "divided by", "as a percentage of"])
def test_every_arithmetic_word_round_trips(op: str) -> None:
    text = (
        "Find the a of Queen, assign it to ?a.\nFind the b of ?a, assign it to ?b.\n"
        f"Compute ?a {op} ?b, assign it to ?c.\nThe answer is ?c.\n"
    )
    assert parse_plan(text).steps[2] == Calculate(op, Var("a"), Var("b"), Var("c"))
    assert format_plan(parse_plan(text)) == text


def test_the_old_sentences_read_as_before() -> None:
    text = (
        "Find the album recorded by Queen, assign it to ?x.\nFind the length of ?x, assign it to ?v1.\n"
        "Rank ?x by ?v1 in descending order and keep the first 2.\nCount ?x, assign it to ?n.\n"
        "The answer is ?n.\n"
    )
    plan = parse_plan(text)
    assert plan.steps[2] == Rank(Var("x"), Var("v1"), True, 2)
    assert plan.steps[3] == Count(Var("x"), Var("n"))
    assert plan.steps[4] == Answer(Var("n"))
    assert format_plan(plan) == text


def test_a_window_from_the_first_result_is_written_as_the_first_n() -> None:
    plan = parse_plan(SENTENCES["window"][0].replace("results 3 to 4", "results 1 to 5"))
    assert plan.steps[2] == Rank(Var("x"), Var("v1"), True, keep=5)
    assert "keep the first 5." in format_plan(plan)


@pytest.mark.parametrize(
    ("window", "message"),
    [("results 4 to 3", "second number must be at least the first"), ("results 0 to 3", "expected a number >= 1")],
)
def test_an_empty_window_is_a_syntax_error(window: str, message: str) -> None:
    with pytest.raises(PlanSyntaxError, match=message) as error:
        parse_plan(SENTENCES["window"][0].replace("results 3 to 4", window))
    assert error.value.line == 3


# -- misuse ---------------------------------------------------------------------------------------

FIND_V1 = "Find the album recorded by the band ?x, assign it to ?v1.\n"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (BANDS + "Find the nickname of ?x, assign it to ?x if any.\nThe answer is ?x.\n", 2, "input and the output"),
        (
            BANDS + FIND_V1 + "Find the nickname of ?x, assign it to ?v1 if any.\nThe answer is ?x.\n",
            3,
            "optional Find",
        ),
        (
            BANDS + "Find the nickname of ?x, assign it to ?v1 if any.\n" + FIND_V1 + "The answer is ?x.\n",
            3,
            "assigned by an optional Find",
        ),
        (BANDS + FIND_V1 + "Count ?v1 for each ?v1, assign it to ?n.\nThe answer is ?n.\n", 3, "both what is counted"),
        (BANDS + FIND_V1 + "Count ?v1 for each ?g, assign it to ?n.\nThe answer is ?n.\n", 3, "?g is used before"),
        (BANDS + FIND_V1 + "Count ?v1 for each ?x and ?x, assign it to ?n.\nThe answer is ?n.\n", 3, "named twice"),
        (BANDS + FIND_V1 + "Compute ?v1 minus ?v1, assign it to ?d.\nThe answer is ?d.\n", 3, "with itself"),
        (BANDS + FIND_V1 + "Compute ?v1 minus ?x, assign it to ?x.\nThe answer is ?x.\n", 3, "needs a new variable"),
        (BANDS + FIND_V1 + "Compute ?v1 minus ?d, assign it to ?e.\nThe answer is ?e.\n", 3, "?d is used before"),
        (BANDS + "Make sure nothing is the nickname of ?y.\nThe answer is ?x.\n", 2, "?y is used before"),
        (BANDS + "Make sure nothing is the nickname of Queen.\nThe answer is ?x.\n", 2, "names no variable"),
        (BANDS + FIND_V1 + "The answer is ?x and ?v1 and ?x.\n", 3, "names a variable twice"),
        (BANDS + "The answer is ?x and ?v9.\n", 2, "?v9 is used before"),
    ],
)
def test_misuse_is_refused_with_its_line(text: str, line: int, message: str) -> None:
    with pytest.raises(PlanError, match=message.replace("?", r"\?")) as error:
        parse_plan(text)
    assert error.value.line == line


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (Rank(Var("x"), Var("v1"), True, keep=1, skip=-1), "cannot skip fewer than 0"),
        (Calculate("modulo", Var("x"), Var("v1"), Var("d")), "unknown arithmetic"),
        (Answer(Var("x"), exists=True, more=(Var("v1"),)), "about one variable"),
    ],
)
def test_hand_built_misuse_is_refused(step: object, message: str) -> None:
    steps = (Find("the band", (), Var("x")), Find("the year of", (Var("x"),), Var("v1")), step)
    if not isinstance(step, Answer):
        steps = (*steps, Answer(Var("x")))
    with pytest.raises(PlanError, match=message):
        check_plan(Plan(None, steps))  # type: ignore[arg-type]


# -- from gold SPARQL to answers on a store -------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store("oxigraph", path=tmp_path_factory.mktemp("analytic-store"))
    store.load(RECORDS, progress=False)
    return store


@pytest.fixture(scope="module")
def bank(store: Store) -> MemoryBank:
    return build_bank_from_store(store, embedder=default_embedder(), source="records")[0]


GOLD = {
    "each band's name and formation year": (
        "SELECT ?b ?y WHERE { ?b a rec:Band . ?b rec:formedInYear ?y }",
        Answer(Var("x"), more=(Var("v1"),)),
    ),
    "for each band, the number of albums": (
        "SELECT ?b (COUNT(?a) AS ?n) WHERE { ?b a rec:Band . ?a rec:recordedBy ?b } GROUP BY ?b",
        Count(Var("v1"), Var("v2"), (Var("x"),)),
    ),
    "bands with more than 3 members": (
        "SELECT ?b WHERE { ?b a rec:Band . ?b rec:hasMember ?m } GROUP BY ?b HAVING (COUNT(?m) > 3)",
        MakeSure(Var("v2"), "greater than", Literal("3", "number")),
    ),
    "the three bands with the longest albums on average": (
        "SELECT ?b (AVG(?l) AS ?avg) WHERE { ?b a rec:Band . ?a rec:recordedBy ?b . ?a rec:lengthInMinutes ?l }"
        " GROUP BY ?b ORDER BY DESC(?avg) LIMIT 3",
        Compute("average", Var("v2"), Var("v3"), (Var("x"),)),
    ),
    "bands with no nickname": (
        "SELECT ?b WHERE { ?b a rec:Band FILTER NOT EXISTS { ?b rec:nickname ?n } }",
        Absent("the nickname of the band ?x", ()),
    ),
    "bands with no nickname (MINUS)": (
        "SELECT ?b WHERE { ?b a rec:Band MINUS { ?b rec:nickname ?n } }",
        Absent("the nickname of the band ?x", ()),
    ),
    "each band and its nickname, if any": (
        "SELECT ?b ?n WHERE { ?b a rec:Band OPTIONAL { ?b rec:nickname ?n } }",
        Find("the nickname of the band ?x", (), Var("v1"), optional=True),
    ),
    "Queen's albums ranked 3rd to 4th by length": (
        "SELECT ?a WHERE { ?a rec:recordedBy data:QueenB . ?a rec:lengthInMinutes ?l }"
        " ORDER BY DESC(?l) LIMIT 2 OFFSET 2",
        Rank(Var("x"), Var("v1"), True, keep=2, skip=2),
    ),
    "the years between Queen's first and last album": (
        "SELECT ((MAX(?y) - MIN(?y)) AS ?d) WHERE { ?a rec:recordedBy data:QueenB . ?a rec:releaseYear ?y }",
        Calculate("minus", Var("v3"), Var("v4"), Var("x")),
    ),
    "each Queen album's years after the band was formed": (
        "SELECT ?a ?d WHERE { data:QueenB rec:formedInYear ?f . ?a rec:recordedBy data:QueenB ."
        " ?a rec:releaseYear ?y . BIND(?y - ?f AS ?d) }",
        Calculate("minus", Var("v2"), Var("v1"), Var("v3")),
    ),
    "each Queen album's length as a percentage of the longest": (
        "SELECT ?a ((100 * ?l / ?y) AS ?p) WHERE { ?a rec:recordedBy data:QueenB . ?a rec:lengthInMinutes ?l ."
        " ?a rec:releaseYear ?y }",
        None,
    ),
    "is there a band without a nickname": (
        "ASK { ?b a rec:Band FILTER NOT EXISTS { ?b rec:nickname ?n } }",
        Answer(Var("x"), exists=True),
    ),
}


def _synthesise(bank: MemoryBank, body: str) -> Plan:
    return PlanSynthesiser.for_bank(bank).synthesise(PREFIXES + body, None).plan


@pytest.mark.parametrize("question", list(GOLD))
def test_gold_sparql_is_rebuilt_through_the_new_steps(store: Store, bank: MemoryBank, question: str) -> None:
    body, step = GOLD[question]
    gold = parse(PREFIXES + body, "virtuoso")
    plan = _synthesise(bank, body)
    text = format_plan(plan)
    assert parse_plan(text) == plan
    if step is not None:
        assert step in plan.steps, text
    compiled = PlanCompiler(bank).compile(plan, query_entities(gold)[0], store=store)
    assert compiled.query is not None, compiled.reconstruction.error
    expected = answer_set(store, gold, timeout=10)
    assert expected, question
    assert answer_set(store, compiled.query, timeout=10) == expected, (text, compiled.sparql)
    if not isinstance(gold, AskQuery):
        got = {a.removeprefix(DATA) for a in compiled.answers or ()}  # every answer column
        assert got >= {a.removeprefix(DATA) for a in expected if a}, compiled.answers


def test_the_lowering_writes_the_sparql_of_each_shape(store: Store, bank: MemoryBank) -> None:
    compiler = PlanCompiler(bank)

    def query(body: str) -> SelectQuery:
        gold = parse(PREFIXES + body, "virtuoso")
        compiled = compiler.compile(_synthesise(bank, body), query_entities(gold)[0])
        assert isinstance(compiled.query, SelectQuery), compiled.reconstruction.error
        return compiled.query

    having = query(GOLD["bands with more than 3 members"][0])
    assert [v.name for v in having.group_by] == ["x"] and having.having  # type: ignore[union-attr]
    assert any(query(GOLD["bands with no nickname"][0]).find_all(NotExists))
    assert any(query(GOLD["each band and its nickname, if any"][0]).find_all(Optional))
    window = query(GOLD["Queen's albums ranked 3rd to 4th by length"][0])
    assert (window.limit, window.offset) == (2, 2)


def test_a_yes_no_answer_on_groups_asks_with_having(store: Store, bank: MemoryBank) -> None:
    plan = (
        BANDS + "Find the member of the band ?x, assign it to ?v1.\nCount ?v1 for each ?x, assign it to ?n.\n"
        "Make sure ?n is greater than 3.\nThe answer is whether ?x exists.\n"
    )
    compiled = PlanCompiler(bank).compile(plan, BAND_CLASS, store=store)
    assert isinstance(compiled.query, AskQuery)
    assert any(sub.query.having for sub in compiled.query.find_all(SubSelect))
    assert compiled.answers == ("true",)


def test_an_answer_column_that_is_no_group_is_refused(store: Store, bank: MemoryBank) -> None:
    plan = BANDS + FIND_V1 + "Count ?v1 for each ?x, assign it to ?n.\nThe answer is ?v1 and ?n.\n"
    compiled = PlanCompiler(bank).compile(plan, BAND_CLASS, store=store)
    assert compiled.query is None
    assert "neither computed nor a group" in (compiled.reconstruction.error or "")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "SELECT ?b ?k WHERE { ?b a rec:Band OPTIONAL { ?b rec:hasMember ?m . ?m rec:bornIn ?k } }",
            "holds one statement",
        ),
        (
            "SELECT ?b WHERE { ?b a rec:Band FILTER NOT EXISTS { ?b rec:hasGenre data:RockG } }",
            "NOT EXISTS / MINUS has a plan step only",
        ),
        ("SELECT ?b WHERE { ?b a rec:Band FILTER NOT EXISTS { ?m rec:bornIn ?k } }", "about a plan variable"),
        (
            "SELECT ?b WHERE { ?b a rec:Band . ?b rec:hasGenre ?g OPTIONAL { ?b rec:hasGenre ?g } }",
            "binds no variable of its own",
        ),
        ("SELECT ?b (COUNT(?m) AS ?n) WHERE { ?b rec:hasMember ?m }", "without GROUP BY"),
        ("SELECT ?b WHERE { ?b rec:hasMember ?m } GROUP BY ?b HAVING (COUNT(?b) = 2)", "of the group variable"),
        ("SELECT ?b WHERE { ?b rec:hasMember ?m } GROUP BY ?b HAVING (?b != data:QueenB)", "has no plan step"),
        ("SELECT ?a ((?l * ?l * 2) AS ?q) WHERE { ?a rec:lengthInMinutes ?l }", "has no plan step"),
    ],
)
def test_shapes_without_a_plan_say_why(bank: MemoryBank, body: str, message: str) -> None:
    with pytest.raises(SynthesisError, match=message):
        _synthesise(bank, body)


# -- the lowering alone, with statements given by hand ---------------------------------------------

REC = "http://example.org/records/schema#"
#: a statement for each step template, as a bank built from records.ttl holds them
STATEMENTS = {
    "the entity whose type is ?e1": "?e2 a ?e1 .",
    "the album recorded by the band ?e1": f"?e2 <{REC}recordedBy> ?e1 .",
    "the member of the band ?e1": f"?e1 <{REC}hasMember> ?e2 .",
    "the nickname of the band ?e1": f"?e1 <{REC}nickname> ?e2 .",
    "the length of ?e1": f"?e1 <{REC}lengthInMinutes> ?e2 .",
    "the release year of ?e1": f"?e1 <{REC}releaseYear> ?e2 .",
}


def _lowered(text: str) -> str:
    """``text`` lowered with :data:`STATEMENTS` chosen for its steps (no bank, no recall)."""
    resolved = resolve_plan(parse_plan(text), BAND_CLASS)
    chosen = {}
    for index, find in resolved.finds.items():
        slots = tuple(f"?e{k}" for k in range(1, len(find.inputs) + 1))
        output = f"?e{len(slots) + 1}"
        sparql = STATEMENTS[find.template]
        chosen[index] = Recalled(f"s{index}", "graph", sparql, slots, output, f"{output} is {find.template}")
    query = lower(resolved, chosen, options=LoweringOptions(style=style("plain"), language=None))
    return " ".join(generate(query, "full-iri").replace(REC, "rec:").split())


@pytest.mark.parametrize(
    ("steps", "sparql"),
    [
        (
            "Find the member of the band ?x, assign it to ?m.\nCount ?m for each ?x, assign it to ?n.\n"
            "Make sure ?n is at least 4.\nThe answer is ?x and ?n.\n",
            "SELECT DISTINCT ?x (COUNT(DISTINCT ?m) AS ?n) WHERE { ?x a <rec:Band> . ?x <rec:hasMember> ?m . }"
            " GROUP BY ?x HAVING (COUNT(DISTINCT ?m) >= 4)",
        ),
        (
            "Find the member of the band ?x, assign it to ?m.\nCount ?m for each ?x, assign it to ?n.\n"
            "Rank ?x by ?n in descending order and keep results 2 to 3.\nThe answer is ?x.\n",
            "SELECT DISTINCT ?x WHERE { { SELECT ?x (COUNT(DISTINCT ?m) AS ?n) WHERE { ?x a <rec:Band> ."
            " ?x <rec:hasMember> ?m . } GROUP BY ?x } } ORDER BY DESC(?n) LIMIT 2 OFFSET 1",
        ),
        (
            "Find the nickname of the band ?x, assign it to ?k if any.\nThe answer is ?x and ?k.\n",
            "SELECT DISTINCT ?x ?k WHERE { ?x a <rec:Band> . OPTIONAL { ?x <rec:nickname> ?k . } }",
        ),
        (
            "Make sure nothing is the nickname of the band ?x.\nThe answer is ?x.\n",
            "SELECT DISTINCT ?x WHERE { ?x a <rec:Band> . FILTER (NOT EXISTS { ?x <rec:nickname> ?none0 . }) }",
        ),
        (
            "Find the album recorded by the band ?x, assign it to ?a.\nFind the release year of ?a, assign it to ?y.\n"
            "Compute the maximum of ?y for each ?x, assign it to ?last.\n"
            "Compute the minimum of ?y for each ?x, assign it to ?first.\n"
            "Compute ?last minus ?first, assign it to ?d.\nThe answer is ?x and ?d.\n",
            "SELECT DISTINCT ?x ?d WHERE { { SELECT ?x (MAX(?y) AS ?last) (MIN(?y) AS ?first) WHERE {"
            " ?x a <rec:Band> . ?a <rec:recordedBy> ?x . ?a <rec:releaseYear> ?y . } GROUP BY ?x }"
            " BIND (?last - ?first AS ?d) }",
        ),
    ],
)
def test_the_lowering_of_each_shape(steps: str, sparql: str) -> None:
    assert _lowered(BANDS + steps) == sparql
