"""Every file in the data folder reads with the counts its README states.

Dataset JSON goes through ``nl2sparql.kg.datasets``; FB15k-237 through the importer's
readers; the Freebase ontology files are counted here directly (their reader belongs to
the memory bank).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest

from nl2sparql.config import data_file
from nl2sparql.kg.datasets import DatasetError, Example, detect_format, load_dataset
from nl2sparql.kg.fb15k237 import read_names, read_triples


@pytest.fixture(scope="module")
def webqsp_train() -> list[Example]:
    return load_dataset(data_file("webqsp/WebQSP.train.json"))


def test_webqsp_train(webqsp_train: list[Example]) -> None:
    assert len(webqsp_train) == 3098
    first = webqsp_train[0]
    assert first.dataset == "webqsp" and first.id == "WebQTrn-0"
    assert first.question == "what is the name of justin bieber brother?"
    assert first.gold_sparql is not None and first.gold_sparql.startswith("PREFIX ns: <http://rdf.freebase.com/ns/>")
    assert first.entities == {"m.06w2sn5": "Justin Bieber", "m.05zppz": "Male"}  # topic + constraint entity
    assert first.category == "constraint"
    assert first.extra["inferential_chain"] == (
        "people.person.sibling_s",
        "people.sibling_relationship.sibling",
    )
    # README: 268 train questions have more than one parse; Parses[0] is the reference.
    multi = [e for e in webqsp_train if len(e.extra["parses"]) > 1]
    assert len(multi) == 268
    assert all(e.gold_sparql == e.extra["parses"][0].sparql for e in multi)
    categories = Counter(e.category for e in webqsp_train)
    assert categories == {None: 2260, "constraint": 542, "time": 202, "order": 92, "count": 2}
    assert all(e.category != "order" or "ORDER BY" in (e.gold_sparql or "") for e in webqsp_train)
    assert len({e.id for e in webqsp_train}) == 3098
    values = [a for e in webqsp_train for a in e.answers if not a.startswith(("m.", "g."))]
    assert "1971-10-13" in values  # literal answers are kept as written


def test_webqsp_test_part_a() -> None:
    examples = load_dataset(data_file("webqsp/WebQSP.test.part-A.json"))
    assert len(examples) == 630
    assert all(e.id.startswith("WebQTest-") for e in examples)


def test_cwq() -> None:
    examples = load_dataset(data_file("cwq/cwq.test.part-A.json"))
    assert len(examples) == 1351
    assert Counter(e.category for e in examples) == {
        "composition": 604,
        "conjunction": 600,
        "comparative": 82,
        "superlative": 65,
    }
    first = examples[0]
    assert first.entities == {"m.03_dwn": "Lou Seal"}
    assert first.answers == ("m.0117q3yz",)
    assert first.extra["webqsp_id"] == "WebQTest-832"
    assert sum(len(e.answers) for e in examples) == 2544


def test_grailqa() -> None:
    examples = load_dataset(data_file("grailqa/grailqa.sample-1000.json"))
    assert len(examples) == 1000
    assert Counter(e.extra["level"] for e in examples) == {
        "zero-shot": 562,
        "i.i.d.": 240,
        "compositional": 198,
    }
    assert Counter(e.category for e in examples)[None] == 972
    counted = [e for e in examples if e.category == "count"]
    assert len(counted) == 3 and all(a.isdigit() for e in counted for a in e.answers)
    assert examples[0].extra["s_expression"].startswith("(AND ")


def test_fb15k237_files() -> None:
    folder = data_file("fb15k-237/train.txt").parent
    triples = [t for split in ("train.txt", "valid.txt", "test.txt") for t in read_triples(folder / split)]
    assert len(triples) == 310_116
    assert len({h for h, _, _ in triples} | {t for _, _, t in triples}) == 14_541
    assert len({r for _, r, _ in triples}) == 237
    assert sum(1 for _, r, _ in triples if "./" in r) == 207_567  # two-hop relations through a CVT
    names = read_names(folder / "FB15k_mid2name.txt")
    assert len(names) == 14_951
    assert names["/m/016ywr"] == "Jeremy Irons"


def test_freebase_ontology_files() -> None:
    folder = data_file("freebase-ontology/fb_roles").parent
    roles = (folder / "fb_roles").read_text(encoding="utf-8").splitlines()
    assert len(roles) == 19_280  # README: "19k lines" of "domain relation range"
    assert sum(1 for line in roles if len(line.split()) == 3) == 19_278
    types = (folder / "fb_types").read_text(encoding="utf-8").splitlines()
    assert len(types) == 21_107
    assert all(line.split()[1] == "meta.subclassOf" for line in types)
    topics = {line.split()[0] for line in types if line.split()[2] == "common.topic"}
    # README: CVT (mediator) types are not topics; named types are.
    assert {"people.person", "film.film"} <= topics
    assert not {"people.marriage", "film.performance", "government.government_position_held"} & topics
    assert "people.sibling_relationship" not in topics
    reverse = (folder / "reverse_properties").read_text(encoding="utf-8").splitlines()
    assert len(reverse) == 9_907 and all(len(line.split("\t")) == 2 for line in reverse)
    full_reverse = json.loads((folder / "full_reverse_properties.json").read_text(encoding="utf-8"))
    assert len(full_reverse) == 5_780
    domains = json.loads((folder / "domain_info").read_text(encoding="utf-8"))
    assert len(domains) == 8_303
    assert domains["american_football.player_passing_statistics.completions"] == "american_football"


# -- QALD and error handling ----------------------------------------------------------------

QALD = {
    "dataset": {"id": "qald-test-fixture"},
    "questions": [
        {
            "id": "1",
            "answertype": "resource",
            "aggregation": False,
            "onlydbo": True,
            "hybrid": False,
            "question": [
                {"language": "de", "string": "Wer hat Dunkirk gedreht?"},
                {"language": "en", "string": "Who directed Dunkirk?", "keywords": "director, Dunkirk"},
            ],
            "query": {
                "sparql": "SELECT ?d WHERE { <http://dbpedia.org/resource/Dunkirk_(2017_film)> "
                "<http://dbpedia.org/ontology/director> ?d }"
            },
            "answers": [
                {
                    "head": {"vars": ["d"]},
                    "results": {
                        "bindings": [{"d": {"type": "uri", "value": "http://dbpedia.org/resource/Christopher_Nolan"}}]
                    },
                }
            ],
        },
        {
            "id": "2",
            "answertype": "boolean",
            "question": [{"language": "en", "string": "Is Berlin the capital of Germany?"}],
            "query": {
                "sparql": "ASK { <http://dbpedia.org/resource/Germany> <http://dbpedia.org/ontology/capital> "
                "<http://dbpedia.org/resource/Berlin> }"
            },
            "answers": [{"head": {}, "boolean": True}],
        },
        {
            "id": "3",
            "answertype": "number",
            "question": [{"language": "en", "string": "How many moons does Mars have?"}],
            "query": {},
            "answers": [{"head": {"vars": ["c"]}, "results": {"bindings": [{"c": {"type": "literal", "value": "2"}}]}}],
        },
    ],
}


def test_qald_json(tmp_path: Path) -> None:
    path = tmp_path / "qald.json"
    path.write_text(json.dumps(QALD), encoding="utf-8")
    examples = load_dataset(path)
    assert [e.id for e in examples] == ["1", "2", "3"]
    assert examples[0].question == "Who directed Dunkirk?"
    assert examples[0].answers == ("http://dbpedia.org/resource/Christopher_Nolan",)
    assert examples[0].category == "resource" and examples[0].entities == {}
    assert examples[0].gold_sparql is not None and "director" in examples[0].gold_sparql
    assert examples[1].answers == ("true",) and examples[1].category == "boolean"
    assert examples[2].answers == ("2",) and examples[2].gold_sparql is None
    assert all(e.dataset == "qald" for e in examples)


def test_qald_question_missing_in_english(tmp_path: Path) -> None:
    broken = json.loads(json.dumps(QALD))
    broken["questions"][1]["question"] = [{"language": "fr", "string": "Berlin est-elle la capitale ?"}]
    path = tmp_path / "qald.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(DatasetError, match=r"record 1 \(2\): no question in language 'en'"):
        load_dataset(path)


def test_examples_are_immutable(webqsp_train: list[Example]) -> None:
    example = webqsp_train[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        example.question = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        example.entities["m.x"] = "y"  # type: ignore[index]
    assert hash(example) == hash(dataclasses.replace(example))


def test_format_detection_and_errors(tmp_path: Path) -> None:
    assert detect_format(QALD) == "qald"
    assert detect_format({"Questions": [{"Parses": []}]}) == "webqsp"
    assert detect_format([{"compositionality_type": "composition"}]) == "cwq"
    assert detect_format([{"sparql_query": "", "s_expression": ""}]) == "grailqa"
    assert detect_format({"rows": []}) is None
    with pytest.raises(DatasetError, match=r"nope\.json: no such file"):
        load_dataset(tmp_path / "nope.json")
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"questions": [\n  {"id": 1,}\n]}', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad\.json:2:\d+: not valid JSON"):
        load_dataset(bad_json)
    with pytest.raises(DatasetError, match=r"not a cwq file \(it looks like webqsp\)"):
        load_dataset(data_file("webqsp/WebQSP.test.part-A.json"), "cwq")
    other = tmp_path / "other.json"
    other.write_text('{"rows": []}', encoding="utf-8")
    with pytest.raises(DatasetError, match="not a known dataset format"):
        load_dataset(other)
    with pytest.raises(DatasetError, match="unknown dataset format 'lcquad'"):
        load_dataset(other, "lcquad")
    missing_key = tmp_path / "cwq.json"
    missing_key.write_text(json.dumps([{"ID": "q1", "compositionality_type": "composition"}]), encoding="utf-8")
    with pytest.raises(DatasetError, match=r"record 0 \(q1\): missing key 'question'"):
        load_dataset(missing_key)
