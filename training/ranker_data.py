"""The ranker's training groups: a question, the agent's candidates for it, and how right each is.

Pangu trains its discriminator on the agent's own candidates, so the negatives are the
near misses the ranker will meet: the same anchor over another relation, a count where a
lookup was asked. Here each candidate of a question is run on the store and labelled with
the set F1 of its answers against the gold query's answers on the same store (a graded
label: a candidate with a superset of the gold answers is half right, not wrong). A group
whose best candidate scores 0 teaches nothing about choosing and is skipped.

Groups are written as JSON lines (one question each), so that enumeration, which needs
the store, and training, which needs only text, run apart and resume apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nl2sparql.candidates.anchors import anchors_of
from nl2sparql.candidates.cues import read_cues
from nl2sparql.ranker.features import pair_features
from nl2sparql.ranker.reading import reading

#: candidates kept per question, best first by the zero-shot scorer (the agent's own order)
PER_QUESTION = 48


@dataclass(frozen=True, slots=True)
class Choice:
    """One candidate as the ranker sees it, and its label."""

    reading: str
    shape: str
    features: Mapping[str, float]
    label: float
    #: the candidate's hops from its anchors (groups written before this field read as 1)
    hops: int = 1


@dataclass(frozen=True, slots=True)
class Group:
    """One question and its labelled candidates."""

    id: str
    source: str
    question: str
    choices: tuple[Choice, ...]

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> Group:
        raw = json.loads(line)
        choices = tuple(Choice(**c) for c in raw.pop("choices"))
        return cls(choices=choices, **raw)


def answer_f1(predicted: Sequence[str], gold: Sequence[str]) -> float:
    """Set F1 of two answer lists (values compared as strings; nothing right scores 0).

    >>> answer_f1(["a", "b"], ["a"]), answer_f1([], ["a"]), answer_f1(["true"], ["true"])
    (0.6666666666666666, 0.0, 1.0)
    """
    hits = len(set(predicted) & set(gold))
    if not hits:
        return 0.0
    precision, recall = hits / len(set(predicted)), hits / len(set(gold))
    return 2 * precision * recall / (precision + recall)


def label_group(
    discriminator: Any,
    example_id: str,
    source: str,
    question: str,
    entities: Mapping[str, str] | None,
    gold: Sequence[str],
    timeout: float = 10.0,
) -> Group | None:
    """The agent's candidates of ``question`` labelled against ``gold``; ``None`` when none is right."""
    from nl2sparql.discriminate import answer_values
    from nl2sparql.errors import Nl2SparqlError

    agent = discriminator.parts()[1]
    grounding, found = discriminator.candidates(question, entities)
    cues = read_cues(question)
    named = [a.name for a in anchors_of(grounding, agent.limits, cues) if a.kind != "class"]
    choices = []
    for candidate in found[:PER_QUESTION]:
        try:
            answers = answer_values(discriminator.store, candidate.query(agent.prefixes), timeout)
        except Nl2SparqlError:
            continue
        features = pair_features(candidate, cues, named)
        text = reading(candidate) or candidate.text
        choices.append(Choice(text, candidate.shape, features, round(answer_f1(answers, gold), 4), candidate.hops))
    if not choices or max(c.label for c in choices) == 0.0:
        return None
    return Group(example_id, source, question, tuple(choices))


def gold_answers(store: Any, sparql: str, dialect: str, timeout: float = 10.0) -> tuple[str, ...]:
    """The gold query's answers on ``store`` (nothing when it fails or finds nothing)."""
    from nl2sparql.compiler import parse
    from nl2sparql.discriminate import answer_values
    from nl2sparql.errors import Nl2SparqlError

    try:
        return answer_values(store, parse(sparql, dialect), timeout)
    except Nl2SparqlError:
        return ()


def write_groups(groups: Iterable[Group | None], path: Path, done: set[str]) -> Iterator[Group]:
    """Append each group to ``path`` as it comes (a run stopped midway resumes after ``done``)."""
    with path.open("a", encoding="utf-8") as out:
        for group in groups:
            if group is not None and group.id not in done:
                out.write(group.to_json() + "\n")
                out.flush()
                yield group


def read_groups(path: Path) -> list[Group]:
    """Every group of a JSON-lines file (a line cut short by a stopped run is skipped)."""
    groups = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            groups.append(Group.from_json(line))
        except (json.JSONDecodeError, TypeError, KeyError):
            continue
    return groups


def dataset_groups(
    discriminator: Any, examples: Iterable[Any], source: str, dialect: str, done: set[str]
) -> Iterator[Group | None]:
    """Labelled groups of a dataset's questions whose gold query answers on the store, with
    the dataset's entities given (so that a linking miss does not hide the choice)."""
    from nl2sparql.training.synthesise import gold_entities

    for example in examples:
        if example.id in done or not example.gold_sparql:
            continue
        gold = gold_answers(discriminator.store, example.gold_sparql, dialect)
        if gold:
            yield label_group(discriminator, example.id, source, example.question, gold_entities(example), gold)


def pattern_groups(discriminator: Any, instances: Iterable[Any], done: set[str]) -> Iterator[Group | None]:
    """Labelled groups of questions written over the store's own statements (LPKG-style
    patterns, :mod:`nl2sparql.training.patterns`): shapes a dataset asks rarely, such as
    counts, comparisons, yes/no and unions, over any graph."""
    for instance in instances:
        if instance.id in done:
            continue
        gold = gold_answers(discriminator.store, instance.sparql, "sparql11")
        if gold:
            yield label_group(discriminator, instance.id, instance.pattern, instance.question, instance.entities, gold)
