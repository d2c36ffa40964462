"""The Freebase schema reader: CVT judgement of types, domain / range / reverse of predicates."""

from __future__ import annotations

from pathlib import Path

import pytest

from nl2sparql.kg.freebase_schema import FreebaseSchema, SchemaError, load_schema, local_name


@pytest.fixture(scope="module")
def schema() -> FreebaseSchema:
    return load_schema()


@pytest.mark.parametrize(
    "type_id",
    [
        "people.marriage",
        "film.performance",
        "government.government_position_held",
        "people.sibling_relationship",
    ],
)
def test_mediator_types_are_cvt(schema: FreebaseSchema, type_id: str) -> None:
    assert schema.is_cvt_type(type_id) is True


@pytest.mark.parametrize("type_id", ["people.person", "film.film", "location.country", "common.topic"])
def test_named_types_are_not_cvt(schema: FreebaseSchema, type_id: str) -> None:
    assert schema.is_cvt_type(type_id) is False


def test_known_exception_and_value_types(schema: FreebaseSchema) -> None:
    # fb_types lists location.mailing_address under common.topic; it is a mediator.
    assert "common.topic" in schema.parents("location.mailing_address")
    assert schema.is_cvt_type("location.mailing_address") is True
    assert schema.is_cvt_type("type.datetime") is False
    assert schema.is_cvt_type("no.such_type") is None


def test_predicate_roles_and_reverse(schema: FreebaseSchema) -> None:
    assert schema.domain("ns:people.person.sibling_s") == "people.person"
    assert schema.range("http://rdf.freebase.com/ns/people.person.sibling_s") == "people.sibling_relationship"
    assert schema.reverse("people.person.sibling_s") == "people.sibling_relationship.sibling"
    assert schema.reverse("location.country.currency_used") == "finance.currency.countries_used"
    assert schema.leads_into_cvt("people.person.sibling_s")
    assert schema.leads_out_of_cvt("people.sibling_relationship.sibling")
    assert not schema.leads_into_cvt("people.person.gender")
    assert schema.domain("no.such.predicate") is None


def test_glued_release_lines_are_split(schema: FreebaseSchema) -> None:
    # Two lines of each file lost their newline in the GrailQA release.
    assert schema.role("base.cyclocross.bicycle_wheel.holes").range == "type.int"
    assert schema.domain("base.litcentral.financial_support_provider.financing_government_agency") == (
        "base.litcentral.financial_support_provider"
    )
    assert "common.topic" in schema.parents("base.digitalformatpolicies.significant_characteristics")
    assert "common.topic" in schema.parents("government.government_office_category")


def test_load_is_cached(schema: FreebaseSchema) -> None:
    assert load_schema() is schema
    assert len(schema) > 19_000


def test_local_name_forms() -> None:
    assert local_name("<http://rdf.freebase.com/ns/film.film.genre>") == "film.film.genre"
    assert local_name("ns:film.film.genre") == "film.film.genre"
    assert local_name("film.film.genre") == "film.film.genre"


def _write(folder: Path, roles: str, types: str, reverse: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fb_roles").write_text(roles)
    (folder / "fb_types").write_text(types)
    (folder / "reverse_properties").write_text(reverse)
    return folder


def test_small_schema_folder(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "onto",
        "a.person a.person.job_s a.job_tenure\na.job_tenure a.job_tenure.employer a.company\n",
        "a.person meta.subclassOf common.topic\n"
        "a.company meta.subclassOf common.topic .a.team meta.subclassOf common.topic\n",
        "a.person.job_s\ta.job_tenure.person\n",
    )
    schema = FreebaseSchema.from_folder(folder)
    assert schema.is_cvt_type("a.job_tenure") is True
    assert schema.is_cvt_type("a.company") is False
    assert schema.is_topic_type("a.team")  # recovered from the glued line
    assert schema.reverse("a.job_tenure.person") == "a.person.job_s"


def test_missing_file_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    with pytest.raises(SchemaError, match="fb_roles"):
        FreebaseSchema.from_folder(folder)
