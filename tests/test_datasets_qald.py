"""Every record shape QALD files use: yes/no answers at the top or nested in a binding, literal
answers (numbers, strings), one answer object instead of a list, multilingual question lists
or mappings, the query as an object or a string; and a bank built from such a file over a
graph other than Freebase (``fixtures/own_kg/music.ttl``), merged with the store's bank."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nl2sparql.cli import main
from nl2sparql.kg.datasets import DatasetError, load_dataset

MUSIC = Path(__file__).parent / "fixtures" / "own_kg" / "music.ttl"
PREFIXES = "PREFIX mo: <http://example.org/music/ontology#> PREFIX md: <http://example.org/music/data/> "
MO = "http://example.org/music/ontology#"


def _record(id: str, question: Any, query: Any, answers: Any, answertype: str = "resource") -> dict[str, Any]:
    return {"id": id, "answertype": answertype, "question": question, "query": query, "answers": answers}


def _bindings(*rows: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"head": {"vars": sorted({k for r in rows for k in r})}, "results": {"bindings": list(rows)}}]


RECORDS = [
    _record(
        "members",
        [
            {"language": "de", "string": "Wer spielt bei den Beatles?"},
            {"language": "en", "string": "Who is in the Beatles?"},
        ],
        {"sparql": PREFIXES + "SELECT ?m WHERE { md:TheBeatlesB mo:hasMember ?m }"},
        _bindings({"m": {"type": "uri", "value": "http://example.org/music/data/JohnLennonM"}}),
    ),
    _record(  # a yes/no answer nested inside a binding, as some QALD files write it
        "born-nested",
        [{"language": "en", "string": "Was John Lennon born in Liverpool?"}],
        {"sparql": PREFIXES + "ASK { md:JohnLennonM mo:bornIn md:LiverpoolC }"},
        _bindings({"boolean": {"type": "literal", "boolean": True}}),
        "boolean",
    ),
    _record(
        "born-bare",
        [{"language": "en", "string": "Was Brian May born in Liverpool?"}],
        {"sparql": PREFIXES + "ASK { md:Brian_May mo:bornIn md:LiverpoolC }"},
        [{"head": {"vars": ["b"]}, "results": {"bindings": [{"b": False}]}}],
        "boolean",
    ),
    _record(
        "boolean-top",
        [{"language": "en-US", "string": "Is Queen a band?"}],
        PREFIXES + "ASK { md:QueenB a mo:Band }",
        [{"head": {}, "boolean": True}],
        "boolean",
    ),
    _record(  # one answer object (not a list), numbers as JSON numbers, the question as a mapping
        "count",
        {"de": "Wie viele Mitglieder hat Queen?", "en": "How many members does Queen have?"},
        {"sparql": PREFIXES + "SELECT (COUNT(?m) AS ?n) WHERE { md:QueenB mo:hasMember ?m }"},
        {"head": {"vars": ["n"]}, "results": {"bindings": [{"n": 2}]}},
        "number",
    ),
    _record(
        "literals",
        [{"language": "en", "string": "When were the Beatles and Queen formed?"}],
        {"sparql": PREFIXES + "SELECT ?y WHERE { ?b mo:formedInYear ?y }"},
        _bindings(
            {"y": {"type": "typed-literal", "datatype": "http://www.w3.org/2001/XMLSchema#integer", "value": "1960"}},
            {"y": 1970.5},
            {"y": {"type": "literal", "value": "nineteen seventy", "xml:lang": "en"}},
        ),
        "date",
    ),
]


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "qald.json"
    path.write_text(json.dumps({"dataset": {"id": "music"}, "questions": records}), encoding="utf-8")
    return path


def test_every_qald_record_shape_is_read(tmp_path: Path) -> None:
    examples = {e.id: e for e in load_dataset(_write(tmp_path, RECORDS), "qald")}
    assert examples["members"].question == "Who is in the Beatles?"
    assert examples["members"].answers == ("http://example.org/music/data/JohnLennonM",)
    assert examples["born-nested"].answers == ("true",) and examples["born-nested"].category == "boolean"
    assert examples["born-bare"].answers == ("false",)
    assert examples["boolean-top"].answers == ("true",) and examples["boolean-top"].question == "Is Queen a band?"
    assert examples["boolean-top"].gold_sparql is not None and examples["boolean-top"].gold_sparql.endswith("mo:Band }")
    assert examples["count"].answers == ("2",) and examples["count"].question == "How many members does Queen have?"
    assert examples["literals"].answers == ("1960", "1970.5", "nineteen seventy")


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        (_bindings({"m": {"type": "uri"}}), "an answer term without 'value' or 'boolean'"),
        ([{"results": {"bindings": ["JohnLennonM"]}}], "a binding is a str, not an object"),
        ("Lennon", "'answers' is a str"),
    ],
)
def test_a_malformed_record_is_named(tmp_path: Path, answers: Any, message: str) -> None:
    broken = [RECORDS[0], {**RECORDS[0], "id": "bad", "answers": answers}]
    with pytest.raises(DatasetError, match=rf"record 1 \(bad\): {message}"):
        load_dataset(_write(tmp_path, broken), "qald")


def test_a_question_in_another_language_only_is_named(tmp_path: Path) -> None:
    broken = [{**RECORDS[0], "question": [{"language": "fr", "string": "Qui est dans les Beatles ?"}]}]
    with pytest.raises(DatasetError, match=r"record 0 \(members\): no question in language 'en'"):
        load_dataset(_write(tmp_path, broken), "qald")


def test_qald_bank_over_another_graph_merges_with_the_store_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qald = _write(tmp_path, RECORDS)
    assert (
        main(["bank", "build", "--from-queries", str(qald), "--format", "qald", "--out", str(tmp_path / "q.nl2sq")])
        == 0
    )
    capsys.readouterr()
    assert main(["bank", "info", str(tmp_path / "q.nl2sq"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["namespace"] == "" and info["prefixes"]["ontology"] == MO
    assert main(["kg", "load", str(MUSIC), "--store", str(tmp_path / "store"), "--no-progress"]) == 0
    store_bank = tmp_path / "s.nl2sq"
    assert main(["bank", "build", "--from-store", str(tmp_path / "store"), "--out", str(store_bank)]) == 0
    both = tmp_path / "both.nl2sq"
    assert main(["bank", "merge", str(store_bank), str(tmp_path / "q.nl2sq"), "--out", str(both), "--json"]) == 0
    capsys.readouterr()
    assert main(["bank", "info", str(both), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    # The store's 14 statements, and the reverse reading of formedInYear that the queries alone
    # cannot tell is literal-valued; the count constraint comes from the queries.
    assert merged["namespace"] == "" and merged["statements"] == 15 and merged["constraints"] == 1
