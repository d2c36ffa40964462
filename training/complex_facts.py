"""Real facts for complex-question synthesis, read from the WebQSP train gold data.

Extending a question needs a second entity that really stands in the new relation (CWQ
took it from Freebase). Here Freebase is not at hand, but every WebQSP train parse is a
set of facts: its topic entity reaches each gold answer through the inferential chain (a
constraint narrows the answers, it never makes the chain false). A chain of one relation,
or of two through a CVT type, is one fact per answer, with the answer's name; a value
answer (a date, a number) is an observed value of that relation. Only the training part
is read (the dev split ``WebQTrn-N``, ``N % 10 == 0``, is never a source of anything), and
the types an entity has are the domains and ranges of the relations it was seen in.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from nl2sparql.kg.freebase_schema import FreebaseSchema
from nl2sparql.kg.splits import is_webqsp_dev

#: chains longer than this are not one fact (a composition through a named node is two)
MAX_PATH = 2


@dataclass(frozen=True, slots=True)
class Fact:
    """``subject --path--> object``: ``path`` is one relation, or two through a CVT node."""

    subject: str
    path: tuple[str, ...]
    object: str
    name: str
    source: str  # the WebQSP question it was read from
    value: bool = False  # the object is a literal (a date or a number), not an entity


@dataclass
class FactIndex:
    """Facts by subject and by object, entity names, and the values each relation path takes."""

    by_subject: dict[str, list[Fact]] = field(default_factory=lambda: defaultdict(list))
    by_object: dict[str, list[Fact]] = field(default_factory=lambda: defaultdict(list))
    names: dict[str, str] = field(default_factory=dict)
    values: dict[tuple[str, ...], list[str]] = field(default_factory=lambda: defaultdict(list))

    def add(self, fact: Fact) -> None:
        if fact.value:
            self.values[fact.path].append(fact.object)
            return
        self.by_subject[fact.subject].append(fact)
        self.by_object[fact.object].append(fact)
        self.names.setdefault(fact.object, fact.name)

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_subject.values())


def is_fact_path(path: tuple[str, ...], schema: FreebaseSchema) -> bool:
    """One relation, or two whose middle node is a CVT: a path that states one fact per answer."""
    if not path or len(path) > MAX_PATH or not all(schema.has_predicate(p) for p in path):
        return False
    return len(path) == 1 or schema.leads_into_cvt(path[0])


def record_facts(record: Mapping[str, Any], schema: FreebaseSchema) -> Iterable[Fact]:
    """The facts of one WebQSP record's reference parse (none for a count or an unnamed topic)."""
    parse = (record.get("Parses") or [{}])[0]
    topic, path = parse.get("TopicEntityMid"), tuple(parse.get("InferentialChain") or ())
    if not topic or "COUNT(" in (parse.get("Sparql") or "").upper() or not is_fact_path(path, schema):
        return
    for answer in parse.get("Answers") or ():
        argument = str(answer.get("AnswerArgument") or "")
        if not argument:
            continue
        value = answer.get("AnswerType") != "Entity"
        name = argument if value else (answer.get("EntityName") or "")
        if value or name:
            yield Fact(topic, path, argument, name, str(record.get("QuestionId")), value)


def training_records(path: str | Path) -> list[dict[str, Any]]:
    """WebQSP train records outside the dev split (``WebQTrn-N``, ``N % 10 == 0``)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [r for r in data["Questions"] if not is_webqsp_dev(SimpleNamespace(id=r.get("QuestionId")))]


def build_fact_index(records: Iterable[Mapping[str, Any]], schema: FreebaseSchema) -> FactIndex:
    """Every fact of ``records``, with the topic entities' names from their parses."""
    index = FactIndex()
    for record in records:
        parse = (record.get("Parses") or [{}])[0]
        if parse.get("TopicEntityMid") and parse.get("TopicEntityName"):
            index.names.setdefault(parse["TopicEntityMid"], parse["TopicEntityName"])
        for fact in record_facts(record, schema):
            index.add(fact)
    return index
