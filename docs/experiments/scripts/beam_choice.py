"""How well can the planner's beams be chosen among? (experiment, on beam_features.py output)

Prints the mean edge hit rate and exact match (against ``Parses[0]``) of: the top beam; the
first beam that compiles (what the pipeline's retries adopt); the best beam (an oracle);
the beam the zero-shot cosine or the recall scores prefer; and a softmax over ten beam
features (cosine, recall, compiles, rank, steps, type), its weights fit by gradient descent
towards the best beams, in 5-fold cross-validation.

    python docs/experiments/scripts/beam_choice.py BEAMS.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable

import numpy as np

Beam = dict


def features(beams: list[Beam]) -> np.ndarray:
    """One row per beam; scores taken relative to the question's best, so groups compare."""
    cos = np.array([b["cos"] for b in beams])
    recall_min = np.array([min((r[0] for r in b.get("recall") or []), default=0.0) for b in beams])
    recall_mean = np.array([statistics.fmean(r[0] for r in b["recall"]) if b.get("recall") else 0.0 for b in beams])
    fallbacks = np.array([sum(r[-1] == "fallback" for r in b.get("recall") or []) for b in beams])
    rank = np.array([b["rank"] for b in beams])
    steps = np.array([b["steps"] for b in beams], float)
    columns = [
        cos - cos.max(),
        recall_min - recall_min.max(),
        recall_mean - recall_mean.max(),
        fallbacks - fallbacks.min(),
        np.array([b["sparql"] is not None for b in beams], float),
        steps - steps[0],
        *((rank == k).astype(float) for k in range(3)),
        np.array([b["type"] == beams[0]["type"] for b in beams], float),
    ]
    return np.stack(columns, 1)


def fit(groups: list[tuple[np.ndarray, np.ndarray]], l2: float, steps: int = 400, lr: float = 0.5) -> np.ndarray:
    """Softmax weights whose choice puts the most mass on each group's best beams."""
    weights = np.zeros(groups[0][0].shape[1])
    weights[6] = 1.0  # start at the top beam
    for _ in range(steps):
        gradient = np.zeros_like(weights)
        for x, y in groups:
            if y.max() == y.min():
                continue
            target = (y == y.max()) / (y == y.max()).sum()
            s = x @ weights
            p = np.exp(s - s.max())
            gradient += x.T @ (p / p.sum() - target)
        weights -= lr * (gradient / len(groups) + 0.01 * l2 * weights)
    return weights


def mean_of(rows: list[dict], pick: Callable[[list[Beam]], Beam], key: str) -> float:
    return statistics.fmean(float(pick(r["beams"]).get(key) or 0) if r["beams"] else 0.0 for r in rows)


def main(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    picks: dict[str, Callable[[list[Beam]], Beam]] = {
        "top beam": lambda bs: bs[0],
        "first that compiles": lambda bs: next((b for b in bs if b["sparql"]), bs[0]),
        "oracle": lambda bs: max(bs, key=lambda b: (b.get("ehr0", 0), b.get("exact0", False))),
        "zero-shot cosine": lambda bs: max(bs, key=lambda b: (b["cos"], -b["rank"])),
        "lowest recall score, highest": lambda bs: bs[int(np.argmax(features(bs)[:, 1] - 1e-9 * np.arange(len(bs))))],
    }
    print(f"{len(rows)} questions")
    for name, pick in picks.items():
        print(f"{name}: EHR {mean_of(rows, pick, 'ehr0'):.4f} exact {mean_of(rows, pick, 'exact0'):.4f}")
    order = np.random.default_rng(0).permutation(len(rows))
    for l2 in (0.1, 1.0, 10.0):
        hits, exact = [], []
        for fold in range(5):
            held = set(order[fold::5].tolist())
            train = [r for i, r in enumerate(rows) if i not in held and r["beams"]]
            groups = [(features(r["beams"]), np.array([b.get("ehr0", 0.0) for b in r["beams"]])) for r in train]
            weights = fit(groups, l2)
            for i in sorted(held):
                beams = rows[i]["beams"]
                best = int(np.argmax(features(beams) @ weights - 1e-9 * np.arange(len(beams)))) if beams else 0
                chosen = beams[best] if beams else {}
                hits.append(float(chosen.get("ehr0", 0.0)))
                exact.append(float(chosen.get("exact0", False)))
        print(f"features, 5-fold, l2 {l2}: EHR {statistics.fmean(hits):.4f} exact {statistics.fmean(exact):.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
