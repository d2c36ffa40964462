"""Statements from a Freebase schema alone, on a small ontology the test writes in the release's format."""

from __future__ import annotations

from pathlib import Path

import pytest

from nl2sparql.cli import main
from nl2sparql.kg.freebase_schema import FreebaseSchema
from nl2sparql.memory_bank.bank_file import load_bank
from nl2sparql.memory_bank.describe import TemplateDescriber
from nl2sparql.memory_bank.schema_statements import cvt_links, schema_statements

# fb_roles: domain relation range. people.marriage is a CVT (not under common.topic);
# measurement_unit.dated_integer is a hub CVT that many relations lead into.
ROLES = """people.person people.person.spouse_s people.marriage
people.marriage people.marriage.spouse people.person
people.marriage people.marriage.location_of_ceremony location.location
people.marriage people.marriage.from type.datetime
people.person people.person.place_of_birth location.location
location.location location.location.people_born_here people.person
people.person people.person.height_meters type.float
freebase.type_hints freebase.type_hints.mediator type.boolean
measurement_unit.dated_integer measurement_unit.dated_integer.number type.int
""" + "".join(f"location.location location.location.count_{i} measurement_unit.dated_integer\n" for i in range(20))
TYPES = """people.person meta.subclassOf common.topic
location.location meta.subclassOf common.topic
people.marriage meta.subclassOf type.object
measurement_unit.dated_integer meta.subclassOf type.object
"""
REVERSE = """people.person.spouse_s people.marriage.spouse
people.person.place_of_birth location.location.people_born_here
"""


@pytest.fixture()
def ontology(tmp_path: Path) -> Path:
    folder = tmp_path / "freebase-ontology"
    folder.mkdir()
    for name, text in (("fb_roles", ROLES), ("fb_types", TYPES), ("reverse_properties", REVERSE)):
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _by_sparql(schema: FreebaseSchema) -> dict[str, object]:
    return {s.sparql: s for s in schema_statements(schema)}


def test_a_cvt_type_yields_structure_two_and_three_statements(ontology: Path) -> None:
    schema = FreebaseSchema.from_folder(ontology)
    made = _by_sparql(schema)
    through = "?e1 ns:people.person.spouse_s ?cvt . ?cvt ns:people.marriage.location_of_ceremony ?e2 ."
    assert made[through].structure == 2 and made[through].support == 0
    # A link and its reverse through the CVT are the symmetric relation: the spouse of a person.
    assert "?e1 ns:people.person.spouse_s ?cvt . ?cvt ns:people.marriage.spouse ?e2 ." in made
    three = [s for s in made.values() if s.structure == 3 and "people.marriage.from" in s.sparql]
    assert three and all(s.output == "?e3" for s in three if s.sparql.endswith("people.marriage.from ?e3 ."))
    # A literal (the start date) is never an input.
    assert not [s for s in made.values() if s.sparql.startswith("?cvt ns:people.marriage.from ?e1")]


def test_structure_one_statements_and_skipped_domains(ontology: Path) -> None:
    made = _by_sparql(FreebaseSchema.from_folder(ontology))
    assert "?e1 ns:people.person.place_of_birth ?e2 ." in made
    assert "?e2 ns:people.person.place_of_birth ?e1 ." in made  # the backward reading of an entity relation
    assert "?e1 ns:people.person.height_meters ?e2 ." in made
    assert "?e2 ns:people.person.height_meters ?e1 ." not in made  # values are never inputs
    assert not [k for k in made if "freebase.type_hints" in k]  # Freebase's own bookkeeping


def test_a_hub_cvt_is_read_once_per_relation_into_it(ontology: Path) -> None:
    schema = FreebaseSchema.from_folder(ontology)
    hub = cvt_links(schema)["measurement_unit.dated_integer"]
    assert len(hub.incoming) == 20 and len(hub.signatures()) == 20
    made = _by_sparql(schema)
    assert "?e1 ns:location.location.count_3 ?cvt . ?cvt ns:measurement_unit.dated_integer.number ?e2 ." in made
    # Two relations into the hub never meet on one node.
    assert not [k for k in made if "count_3 ?cvt" in k and "count_4" in k]
    describer = TemplateDescriber(schema)
    stmt = made["?e1 ns:location.location.count_3 ?cvt . ?cvt ns:measurement_unit.dated_integer.number ?e2 ."]
    assert describer.describe(stmt) == "?e2 is the number of the count 3 of the location ?e1"  # type: ignore[arg-type]


def test_bank_build_from_schema_recalls_a_relation_no_query_used(ontology: Path, tmp_path: Path) -> None:
    out = tmp_path / "schema.nl2sq"
    assert main(["bank", "build", "--from-schema", str(ontology), "--out", str(out)]) == 0
    bank = load_bank(out)
    assert bank.meta.sources == ("freebase-schema",) and not bank.constraints
    best = bank.recall("the location of ceremony of the marriage of the person Ada Lovelace").candidates[0]
    # Freebase states the person-marriage link in both directions; either reading is the same path.
    assert best.entry.sparql in {
        "?e1 ns:people.person.spouse_s ?cvt . ?cvt ns:people.marriage.location_of_ceremony ?e2 .",
        "?cvt ns:people.marriage.spouse ?e1 . ?cvt ns:people.marriage.location_of_ceremony ?e2 .",
    }
