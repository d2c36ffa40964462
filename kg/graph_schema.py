"""The vocabulary of a graph other than Freebase, read from the graph itself.

Statement descriptions must be written in the graph's own words. A published ontology
says what its properties and classes are called (``rdfs:label``), what they mean
(``rdfs:comment``), and what they join (``rdfs:domain`` / ``rdfs:range``, or an OWL
restriction ``C rdfs:subClassOf [ owl:onProperty p ; owl:allValuesFrom D ]``, read as
domain C and range D when no ``rdfs:domain`` / ``rdfs:range`` is given). Terms without a
label are named by the words of their IRI's local name, never by IRI fragments.

:func:`graph_prefixes` gives the namespaces a graph uses short names, so that a bank built
from the graph records them instead of Freebase's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from nl2sparql.kg.local_names import local_name_words

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
FREEBASE_NS = "http://rdf.freebase.com/ns/"
# Prefix names everyone knows; other namespaces are named after their last path segment.
KNOWN_PREFIXES: dict[str, str] = {
    RDF: "rdf",
    RDFS: "rdfs",
    OWL: "owl",
    XSD: "xsd",
    "http://www.w3.org/2004/02/skos/core#": "skos",
    "http://xmlns.com/foaf/0.1/": "foaf",
    "http://schema.org/": "schema",
    "https://schema.org/": "schema",
    "http://purl.org/dc/terms/": "dcterms",
    "http://purl.org/dc/elements/1.1/": "dc",
    "http://dbpedia.org/ontology/": "dbo",
    "http://dbpedia.org/resource/": "dbr",
    "http://dbpedia.org/property/": "dbp",
    "http://www.wikidata.org/entity/": "wd",
    "http://www.wikidata.org/prop/direct/": "wdt",
    FREEBASE_NS: "ns",
}
_LABEL_QUERY = f"""SELECT ?t ?p ?v WHERE {{
  VALUES ?p {{ <{RDFS}label> <{RDFS}comment> <{RDFS}domain> <{RDFS}range> }}
  ?t ?p ?v FILTER(isIRI(?t)) }}"""
_RESTRICTION_QUERY = f"""SELECT ?c ?p ?d WHERE {{
  ?c <{RDFS}subClassOf> ?r . ?r <{OWL}onProperty> ?p .
  {{ ?r <{OWL}allValuesFrom> ?d }} UNION {{ ?r <{OWL}someValuesFrom> ?d }}
  FILTER(isIRI(?c) && isIRI(?p) && isIRI(?d)) }}"""


class _Select(Protocol):
    def select(self, query: str, timeout: float | None = None) -> Any: ...


def iri_words(iri: str) -> str:
    """The words of an IRI's local name, lower-cased: ``...#hasMember`` -> ``has member``."""
    made = local_name_words(iri)
    return made[0].lower() if made else ""


def namespace_of(iri: str) -> str:
    """``http://x.org/onto#Band`` -> ``http://x.org/onto#``; ``http://x.org/data/A`` -> ``http://x.org/data/``."""
    cut = max(iri.rfind("#"), iri.rfind("/"))
    return iri[: cut + 1] if cut > 0 else iri


def graph_prefixes(namespaces: Mapping[str, int] | Iterable[str], limit: int = 20) -> dict[str, str]:
    """Prefix names for the (most used) namespaces, well-known ones by their usual names.

    >>> graph_prefixes(["http://example.org/music/ontology#", "http://www.w3.org/2001/XMLSchema#"])
    {'ontology': 'http://example.org/music/ontology#', 'xsd': 'http://www.w3.org/2001/XMLSchema#'}
    """
    counts = Counter(namespaces) if not isinstance(namespaces, Mapping) else Counter(dict(namespaces))
    out: dict[str, str] = {}
    for namespace, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]:
        name = KNOWN_PREFIXES.get(namespace) or _prefix_name(namespace)
        base, n = name, 2
        while name in out:
            name, n = f"{base}{n}", n + 1
        out[name] = namespace
    return out


def _prefix_name(namespace: str) -> str:
    segments = [s for s in re.split(r"[/#:]", namespace) if s and not s.startswith("www")]
    last = segments[-1] if segments else "ns"
    name = re.sub(r"[^A-Za-z0-9_]", "", last).lower()
    return name if name and name[0].isalpha() else f"ns{name}"


@dataclass(slots=True)
class GraphSchema:
    """Labels, comments, domains and ranges of a graph's terms (IRIs without ``<>``)."""

    labels: dict[str, str] = field(default_factory=dict)
    comments: dict[str, str] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)
    ranges: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_store(cls, store: _Select) -> GraphSchema:
        """Read the schema statements of ``store`` (a few queries over its RDFS/OWL triples)."""
        schema = cls()
        for row in sorted(store.select(_LABEL_QUERY).rows, key=_row_key):
            term, predicate, value = row["t"].value, row["p"].value, row["v"]
            if predicate == RDFS + "label" and value.type == "literal" and value.lang in (None, "", "en"):
                schema.labels.setdefault(term, value.value)
            elif predicate == RDFS + "comment" and value.type == "literal" and value.lang in (None, "", "en"):
                schema.comments.setdefault(term, value.value)
            elif predicate == RDFS + "domain" and value.type == "uri":
                schema.domains.setdefault(term, value.value)
            elif predicate == RDFS + "range" and value.type == "uri":
                schema.ranges.setdefault(term, value.value)
        for row in sorted(store.select(_RESTRICTION_QUERY).rows, key=_row_key):
            schema.domains.setdefault(row["p"].value, row["c"].value)
            schema.ranges.setdefault(row["p"].value, row["d"].value)
        return schema

    def name(self, iri: str) -> str:
        """What a term is called: its label, else the words of its local name, else the start
        of its comment (for opaque IRIs such as ``P123``)."""
        label = self.labels.get(iri, "").strip()
        if label:
            return " ".join(label.split())
        words = iri_words(iri)
        if words:
            return words
        comment = self.comments.get(iri, "")
        return " ".join(comment.split()[:6]).rstrip(".,;:")

    def domain(self, iri: str) -> str | None:
        return self.domains.get(iri)

    def range(self, iri: str) -> str | None:
        return self.ranges.get(iri)


def _row_key(row: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(getattr(term, "value", term)) for term in row.values())
