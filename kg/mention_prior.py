"""How often an n-gram that matches a label really names the entity the question is about.

Questions are full of words that are also entity names: ``president``, ``country``,
``football``, ``time``. String similarity and popularity cannot tell them from real
mentions, but annotated questions can: this is the link probability of entity-linking
systems such as TagMe (anchor count over occurrence count), measured on training
questions with their gold entities instead of on Wikipedia anchors. For each n-gram
that produced candidates, ``seen`` counts the questions where it did and ``linked`` the
questions where a gold entity was among them. Nothing here is specific to one KG or
dataset: any examples with gold entity ids teach it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.atomic import write_atomic

FORMAT = "nl2sparql-mention-prior"
FORMAT_VERSION = 1


class MentionPriorError(Nl2SparqlError):
    """A mention-prior file cannot be read."""


@dataclass(frozen=True, slots=True)
class MentionPrior:
    """``counts[ngram] = (linked, seen)``; ``strength`` is the pseudo-count that tempers rare n-grams."""

    counts: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    strength: float = 3.0

    def value(self, ngram: str) -> float:
        """In ``[-1, 1]``: -1 never a mention, +1 always one, 0 unknown (confidence-weighted).

        >>> prior = MentionPrior({"president": (0, 40), "lincoln": (6, 6)})
        >>> round(prior.value("president"), 2), round(prior.value("lincoln"), 2), prior.value("x")
        (-0.93, 0.67, 0.0)
        """
        linked, seen = self.counts.get(ngram, (0, 0))
        if seen == 0:
            return 0.0
        return (2 * linked - seen) / (seen + self.strength)

    @classmethod
    def learn(
        cls,
        examples: Iterable[tuple[str, Collection[str]]],
        candidates: Callable[[str], Mapping[str, Collection[str]]],
        strength: float = 3.0,
    ) -> MentionPrior:
        """Count over ``(question, gold entity ids)`` pairs; ``candidates(question)`` maps each
        matching n-gram to the entity ids it matched (``EntityLinker.ngram_candidates``)."""
        counts: dict[str, list[int]] = {}
        for question, gold in examples:
            wanted = set(gold)
            for ngram, entities in candidates(question).items():
                entry = counts.setdefault(ngram, [0, 0])
                entry[1] += 1
                if wanted.intersection(entities):
                    entry[0] += 1
        return cls({k: (v[0], v[1]) for k, v in sorted(counts.items())}, strength)

    def to_json(self, key: Any = None) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "key": key,
            "strength": self.strength,
            "counts": {k: list(v) for k, v in self.counts.items()},
        }

    def save(self, path: str | Path, key: Any = None) -> None:
        """Write the prior as JSON, atomically; ``key`` says what it was learned from."""
        write_atomic(path, json.dumps(self.to_json(key), ensure_ascii=False, separators=(",", ":")))

    @classmethod
    def load(cls, path: str | Path) -> MentionPrior:
        return cls._read(Path(path))[0]

    @classmethod
    def _read(cls, path: Path) -> tuple[MentionPrior, Any]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise MentionPriorError(f"no mention prior at {path}") from exc
        except (OSError, ValueError) as exc:
            raise MentionPriorError(f"cannot read mention prior {path}: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise MentionPriorError(f"{path} is not a mention-prior file")
        if data.get("version") != FORMAT_VERSION:
            version = data.get("version")
            raise MentionPriorError(f"{path} has version {version}, this version reads {FORMAT_VERSION}")
        try:
            counts = {str(k): (int(v[0]), int(v[1])) for k, v in data["counts"].items()}
            return cls(counts, float(data["strength"])), data.get("key")
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise MentionPriorError(f"{path} is malformed: {exc!r}") from exc


def learn_from_datasets(
    candidates: Callable[[str], Mapping[str, Collection[str]]],
    paths: Sequence[str | Path],
    *,
    cache_path: str | Path | None = None,
    index_key: Any = None,
    strength: float = 3.0,
) -> MentionPrior:
    """A prior learned from dataset files (any format :func:`~nl2sparql.kg.datasets.load_dataset`
    reads, with gold entities), reused from ``cache_path`` when it was learned from the same
    files (path, size, mtime) over the same label index (``index_key``)."""
    from nl2sparql.kg.datasets import load_dataset

    files = [Path(p) for p in paths]
    key = {"index": index_key, "sources": [_stamp(f) for f in files], "strength": strength}
    cache = Path(cache_path) if cache_path is not None else None
    if cache is not None and cache.is_file():
        cached = _read_or_none(cache)
        if cached is not None and cached[1] == key:
            return cached[0]
    examples = [(e.question, tuple(e.entities)) for f in files for e in load_dataset(f) if e.entities]
    prior = MentionPrior.learn(examples, candidates, strength)
    if cache is not None:
        prior.save(cache, key)
    return prior


def _read_or_none(path: Path) -> tuple[MentionPrior, Any] | None:
    try:
        return MentionPrior._read(path)
    except MentionPriorError:
        return None  # unreadable: learned again and overwritten


def _stamp(path: Path) -> list[Any]:
    try:
        info = path.stat()
    except OSError as exc:
        raise MentionPriorError(f"cannot read training file {path}: {exc}") from exc
    return [str(path.resolve()), info.st_size, info.st_mtime_ns]
