"""The values a store hands back, shaped like the SPARQL 1.1 JSON results format.

Every store (Oxigraph, rdflib, a remote endpoint) converts its own term objects into
:class:`Term`, so callers compare and print answers without knowing which engine ran the
query. Literals follow RDF 1.1 as the JSON format writes them: a simple literal and an
``xsd:string`` literal both have ``datatype=None``; a language-tagged literal has ``lang``
and no datatype.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = XSD + "string"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

TermType = Literal["uri", "literal", "bnode"]


@dataclass(frozen=True, slots=True)
class Term:
    """One RDF term in a result row: ``uri``, ``literal`` or ``bnode``."""

    type: TermType
    value: str
    datatype: str | None = None
    lang: str | None = None

    @classmethod
    def uri(cls, value: str) -> Term:
        return cls("uri", value)

    @classmethod
    def literal(cls, value: str, datatype: str | None = None, lang: str | None = None) -> Term:
        """A literal, normalised: ``xsd:string`` and ``rdf:langString`` datatypes are dropped."""
        if lang:
            return cls("literal", value, None, lang.lower())
        if datatype in (XSD_STRING, RDF_LANG_STRING):
            datatype = None
        return cls("literal", value, datatype, None)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Term:
        """A term from a SPARQL JSON binding (also Virtuoso's older ``typed-literal``)."""
        kind = data.get("type")
        value = str(data.get("value", ""))
        if kind == "uri":
            return cls("uri", value)
        if kind == "bnode":
            return cls("bnode", value)
        if kind in ("literal", "typed-literal"):
            return cls.literal(value, data.get("datatype"), data.get("xml:lang") or data.get("lang"))
        raise ValueError(f"unknown SPARQL JSON term type {kind!r} in {dict(data)!r}")

    def to_json(self) -> dict[str, str]:
        """The SPARQL 1.1 JSON results form of the term."""
        out = {"type": self.type, "value": self.value}
        if self.datatype:
            out["datatype"] = self.datatype
        if self.lang:
            out["xml:lang"] = self.lang
        return out

    @property
    def freebase_id(self) -> str:
        """``m.0abc`` for a Freebase IRI, else the value unchanged."""
        if self.type == "uri" and self.value.startswith("http://rdf.freebase.com/ns/"):
            return self.value[len("http://rdf.freebase.com/ns/") :]
        return self.value

    def n3(self) -> str:
        """The term in SPARQL/Turtle syntax (for messages and VALUES blocks)."""
        if self.type == "uri":
            return f"<{self.value}>"
        if self.type == "bnode":
            return f"_:{self.value}"
        escaped = (
            self.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
        )
        if self.lang:
            return f'"{escaped}"@{self.lang}'
        if self.datatype:
            return f'"{escaped}"^^<{self.datatype}>'
        return f'"{escaped}"'


@dataclass(frozen=True, slots=True)
class SelectResult:
    """The answer to a SELECT query: the projected variables and one dict per row.

    A variable unbound in a row is absent from that row's dict.
    """

    variables: tuple[str, ...]
    rows: list[dict[str, Term]] = field(hash=False)

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, variable: str) -> list[Term | None]:
        """The values of one variable, ``None`` where it is unbound."""
        return [row.get(variable) for row in self.rows]

    def to_json(self) -> dict[str, Any]:
        """The SPARQL 1.1 JSON results document."""
        return {
            "head": {"vars": list(self.variables)},
            "results": {"bindings": [{k: t.to_json() for k, t in row.items()} for row in self.rows]},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SelectResult:
        variables = tuple(data.get("head", {}).get("vars", []))
        bindings = data.get("results", {}).get("bindings", [])
        rows = [{k: Term.from_json(v) for k, v in b.items()} for b in bindings]
        return cls(variables, rows)


def ask_json(value: bool) -> dict[str, Any]:
    """The SPARQL 1.1 JSON results document of an ASK query."""
    return {"head": {}, "boolean": bool(value)}


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Size of a store: its triple count and the number of triples per predicate IRI."""

    triples: int
    predicates: dict[str, int] = field(hash=False)

    def to_json(self) -> dict[str, Any]:
        return {"triples": self.triples, "predicates": dict(sorted(self.predicates.items()))}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StoreStats:
        return cls(int(data["triples"]), {str(k): int(v) for k, v in data["predicates"].items()})
