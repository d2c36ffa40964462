"""A step whose value the plan compares with a number, a date or an entity is reconstructed
with a statement that can give such a value, judged by the schema's ranges, and run on a
small Freebase-shaped graph this module builds (a CVT with a rate and a date, as Freebase's
dated percentages have)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import store_of

from nl2sparql.compiler import generate
from nl2sparql.compiler.assemble import Recalled, resolve_plan
from nl2sparql.compiler.ast import XSD_DATETIME
from nl2sparql.compiler.lowering import LoweringOptions
from nl2sparql.compiler.lowering.options import XSD_FLOAT
from nl2sparql.compiler.orderings import ranked
from nl2sparql.compiler.orderings.value_fit import compared_kinds, output_kind, value_fit
from nl2sparql.compiler.reconstruct import reconstruct
from nl2sparql.kg.oxigraph_store import OxigraphStore
from nl2sparql.plan.reader import parse_plan

NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
ENTITIES = {"m.lang": "Portuguese Language"}
RANGES = {
    "location.statistical_region.cpi_inflation_rate": "measurement_unit.dated_percentage",
    "measurement_unit.dated_percentage.rate": "type.float",
    "measurement_unit.dated_percentage.date": "type.datetime",
    "language.human_language.countries_spoken_in": "location.country",
}
VALUE_TYPES = {"type.float": XSD_FLOAT, "type.datetime": XSD_DATETIME}
SCHEMA = LoweringOptions(
    value_type=lambda p: VALUE_TYPES.get(RANGES.get(p.removeprefix(NS), "")),
    range_of=lambda p: RANGES.get(p.removeprefix(NS)),
)
SPOKEN = Recalled(
    "s-spoken",
    "graph",
    "?e1 ns:language.human_language.countries_spoken_in ?e2 .",
    ("?e1",),
    "?e2",
    "?e2 is the country that the human language ?e1 is countries spoken in",
    0.95,
)
# recall ranks the date first: the plan's sentence names the date
DATE = Recalled(
    "s-date",
    "graph",
    "?e1 ns:location.statistical_region.cpi_inflation_rate ?cvt . ?cvt ns:measurement_unit.dated_percentage.date ?e2 .",
    ("?e1",),
    "?e2",
    "?e2 is the date of the cpi inflation rate of the statistical region ?e1",
    0.97,
)
RATE = Recalled(
    "s-rate",
    "graph",
    "?e1 ns:location.statistical_region.cpi_inflation_rate ?cvt . ?cvt ns:measurement_unit.dated_percentage.rate ?e2 .",
    ("?e1",),
    "?e2",
    "?e2 is the rate of the cpi inflation rate of the statistical region ?e1",
    0.90,
)
PLAN = """Type: conjunction
Find the country that the human language Portuguese Language is countries spoken in, assign it to ?x.
Find the date of the cpi inflation rate of the statistical region ?x, assign it to ?v1.
Make sure ?v1 is {value}.
Make sure ?x is not Portuguese Language.
The answer is ?x.
"""


def _graph() -> str:
    def t(s: str, p: str, o: str) -> str:
        return f"<{NS}{s}> <{NS}{p}> {o} ."

    lines = [t("m.lang", "language.human_language.countries_spoken_in", f"<{NS}m.{c}>") for c in ("br", "pt")]
    for country, rate, date in (("br", "6.2", "2010"), ("pt", "-1.61", "2009")):
        lines.append(t(f"m.{country}", "location.statistical_region.cpi_inflation_rate", f"<{NS}m.cpi_{country}>"))
        lines.append(t(f"m.cpi_{country}", "measurement_unit.dated_percentage.rate", f'"{rate}"^^<{XSD}float>'))
        lines.append(t(f"m.cpi_{country}", "measurement_unit.dated_percentage.date", f'"{date}"^^<{XSD}gYear>'))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphStore]:
    built = store_of(tmp_path_factory.mktemp("value_fit"), _graph())
    yield built
    built.close()


def _reconstruct(value: str, options: LoweringOptions | None, store: OxigraphStore | None = None):  # noqa: ANN202
    resolved = resolve_plan(parse_plan(PLAN.format(value=value)), ENTITIES)
    recalled = {index: (SPOKEN,) if index == 0 else (DATE, RATE) for index in resolved.finds}

    def execute(query: object) -> list[object]:
        assert store is not None
        return store.select(generate(query, "full-iri")).rows

    return reconstruct(resolved, recalled, options=options, execute=execute if store else None)


def test_a_number_compared_with_a_step_picks_the_statement_that_gives_numbers(store: OxigraphStore) -> None:
    result = _reconstruct('"-1.61"', SCHEMA, store)
    assert result.ok, result.error
    assert "dated_percentage.rate" in result.sparql and "dated_percentage.date" not in result.sparql
    assert [row["x"].value.removeprefix(NS) for row in result.rows] == ["m.pt"]
    assert result.attempts[0].choices == ((0, "s-spoken"), (1, "s-rate"))  # the first query, not a repair


def test_a_date_compared_with_the_step_keeps_the_date_statement() -> None:
    result = _reconstruct("2009-05-01", SCHEMA)
    assert result.attempts[0].choices == ((0, "s-spoken"), (1, "s-date"))


def test_without_a_schema_recall_order_stands() -> None:
    result = _reconstruct('"-1.61"', LoweringOptions())
    assert result.attempts[0].choices == ((0, "s-spoken"), (1, "s-date"))


def test_is_not_says_nothing_of_the_kind() -> None:
    plan = parse_plan(
        "Find the date of the cpi inflation rate of the statistical region Portuguese Language, assign it to ?x.\n"
        "Make sure ?x is not Portuguese Language.\nThe answer is ?x.\n"
    )
    resolved = resolve_plan(plan, ENTITIES)
    assert compared_kinds(resolved, "x") == []
    assert value_fit(resolved, 0, [DATE, RATE], SCHEMA) == [False, False]


def test_a_misfit_goes_last_demoted_with_its_score_kept() -> None:
    resolved = resolve_plan(parse_plan(PLAN.format(value="12.5")), ENTITIES)
    assert value_fit(resolved, 1, [DATE, RATE], SCHEMA) == [True, False]
    moved = ranked(resolved, 1, [DATE, RATE], SCHEMA, per_step=5)
    assert [(r.statement.id, r.demotions[0]) for r in moved] == [("s-rate", False), ("s-date", True)]
    assert [r.statement for r in moved] == [RATE, DATE]  # recall's scores stand; the demotion orders


def test_value_fit_chooses_which_statements_a_step_tries() -> None:
    resolved = resolve_plan(parse_plan(PLAN.format(value="12.5")), ENTITIES)
    assert [r.statement.id for r in ranked(resolved, 1, [DATE, RATE], SCHEMA, per_step=1)] == ["s-rate"]


def test_an_entity_compared_with_the_step_rules_out_values() -> None:
    plan = parse_plan(
        "Find the country that the human language Portuguese Language is countries spoken in, assign it to ?x.\n"
        "Make sure ?x is Portuguese Language.\nThe answer is ?x.\n"
    )
    resolved = resolve_plan(plan, ENTITIES)
    assert compared_kinds(resolved, "x") == [frozenset({"entity"})]
    assert value_fit(resolved, 0, [DATE, SPOKEN], SCHEMA) == [True, False]
    assert ranked(resolved, 0, [DATE, SPOKEN], SCHEMA, per_step=5)[0].statement is SPOKEN


def test_output_kinds_by_the_schema() -> None:
    assert output_kind(RATE, SCHEMA) == "number"
    assert output_kind(DATE, SCHEMA) == "date"
    assert output_kind(SPOKEN, SCHEMA) == "entity"
    assert output_kind(RATE, LoweringOptions()) is None
    subject_output = Recalled(
        "s-rev", "graph", "?e2 ns:language.human_language.countries_spoken_in ?e1 .", ("?e1",), "?e2"
    )
    assert output_kind(subject_output, SCHEMA) == "entity"


def test_a_bare_year_may_be_a_number_or_a_date() -> None:
    resolved = resolve_plan(parse_plan(PLAN.format(value="1997")), ENTITIES)
    assert compared_kinds(resolved, "v1") == [frozenset({"number", "date"})]
    assert value_fit(resolved, 1, [DATE, RATE], SCHEMA) == [False, False]
