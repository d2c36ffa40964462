"""A WebQSP train question as the seed of complex questions (CWQ's recipe starts from these).

Only the reference parse is extended, and only one that names its topic entity, states
an inferential chain the schema knows, and neither counts nor ranks (a superlative of a
superlative is not a question CWQ asks). The topic's type is the domain of the chain's
first relation and the answer's type the range of its last: what every extension is
type-checked against.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nl2sparql.kg.freebase_schema import FreebaseSchema

ANSWER_VAR = "?x"
_VAR = re.compile(r"\?\w+")


@dataclass(frozen=True, slots=True)
class Source:
    """The parts of a WebQSP question that an extension reads."""

    id: str
    question: str
    mention: str
    topic: str
    topic_name: str
    chain: tuple[str, ...]
    answers: tuple[str, ...]
    sparql: str
    entities: Mapping[str, str]
    topic_type: str
    answer_type: str

    def fresh(self, base: str, taken: str = "") -> str:
        """A variable named like ``base`` that neither the source query nor ``taken`` uses.

        >>> s = Source("q", "", "", "m.1", "", (), (), "?x ?c ?c1", {}, "", "")
        >>> s.fresh("c"), s.fresh("num")
        ('?c2', '?num')
        """
        used = set(_VAR.findall(self.sparql)) | set(_VAR.findall(taken))
        name, n = f"?{base}", 0
        while name in used:
            n += 1
            name = f"?{base}{n}"
        return name


def read_source(record: Mapping[str, Any], schema: FreebaseSchema) -> Source | str:
    """The :class:`Source` of a WebQSP record, or why it cannot be one (a short reason)."""
    parse = (record.get("Parses") or [{}])[0]
    sparql = parse.get("Sparql") or ""
    topic, chain = parse.get("TopicEntityMid"), tuple(parse.get("InferentialChain") or ())
    if not topic or not parse.get("TopicEntityName"):
        return "no topic entity"
    if "COUNT(" in sparql.upper().replace(" ", "") or "ORDER BY" in sparql.upper() or parse.get("Order"):
        return "counts or ranks"
    if not chain or not all(schema.has_predicate(p) for p in chain):
        return "chain not in the schema"
    if f"ns:{topic} " not in sparql or f"SELECT DISTINCT {ANSWER_VAR}\n" not in sparql:
        return "not the WebQSP query form"
    topic_type, answer_type = schema.domain(chain[0]), schema.range(chain[-1])
    if not topic_type or not answer_type:
        return "chain not in the schema"
    entities = {topic: parse["TopicEntityName"]}
    for constraint in parse.get("Constraints") or ():
        if constraint.get("ArgumentType") == "Entity":
            entities.setdefault(constraint["Argument"], constraint.get("EntityName") or "")
    answers = tuple(str(a["AnswerArgument"]) for a in parse.get("Answers") or () if a.get("AnswerType") == "Entity")
    return Source(
        id=str(record.get("QuestionId")),
        question=str(record.get("RawQuestion") or ""),
        mention=str(parse.get("PotentialTopicEntityMention") or ""),
        topic=topic,
        topic_name=parse["TopicEntityName"],
        chain=chain,
        answers=answers,
        sparql=sparql,
        entities=entities,
        topic_type=topic_type,
        answer_type=answer_type,
    )


def fits(schema: FreebaseSchema, type_id: str | None, holder: str) -> bool:
    """Whether a relation end of type ``type_id`` may sit on a node of type ``holder``: the same
    type or one ``holder`` is a subclass of (a country is a location and a statistical region)."""
    return bool(type_id) and (type_id == holder or type_id in schema.parents(holder))
