"""Names for entities that have no label: words made from their IRI's local name.

Many graphs other than Freebase give their instances no ``rdfs:label``: the name lives in
the IRI (``.../ontology#JohnLennonP``). Without a label such an entity cannot be linked
from a question, so every IRI that the label predicates leave nameless gets one made from
its local name: percent-decoding, camelCase split into words, underscores and hyphens to
spaces. A trailing single capital that some ontologies use as a type letter
(``FooBarC``) is kept in the name and dropped in a variant, which is matched like an alias.

Freebase nodes are never named this way (a nameless Freebase node is a CVT), nor are
records elsewhere (:func:`record_nodes`: the instances of a class whose instances have no
label where other classes' have), nor are the
graph's schema terms (classes, properties, datatypes, the ontology itself) or the
RDF/RDFS/OWL/XSD/SKOS vocabularies: they are not what a question names as its topic.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable
from typing import Any, Protocol

FREEBASE_NS = "http://rdf.freebase.com/ns/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
# The pseudo predicates label records made here carry (never in a store).
LOCAL_NAME = "urn:nl2sparql:local-name"
LOCAL_NAME_VARIANT = "urn:nl2sparql:local-name-variant"

VOCABULARIES = (
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "http://www.w3.org/2000/01/rdf-schema#",
    "http://www.w3.org/2002/07/owl#",
    "http://www.w3.org/2001/XMLSchema#",
    "http://www.w3.org/2004/02/skos/core#",
)
_OWL = "http://www.w3.org/2002/07/owl#"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SCHEMA_TYPES = tuple(
    [_OWL + t for t in ("Class", "ObjectProperty", "DatatypeProperty", "AnnotationProperty", "Ontology")]
    + [_OWL + t for t in ("Restriction", "TransitiveProperty", "FunctionalProperty", "SymmetricProperty")]
    + [_RDFS + "Class", _RDFS + "Datatype", "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property"]
)
# Predicates whose objects are classes (so never instances to name).
CLASS_POINTERS = (RDF_TYPE, _RDFS + "subClassOf", _RDFS + "domain", _RDFS + "range")

# A word boundary inside camelCase; ``McCartney`` stays one word.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?<!Mc)(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\-\s.+]+")


class _Select(Protocol):
    def select(self, query: str, timeout: float | None = None) -> Any: ...


def local_part(iri: str) -> str:
    """What follows the IRI's last ``#`` or ``/`` (``...#FooBar`` -> ``FooBar``), percent-decoded."""
    tail = re.split(r"[#/:]", iri.rstrip("/#"))[-1]
    return urllib.parse.unquote(tail)


def local_name_words(iri: str) -> tuple[str, str | None] | None:
    """The name words of ``iri`` and, when it ends in a type letter, the name without it.

    >>> local_name_words("http://example.org/onto#JohnLennonP")
    ('John Lennon P', 'John Lennon')
    >>> local_name_words("http://example.org/New_York_City")
    ('New York City', None)
    >>> local_name_words("http://example.org/data/USAToday")
    ('USA Today', None)
    >>> local_name_words("http://example.org/data/PaulMcCartney")
    ('Paul McCartney', None)
    >>> local_name_words("http://example.org/data/12345") is None
    True
    """
    text = _SEPARATORS.sub(" ", _CAMEL.sub(" ", local_part(iri))).strip()
    if not re.search(r"[^\W\d_]{2}", text):
        return None  # an opaque id (digits, one letter): nothing a question would say
    name = " ".join(text.split())
    return name, without_type_letter(name)


def without_type_letter(name: str) -> str | None:
    """The name less the single capital some ontologies end a local name with (``None``: none).

    >>> without_type_letter("John Lennon P"), without_type_letter("New York City"), without_type_letter("A B")
    ('John Lennon', None, None)
    """
    parts = name.split()
    if len(parts) > 1 and len(parts[-1]) == 1 and parts[-1].isupper() and len(parts[-2]) > 1:
        return " ".join(parts[:-1])
    return None


def schema_terms(store: _Select) -> set[str]:
    """Classes, properties and other schema terms of the graph: IRIs used as predicates, objects
    of ``rdf:type`` / ``rdfs:subClassOf`` / domain / range, and IRIs typed as schema terms."""
    pointers = " ".join(f"<{p}>" for p in CLASS_POINTERS)
    types = " ".join(f"<{t}>" for t in SCHEMA_TYPES)
    queries = (
        "SELECT DISTINCT ?t WHERE { ?s ?t ?o }",
        f"SELECT DISTINCT ?t WHERE {{ VALUES ?p {{ {pointers} }} ?s ?p ?t FILTER(isIRI(?t)) }}",
        f"SELECT DISTINCT ?t WHERE {{ VALUES ?c {{ {types} }} ?t <{RDF_TYPE}> ?c FILTER(isIRI(?t)) }}",
    )
    return {row["t"].value for query in queries for row in store.select(query).rows}


def record_nodes(store: _Select, label_predicates: Iterable[str]) -> set[str]:
    """The instances of classes none of whose instances has a label, where another class's
    instances have one, and whose IRIs all hold a number: records keyed by their parts (an
    award joining its winner, film and ceremony: ``award/60-Best_actress-Cher``), which a
    question never names by their IRIs. None where no instance has a label: there the IRIs
    are the names; nor a class of unlabelled things named by words (``ANightAtTheOperaA``)."""
    values = " ".join(f"<{p}>" for p in label_predicates)
    query = (
        f"SELECT ?c (COUNT(?l) AS ?n) WHERE {{ ?e <{RDF_TYPE}> ?c . "
        f"OPTIONAL {{ VALUES ?p {{ {values} }} ?e ?p ?l }} }} GROUP BY ?c"
    )
    counts = {row["c"].value: int(row["n"].value) for row in store.select(query).rows if "c" in row}
    bare = [c for c, n in counts.items() if n == 0]
    if not bare or all(n == 0 for n in counts.values()):
        return set()
    labelled = " ".join(f"<{c}>" for c, n in counts.items() if n > 0)
    query = (
        f"SELECT ?e ?c WHERE {{ VALUES ?c {{ {' '.join(f'<{c}>' for c in bare)} }} ?e <{RDF_TYPE}> ?c "
        f"FILTER NOT EXISTS {{ VALUES ?d {{ {labelled} }} ?e <{RDF_TYPE}> ?d }} }}"
    )
    members: dict[str, list[str]] = {}
    for row in store.select(query).rows:
        members.setdefault(row["c"].value, []).append(row["e"].value)
    keyed = (iris for iris in members.values() if all(re.search(r"\d", local_part(iri)) for iri in iris))
    return {iri for iris in keyed for iri in iris}


DEGREE_QUERY = (
    "SELECT ?e (COUNT(*) AS ?d) WHERE { { ?e ?q ?o } UNION { ?s ?q ?e } "
    f'FILTER(isIRI(?e) && !STRSTARTS(STR(?e), "{FREEBASE_NS}")) }} GROUP BY ?e'
)

def iri_name(iri: str) -> str | None:
    """The name an unlabelled entity is shown by: its local name as words, for IRIs outside
    Freebase (a nameless Freebase node is a CVT and has none).

    >>> iri_name("http://example.org/music/data/LiverpoolC"), iri_name("http://rdf.freebase.com/ns/m.0abc")
    ('Liverpool C', None)
    """
    if iri.startswith((FREEBASE_NS, *VOCABULARIES)):
        return None
    made = local_name_words(iri)
    return made[0] if made else None


# A label record as label_index reads it: (entity IRI, predicate, text).
Record = tuple[str, str, str]


def local_name_records(
    rows: Iterable[dict[str, Any]], named: set[str], schema: set[str]
) -> tuple[list[Record], dict[str, int]]:
    """Label records and degrees for the IRIs of ``rows`` (``?e ?d`` of :data:`DEGREE_QUERY`)
    that no label predicate names and that are not schema terms."""
    records: list[Record] = []
    degrees: dict[str, int] = {}
    for row in rows:
        iri = row["e"].value
        if iri in named or iri in schema or iri.startswith((FREEBASE_NS, *VOCABULARIES)):
            continue
        made = local_name_words(iri)
        if made is None:
            continue
        name, variant = made
        records.append((iri, LOCAL_NAME, name))
        if variant:
            records.append((iri, LOCAL_NAME_VARIANT, variant))
        degrees[iri] = int(row["d"].value)
    return records, degrees
