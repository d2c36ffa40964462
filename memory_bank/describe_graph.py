"""Descriptions for statements over a graph other than Freebase, in the graph's own words.

The template describer reads Freebase ids (``people.person.sibling_s``); given a full IRI
it writes fragments such as ``org/.../ontology#hasX``. This describer keeps its sentence
shapes but takes the words from the graph's schema (:class:`GraphSchema`): a property's
``rdfs:label`` (or its local name as words), the labels of its domain and range classes.
A leading ``has`` / ``is`` is dropped, so ``hasMember`` reads as the noun ``member``:
``?e2 is the member of the band ?e1``. A name that ends in a noun after a verb and a
preposition (``formedInYear``, ``bornInCity``) says what its value is:
``?e2 is the year that the band ?e1 is formed in``. A label that is a verb with its
preposition (``departs from``) reads as a verb, and where the local name says in other
words what the value is (``origin``), that noun is kept before the class:
``?e2 is the origin airport that the flight ?e1 departs from``. A label that is a noun with
its preposition (``contestant in``) says what the holder is:
``?e2 is the baker that is contestant in the series ?e1``.
"""

from __future__ import annotations

from nl2sparql.kg.graph_schema import OWL, RDF, RDFS, XSD, GraphSchema, iri_words
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
        """``formed in year`` -> (``formed in``, ``year``): a verb, a preposition, then a noun;
        not a yes/no attribute's name (*collected at the drive-through* is true or false, no
        drive-through the holder is collected at), nor a participle that qualifies a noun
        (*used price at the bookstore in dollars*, *saturated fat in grams*: a price, a fat)."""
        words = self.phrase(predicate).split()
        if (
            self._range(predicate) == XSD + "boolean"
            or len(words) < 3
            or not (words[0].endswith("ed") or words[0] in PARTICIPLES)
            or words[1] not in PREPOSITIONS
        ):
            return None
        for i in range(1, len(words) - 1):
            if words[i] in PREPOSITIONS and all(w not in PREPOSITIONS for w in words[i + 1 :]):
                return " ".join(words[: i + 1]), " ".join(words[i + 1 :])
        return None

    def _one(self, t: Triple, source: str, target: str) -> str:
        split = self.value_noun(t.predicate)
        if split is None:
            found = self._verb_with_preposition(t, source, target) or self._noun_with_preposition(t, source, target)
            return found or super()._one(t, source, target)
        verb, noun = split
        if t.subject == source:
            return f"{target} is the {noun} that {self._the(self._domain(t.predicate), source)} is {verb}"
        what = self.noun(self._domain(t.predicate)) or "entity"
        return f"{target} is the {what} {verb} the {noun} {source}"

    def _verb_with_preposition(self, t: Triple, source: str, target: str) -> str | None:
        """``departs from``: a finite verb and its preposition, which take no ``is``; the
        local name's noun (``origin``) names the value where the label does not."""
        phrase = self.phrase(t.predicate)
        parts = phrase.split()
        if len(parts) < 2 or parts[-1] not in PREPOSITIONS or not _finite(parts[0]):
            return None
        dom, rng = self._domain(t.predicate), self._range(t.predicate)
        value = " ".join(filter(None, (self._other_noun(t.predicate, phrase), self.noun(rng) or "entity")))
        if t.subject == source:
            return f"{target} is the {value} that {self._the(dom, source)} {phrase}"
        return f"{target} is the {self.noun(dom) or 'entity'} that {phrase} the {value} {source}"

    def _noun_with_preposition(self, t: Triple, source: str, target: str) -> str | None:
        """``contestant in``, ``part of``: a noun and its preposition, read from the value's
        side as what the holder *is* (``the baker that is contestant in the series ?e1``;
        ``the episode of the series ?e1`` where the noun is the holder's class)."""
        parts = self.phrase(t.predicate).split()
        first = parts[0] if parts else ""
        if t.subject == source or len(parts) < 2 or parts[-1] not in PREPOSITIONS:
            return None
        if first.endswith("ed") or first in PARTICIPLES or _finite(first):
            return None
        what = self.noun(self._domain(t.predicate)) or "entity"
        holder = self._the(self._range(t.predicate), source)
        if " ".join(parts[:-1]) == what:
            return f"{target} is the {' '.join(parts)} {holder}"
        return f"{target} is the {what} that is {' '.join(parts)} {holder}"

    def _other_noun(self, predicate: str, phrase: str) -> str:
        """The local name's words (``origin``) where they share none with the label's."""
        words = iri_words(_iri(predicate)).split()
        alphabetic = all(w.isalpha() and len(w) > 2 for w in words)
        if not words or len(words) > 2 or not alphabetic or set(words) & set(phrase.split()) or _finite(words[0]):
            return ""
        return " ".join(words)

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


def _finite(word: str) -> bool:
    """A verb in the third person (``departs``, ``arrives``), as a label's first word.

    >>> [_finite(w) for w in ("departs", "arrives", "address", "status", "located", "has")]
    [True, True, False, False, False, False]
    """
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in PARTICIPLES
