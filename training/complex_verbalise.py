"""Questions for synthetic complex queries, from templates over the source question's own words.

No model writes them: CWQ's own first step was the same (a template "machine question"
that people then paraphrased), e.g. *what type of government does the country that
contains Northern District*. Here the source question keeps its words; the new part is
the memory's description of the added statement (the bank's TemplateDescriber phrase,
``the country whose administrative divisions is ...``) with the entity's name written in:

* composition: the topic mention in the question is replaced by that phrase;
* conjunction: ``<question> and is <phrase>?``;
* comparative: ``<question>, where the <relation> is before 1971?``;
* superlative: ``<question>, which has the latest <relation>?``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from nl2sparql.memory_bank.build_queries import QueryDecomposer
from nl2sparql.memory_bank.describe import HUB_INCOMING, words
from nl2sparql.memory_bank.statement import Statement
from nl2sparql.training.complex_extend import Extension
from nl2sparql.training.complex_source import Source

_COMPARE = {("date", True): "after", ("date", False): "before", ("number", True): "more than"}
_COMPARE[("number", False)] = "less than"
_RANK = {("date", True): "latest", ("date", False): "earliest", ("number", True): "largest"}
_RANK[("number", False)] = "smallest"


class VerbaliseError(ValueError):
    """No question can be written for an extension (the mention is not in the source question)."""


def stem(question: str) -> str:
    """The question without its closing punctuation.

    >>> stem("what does israel have? ")
    'what does israel have'
    """
    return question.strip().rstrip("?.! ").strip()


def phrase(decomposer: QueryDecomposer, pattern: str, entity: str, name: str, output: str) -> str:
    """The memory's description of ``pattern`` read from ``entity`` to ``output``, as a noun phrase."""
    query = f"PREFIX ns: <http://rdf.freebase.com/ns/>\nSELECT DISTINCT {output} WHERE {{\n{pattern}\n}}"
    found = decomposer.decompose(query, [f"ns:{entity}"], {f"ns:{entity}": name})
    statements = [o.entry for o in found.statements if isinstance(o.entry, Statement)]
    if len(statements) != 1:
        raise VerbaliseError(f"the added pattern is {len(statements)} statements, not one")
    entry = statements[0]
    body = entry.description.removeprefix(f"{entry.output} is ")
    return " ".join(body.replace(entry.inputs[0], name).split())


def replace_mention(question: str, mention: str, text: str) -> str:
    """``question`` with the first whole-word ``mention`` (any case) replaced by ``text``.

    >>> replace_mention("what does Israel have?", "israel", "the country that contains X")
    'what does the country that contains X have?'
    >>> replace_mention("what do the bahamas use?", "bahamas", "the country whose capital is Y")
    'what do the country whose capital is Y use?'
    """
    if not mention.strip():
        raise VerbaliseError("the source names no topic mention")
    found = re.search(rf"(?<!\w){re.escape(mention.strip())}(?!\w)", question, re.IGNORECASE)
    if found is None:
        raise VerbaliseError(f"the mention {mention!r} is not in the question")
    head = question[: found.start()]
    if text.lower().startswith("the ") and head.lower().endswith("the "):
        head = head[:-4]  # "the the country ...": the phrase brings its own article
    return head + text + question[found.end() :]


def relation_noun(path: list[str], hub: bool = True) -> str:
    """What a date or number relation measures, as words. Through a hub CVT the first relation
    says it (``population``); through another CVT both do (``date of rate of the source of exchange``).

    >>> relation_noun(["location.statistical_region.population", "measurement_unit.dated_integer.number"])
    'population'
    >>> relation_noun(["finance.currency.source_of_exchange", "finance.exchange_rate.date_of_rate"], hub=False)
    'date of rate of the source of exchange'
    """
    if len(path) == 1 or hub:
        return words(path[0])
    return f"{words(path[-1])} of the {words(path[0])}"


def is_hub(path: list[str], decomposer: QueryDecomposer) -> bool:
    """Whether a two-relation path passes through a hub CVT (one many relations lead into)."""
    schema = decomposer.schema
    cvt = schema.range(path[0]) if schema is not None and len(path) > 1 else None
    return cvt is not None and schema.incoming(cvt) > HUB_INCOMING  # type: ignore[union-attr]


def verbalise(extension: Extension, source: Source, decomposer: QueryDecomposer) -> str:
    """The question for ``extension`` (see the module doc for the four templates)."""
    detail: Mapping = extension.detail
    if extension.category == "composition":
        text = phrase(decomposer, detail["pattern"], detail["entity"], detail["name"], detail["variable"])
        return replace_mention(source.question, source.mention, text)
    if extension.category == "conjunction":
        text = phrase(decomposer, detail["pattern"], detail["entity"], detail["name"], "?x")
        return f"{stem(source.question)} and is {text}?"
    noun = relation_noun(detail["path"], is_hub(detail["path"], decomposer))
    if extension.category == "comparative":
        word = _COMPARE[(detail["kind"], detail["greater"])]
        return f"{stem(source.question)}, where the {noun} is {word} {detail['value']}?"
    return f"{stem(source.question)}, which has the {_RANK[(detail['kind'], detail['descending'])]} {noun}?"
