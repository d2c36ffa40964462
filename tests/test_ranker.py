"""The trained ranker: ``nl2sparql ranker train`` enumerates, labels and trains on a graph
written here (the shop of test_discrimination), resumes, and writes a file the numpy
runtime reads; its scores are deterministic and are the scores training computed; a bad
file is a clear error; the pipeline chooses with it when told to.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_discrimination import SHOP, NoPlans

from nl2sparql.cli import main
from nl2sparql.discriminate import load_ranker
from nl2sparql.kg.store import open_store
from nl2sparql.memory_bank.bank_file import save_bank
from nl2sparql.memory_bank.build_store import build_bank_from_store
from nl2sparql.memory_bank.embedder import bundled_model_dir, default_embedder
from nl2sparql.pipeline import Pipeline
from nl2sparql.ranker.cross import CrossEncoderScorer, RankerError
from nl2sparql.ranker.scorer import EmbeddingScorer
from nl2sparql.training.ranker_data import read_groups

PREFIXES = "PREFIX s: <http://example.org/shop/schema#> PREFIX d: <http://example.org/shop/data/> "
QUESTIONS = [
    ("How many products are there?", "SELECT (COUNT(?p) AS ?n) WHERE { ?p a s:Product }"),
    ("Which shop is in Leipzig?", 'SELECT ?x WHERE { ?x s:city "Leipzig" }'),
    ("Which products does Volt sell?", "SELECT ?x WHERE { ?x s:soldBy d:Volt }"),
    ("Which products are in the category Toys?", "SELECT ?x WHERE { ?x s:inCategory d:Toys }"),
    ("Which products have no warranty?", "SELECT ?x WHERE { ?x a s:Product FILTER NOT EXISTS { ?x s:warranty ?w } }"),
    ("Which product is the most expensive?", "SELECT ?x WHERE { ?x s:hasOffer/s:amount ?a } ORDER BY DESC(?a) LIMIT 1"),
    ("Which shop sells the Kite?", "SELECT ?x WHERE { d:Kite s:soldBy ?x }"),
    ("What is the weight of the Drill?", "SELECT ?x WHERE { d:Drill s:weight ?x }"),
]  # fmt: skip


def _qald(path: Path) -> Path:
    items = [
        {
            "id": f"shop{n}",
            "question": [{"language": "en", "string": q}],
            "query": {"sparql": PREFIXES + sparql},
            "answers": [],
        }
        for n, (q, sparql) in enumerate(QUESTIONS)
    ]
    path.write_text(json.dumps({"dataset": {"id": "shop"}, "questions": items}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def shop_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A store folder of the shop graph, its bank file, and its questions (QALD JSON)."""
    folder = tmp_path_factory.mktemp("ranker-shop")
    (folder / "shop.ttl").write_text(SHOP, encoding="utf-8")
    store = open_store("oxigraph", path=folder / "store")
    store.load(folder / "shop.ttl", progress=False)
    bank, _ = build_bank_from_store(store, embedder=default_embedder(), source="shop")
    store.close()
    return folder / "store", save_bank(bank, folder / "shop.nl2sq"), _qald(folder / "shop-qald.json")


@pytest.fixture(scope="module")
def trained(shop_files: tuple[Path, Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A ranker trained for one epoch by the command a user runs: its work folder and file."""
    store, bank, questions = shop_files
    work = tmp_path_factory.mktemp("ranker-work")
    args = ["ranker", "train", "--dataset", str(questions), "--format", "qald", "--store", str(store)]
    args += ["--bank", str(bank), "--work", str(work), "--out", str(work / "ranker.safetensors"), "--epochs", "1"]
    assert main([*args, "--quiet"]) == 0
    return work, work / "ranker.safetensors"


def test_training_labels_the_agents_candidates_and_writes_a_small_file(trained: tuple[Path, Path]) -> None:
    work, ranker = trained
    groups = read_groups(work / "shop-qald.jsonl")
    assert len(groups) >= 6  # the agent found a right candidate for most questions
    for group in groups:
        assert max(c.label for c in group.choices) > 0  # a group without a right candidate is not kept
        assert all(0.0 <= c.label <= 1.0 for c in group.choices)
    report = json.loads((work / "report.json").read_text(encoding="utf-8"))
    assert report["epochs"][0]["epoch"] == 1
    assert ranker.stat().st_size < 50 * 2**20


def test_training_resumes_from_its_groups_and_checkpoint(
    trained: tuple[Path, Path], shop_files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    work, _ = trained
    store, bank, questions = shop_files
    before = (work / "shop-qald.jsonl").read_text(encoding="utf-8")
    out = work / "again.safetensors"
    args = ["ranker", "train", "--dataset", str(questions), "--format", "qald", "--store", str(store)]
    args += ["--bank", str(bank), "--work", str(work), "--out", str(out), "--epochs", "1", "--resume"]
    assert main(args) == 0
    assert (work / "shop-qald.jsonl").read_text(encoding="utf-8") == before  # nothing enumerated again
    assert "resumed after epoch 1" in capsys.readouterr().err
    assert out.is_file()


def test_the_numpy_runtime_scores_what_training_scored(trained: tuple[Path, Path]) -> None:
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file
    from transformers import BertModel

    _, ranker = trained
    scorer = load_ranker(ranker)
    question, readings = "Which shop is in Leipzig?", ["the shop whose city is Leipzig", "how many the product"]
    tensors = load_file(str(ranker))
    model = BertModel.from_pretrained(str(bundled_model_dir()), add_pooling_layer=False)
    model.load_state_dict(
        {k: v.float() for k, v in tensors.items() if not k.startswith(("head.", "features."))}, strict=False
    )
    encoded = scorer.tokenizer.encode_batch([(question, r) for r in readings])
    mask = torch.tensor([e.attention_mask for e in encoded])
    with torch.no_grad():
        hidden = model(
            input_ids=torch.tensor([e.ids for e in encoded]),
            attention_mask=mask,
            token_type_ids=torch.tensor([e.type_ids for e in encoded]),
        ).last_hidden_state
        pooled = (hidden * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        expected = (pooled @ tensors["head.weight"].float().T).squeeze(-1) + tensors["head.bias"].float()
    np.testing.assert_allclose(scorer.logits(question, readings), expected.numpy(), atol=1e-4)


def test_the_ranker_scores_deterministically_and_the_pipeline_chooses_with_it(
    trained: tuple[Path, Path], shop_files: tuple[Path, Path, Path]
) -> None:
    _, ranker = trained
    store, bank, _ = shop_files
    answers = []
    for _ in range(2):
        with Pipeline.from_settings(store=str(store), bank=str(bank), ranker=str(ranker)) as pipeline:
            pipeline.planner = NoPlans()
            result = pipeline.ask("Which shop is in Leipzig?")
            pipeline.discriminator.parts()
            assert isinstance(pipeline.discriminator._chooser, CrossEncoderScorer)
            answers.append((result.sparql, [c.score for c in result.candidates]))
    assert answers[0] == answers[1]
    assert answers[0][0] and answers[0][1]


def test_zero_shot_is_still_there_by_name(shop_files: tuple[Path, Path, Path]) -> None:
    store, bank, _ = shop_files
    with Pipeline.from_settings(store=str(store), bank=str(bank), ranker="zero-shot") as pipeline:
        assert isinstance(pipeline.discriminator.parts()[2], EmbeddingScorer)
        assert pipeline.discriminator._chooser is None


def test_a_missing_or_foreign_ranker_file_is_a_clear_error(
    tmp_path: Path, shop_files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(RankerError, match="no ranker at"):
        load_ranker(tmp_path / "nothing.safetensors")
    (tmp_path / "junk.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(RankerError, match="not a ranker file"):
        load_ranker(tmp_path / "junk.safetensors")
    store, bank, _ = shop_files
    code = main(["ask", "Which shop is in Leipzig?", "--store", str(store), "--bank", str(bank),
                 "--ranker", str(tmp_path / "nothing.safetensors"), "--candidates", "graph"])  # fmt: skip
    assert code == 1
    assert "no ranker at" in capsys.readouterr().err


def test_training_refuses_bounds_it_cannot_keep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ranker", "train", "--work", str(tmp_path), "--out", str(tmp_path / "r"), "--epochs", "0"]) == 1
    assert "--epochs must be 1 to 20" in capsys.readouterr().err


def test_the_zero_shot_cache_stays_bounded_and_answers_what_it_was_asked(shop_files: tuple[Path, Path, Path]) -> None:
    """A full cache is emptied before a question's texts are added, never after (a service
    that had scored 20,000 texts failed on the next question with a KeyError)."""
    scorer = EmbeddingScorer(default_embedder())
    scorer._cache.update({f"filler {n}": np.zeros(384, dtype=np.float32) for n in range(20_001)})
    vectors = scorer._vectors(["Which shop is in Leipzig?", "the shop whose city is Leipzig"])
    assert vectors.shape == (2, 384) and len(scorer._cache) == 2
