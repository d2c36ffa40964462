"""Fine-tune the ranker (:mod:`nl2sparql.ranker.cross`) on labelled candidate groups.

A listwise loss (ListNet): each question's candidates are scored together and the
softmax of their scores is pulled toward the softmax of their labels (set F1 against the
gold answers, sharpened so that an exactly right candidate outweighs half-right ones).
The encoder's embeddings and lower layers stay as the package ships them, so the file
that ships holds only the upper layers, the head and the features' weights; the
features' weights start at the zero-shot scorer's and the head at zero, so training
starts from the zero-shot ranking without its cosine and moves from there.

Checkpoints are written after every epoch; ``resume`` continues from the last one.
"""

from __future__ import annotations

import json
import random
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nl2sparql.ranker.cross import FORMAT, MAX_TOKENS, TRAINED_FEATURES
from nl2sparql.ranker.features import FEATURES
from nl2sparql.ranker.scorer import WEIGHTS
from nl2sparql.training.ranker_data import Group


@dataclass(frozen=True, slots=True)
class RankerTraining:
    """The settings of one training run (every one has a bound)."""

    epochs: int = 3
    frozen_layers: int = 2
    per_group: int = 24
    lr: float = 3e-5
    head_lr: float = 1e-3
    sharpness: float = 5.0
    seed: int = 13
    #: share of groups held out (by id) to report how often the top choice is right
    held_out: float = 0.1


def is_held_out(group_id: str, share: float) -> bool:
    """A fixed split by id (the same in every run).

    >>> is_held_out("WebQTrn-1", 0.0), is_held_out("WebQTrn-1", 1.0)
    (False, True)
    """
    return (zlib.crc32(group_id.encode()) % 1000) < share * 1000


def sampled(group: Group, per_group: int, rng: random.Random) -> list[Any]:
    """The group's best-labelled candidates and the rest by the agent's order, up to ``per_group``."""
    choices = list(group.choices)
    right = sorted(range(len(choices)), key=lambda i: -choices[i].label)[:3]
    rest = [i for i in range(len(choices)) if i not in right]
    keep = right + rest[: per_group - len(right)]
    rng.shuffle(keep)
    return [choices[i] for i in keep]


class _Model:
    """The encoder, a head over its mean-pooled pair, and the features' weights (torch)."""

    def __init__(self, base: Path, settings: RankerTraining) -> None:
        import torch
        from transformers import BertModel

        self.torch = torch
        self.encoder = BertModel.from_pretrained(str(base), add_pooling_layer=False)
        self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)
        torch.nn.init.zeros_(self.head.weight)
        torch.nn.init.zeros_(self.head.bias)
        start = [1.0] + [WEIGHTS[n] for n in FEATURES]  # the zero-shot scorer: cosine, then the features
        self.features = torch.nn.Parameter(torch.tensor(start, dtype=torch.float32))
        for name, parameter in self.encoder.named_parameters():
            parameter.requires_grad = self.trained(name, settings.frozen_layers)

    @staticmethod
    def trained(name: str, frozen: int) -> bool:
        """Whether training changes an encoder weight: the layers from ``frozen`` up."""
        if not name.startswith("encoder.layer."):
            return False
        return int(name.split(".")[2]) >= frozen

    def scores(self, encoded: Any, features: Any) -> Any:
        hidden = self.encoder(**encoded).last_hidden_state
        mask = encoded["attention_mask"].unsqueeze(-1).float()
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return self.head(pooled).squeeze(-1) + features @ self.features


def train_ranker(
    groups: Sequence[Group], base: Path, out: Path, work: Path, settings: RankerTraining, resume: bool, log: Any
) -> dict[str, Any]:
    """Train on ``groups``, write the ranker to ``out``; checkpoints in ``work``."""
    import torch

    groups = with_cosines(groups)
    torch.manual_seed(settings.seed)
    tokenizer = _tokenizer(base)
    model = _Model(base, settings)
    trained = [p for p in model.encoder.parameters() if p.requires_grad]
    heads = [*model.head.parameters(), model.features]
    optimiser = torch.optim.AdamW([{"params": trained, "lr": settings.lr}, {"params": heads, "lr": settings.head_lr}])
    train = [g for g in groups if not is_held_out(g.id, settings.held_out)]
    held = [g for g in groups if is_held_out(g.id, settings.held_out)]
    checkpoint = work / "checkpoint.pt"
    start = _resumed(model, optimiser, checkpoint, log) if resume and checkpoint.is_file() else 0
    report: dict[str, Any] = {"groups": len(train), "held_out": len(held), "epochs": []}
    for epoch in range(start, settings.epochs):
        began = time.perf_counter()
        loss = _epoch(model, optimiser, tokenizer, train, settings, epoch, log)
        entry = {"epoch": epoch + 1, "loss": loss, "held_out_top_f1": top_right(model, tokenizer, held),
                 "seconds": round(time.perf_counter() - began, 1)}  # fmt: skip
        report["epochs"].append(entry)
        log(json.dumps(entry))
        torch.save({"encoder": model.encoder.state_dict(), "head": model.head.state_dict(),
                    "features": model.features.data, "optimiser": optimiser.state_dict(), "epoch": epoch + 1},
                   checkpoint)  # fmt: skip
    report["zero_shot_top_f1"] = round(sum(g.choices[0].label for g in held) / max(1, len(held)), 4)
    export(model, settings, out)
    return report


def _tokenizer(base: Path) -> Any:
    """The encoder's tokenizer, cutting pairs as the ranker's runtime does."""
    from nl2sparql.memory_bank.minilm import bert_tokenizer

    config = json.loads((base / "config.json").read_text(encoding="utf-8"))
    return bert_tokenizer(base, config, MAX_TOKENS)


def _resumed(model: _Model, optimiser: Any, checkpoint: Path, log: Any) -> int:
    """Load the last checkpoint into ``model`` and ``optimiser``; the epochs it had done."""
    state = model.torch.load(checkpoint, weights_only=False)
    model.encoder.load_state_dict(state["encoder"])
    model.head.load_state_dict(state["head"])
    model.features.data.copy_(state["features"])
    optimiser.load_state_dict(state["optimiser"])
    log(f"resumed after epoch {state['epoch']}")
    return int(state["epoch"])


def _epoch(
    model: _Model,
    optimiser: Any,
    tokenizer: Any,
    train: Sequence[Group],
    settings: RankerTraining,
    epoch: int,
    log: Any,
) -> float:
    """One pass over the groups in a seeded order, one step a group (ListNet); the mean loss."""
    torch = model.torch
    rng, total = random.Random(settings.seed + epoch), 0.0
    order = list(train)
    rng.shuffle(order)
    model.encoder.train()
    for n, group in enumerate(order, 1):
        choices = sampled(group, settings.per_group, rng)
        scores = _forward(model, tokenizer, group.question, choices)
        labels = torch.tensor([c.label for c in choices]) * settings.sharpness
        loss = -(torch.softmax(labels, 0) * torch.log_softmax(scores, 0)).sum()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        total += float(loss.detach())
        if n % 100 == 0:
            log(f"epoch {epoch + 1} group {n}/{len(order)} loss {total / n:.4f}")
    return round(total / max(1, len(order)), 4)


def with_cosines(groups: Sequence[Group]) -> list[Group]:
    """The groups with each choice's ``cosine`` (question and reading under the embedder),
    the zero-shot scorer's similarity, which the trained scorer starts from."""
    from dataclasses import replace

    from nl2sparql.memory_bank.embedder import default_embedder
    from nl2sparql.ranker.scorer import EmbeddingScorer

    zero_shot = EmbeddingScorer(default_embedder())
    out = []
    for group in groups:
        cosines = zero_shot.cosines(group.question, [c.reading for c in group.choices])
        choices = tuple(
            replace(c, features={**c.features, "cosine": float(v)}) for c, v in zip(group.choices, cosines, strict=True)
        )
        out.append(replace(group, choices=choices))
    return out


def _forward(model: _Model, tokenizer: Any, question: str, choices: Sequence[Any]) -> Any:
    torch = model.torch
    encoded = tokenizer.encode_batch([(question, c.reading) for c in choices])
    tensors = {
        "input_ids": torch.tensor([e.ids for e in encoded]),
        "attention_mask": torch.tensor([e.attention_mask for e in encoded]),
        "token_type_ids": torch.tensor([e.type_ids for e in encoded]),
    }
    rows = [[c.features.get(n, 0.0) for n in TRAINED_FEATURES] for c in choices]
    return model.scores(tensors, torch.tensor(rows, dtype=torch.float32))


def top_right(model: _Model, tokenizer: Any, groups: Sequence[Group]) -> float:
    """Mean label of the candidate the model puts first (the held-out groups' set F1)."""
    if not groups:
        return 0.0
    torch = model.torch
    model.encoder.eval()
    total = 0.0
    with torch.no_grad():
        for group in groups:
            scores = _forward(model, tokenizer, group.question, group.choices)
            total += group.choices[int(scores.argmax())].label
    model.encoder.train()
    return round(total / len(groups), 4)


def export(model: _Model, settings: RankerTraining, out: Path) -> None:
    """Write what training changed, in float16, as a ranker file (atomically)."""
    from safetensors.torch import save_file

    state = {
        name: tensor.detach().to(model.torch.float16).contiguous()
        for name, tensor in model.encoder.state_dict().items()
        if _Model.trained(name, settings.frozen_layers)
    }
    state["head.weight"] = model.head.weight.detach().clone()
    state["head.bias"] = model.head.bias.detach().clone()
    state["features.weight"] = model.features.detach().clone()
    meta = {"format": FORMAT, "base": "all-MiniLM-L6-v2", "features": ",".join(TRAINED_FEATURES),
            "frozen_layers": str(settings.frozen_layers)}  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".partial")
    save_file(state, str(partial), metadata=meta)
    partial.chmod(0o644)  # safetensors writes owner-only; a model is read by whoever serves it
    partial.replace(out)
