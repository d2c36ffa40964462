"""The embedder's numpy all-MiniLM-L6-v2 against transformers' own BERT on the same weights.

sentence-transformers computes this model's vectors as ``BertModel`` -> mean over the
attention mask -> unit length, with at most 256 tokens; transformers is installed (the
planner runs on it), so the reference is computed here the same way, and the banks made
before the switch stay valid only if the two agree.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from nl2sparql.config import data_file
from nl2sparql.memory_bank.embedder import Embedder, bundled_model_dir
from nl2sparql.memory_bank.errors import MemoryBankError
from nl2sparql.memory_bank.minilm import MAX_TOKENS


def _reference(sentences: list[str]) -> np.ndarray:
    from transformers import AutoModel, AutoTokenizer

    folder = str(bundled_model_dir())
    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    batch = tokenizer(sentences, padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=1).numpy()


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    questions = json.loads(data_file("webqsp/WebQSP.train.json").read_text(encoding="utf-8"))["Questions"]
    odd = ["?e2 is the county of the hud county place ?e1", "", "Ünïcödé façade naïve café 東京", "word " * 400]
    return [q["RawQuestion"] for q in questions[:40]] + odd


def test_vectors_match_the_transformers_reference(sentences: list[str]) -> None:
    mine = Embedder().encode(sentences, batch_size=16)
    assert mine.shape == (len(sentences), 384) and mine.dtype == np.float32
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-5)
    assert np.abs(mine - _reference(sentences)).max() < 1e-5


def test_batch_size_and_order_do_not_change_a_vector(sentences: list[str]) -> None:
    embedder = Embedder()
    whole = embedder.encode(sentences, batch_size=64)
    alone = np.stack([embedder.encode_one(s) for s in sentences[:5]])
    assert np.abs(whole[:5] - alone).max() < 1e-5
    assert np.abs(embedder.encode(sentences[::-1], batch_size=3)[::-1] - whole).max() < 1e-5


def test_a_folder_without_weights_is_a_clear_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"hidden_size": 384}))
    with pytest.raises(MemoryBankError, match="cannot load the embedder"):
        Embedder(folder).encode(["a question"])
