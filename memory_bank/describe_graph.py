"""Descriptions for statements over a graph other than Freebase, in the graph's own words.

The template describer reads Freebase ids (``people.person.sibling_s``); given a full IRI
it writes fragments such as ``org/.../ontology#hasX``. This describer keeps its sentence
shapes but takes the words from the graph's schema (:class:`GraphSchema`): a property's
``rdfs:label`` (or its local name as words), the labels of its domain and range classes.
A leading ``has`` / ``is`` is dropped, so ``hasMember`` reads as the noun ``member``:
``?e2 is the member of the band ?e1``. A name that ends in a noun after a verb and a
preposition (``formedInYear``, ``bornInCity``) says what its value is:
``?e2 is the year that the band ?e1 is formed in``.
"""

from __future__ import annotations

from nl2sparql.kg.graph_schema import OWL, RDF, RDFS, XSD, GraphSchema
from nl2sparql.memory_bank.describe import PARTICIPLES, PREPOSITIONS, VERBS, TemplateDescriber
from nl2sparql.memory_bank.statement import Triple

RDF_TYPE = RDF + "type"
# Types that say nothing about what a node is.
_VAGUE = (XSD, RDFS + "Literal", RDFS + "Resource", OWL + "Thing")


def _iri(term: str) -> str:
    return term[1:-1] if term.startswith("<") and term.endswith(">") else term


class GraphDescriber(TemplateDescriber):
    """MemQ-style noun phrases from a graph's labels, local names, domains and ranges."""

    name = "graph"

    def __init__(self, graph: GraphSchema) -> None:
        super().__init__(None)
        self.graph = graph

    def phrase(self, predicate: str) -> str:
        iri = _iri(predicate)
        if iri == RDF_TYPE:
            return "type"
        words = self.graph.name(iri).lower().split()
        if len(words) > 1 and words[0] in ("has", "is"):
            words = words[1:]
        return " ".join(words) or "related entity"

    def value_noun(self, predicate: str) -> tuple[str, str] | None:
        """``formed in year`` -> (``formed in``, ``year``): a verb, a preposition, then a noun."""
        words = self.phrase(predicate).split()
        if not words or not (words[0].endswith("ed") or words[0] in PARTICIPLES):
            return None
        for i in range(1, len(words) - 1):
            if words[i] in PREPOSITIONS and all(w not in PREPOSITIONS for w in words[i + 1 :]):
                return " ".join(words[: i + 1]), " ".join(words[i + 1 :])
        return None

    def _one(self, t: Triple, source: str, target: str) -> str:
        split = self.value_noun(t.predicate)
        if split is None:
            return super()._one(t, source, target)
        verb, noun = split
        if t.subject == source:
            return f"{target} is the {noun} that {self._the(self._domain(t.predicate), source)} is {verb}"
        what = self.noun(self._domain(t.predicate)) or "entity"
        return f"{target} is the {what} {verb} the {noun} {source}"

    def is_verb(self, predicate: str) -> bool:
        return self.phrase(predicate) in VERBS

    def _domain(self, predicate: str) -> str | None:
        return self.graph.domain(_iri(predicate))

    def _range(self, predicate: str) -> str | None:
        return self.graph.range(_iri(predicate))

    def noun(self, type_id: str | None) -> str | None:
        if not type_id or type_id.startswith(_VAGUE):
            return None
        return self.graph.name(type_id).lower() or None
