"""Statements from the Freebase schema alone: how a relation no training query used becomes recallable.

A bank built from a query log only knows the relations its queries used (WebQSP train
covers every statement of 44% of CWQ part A). The ontology (``fb_roles``: domain,
relation, range) says which statements *can* exist:

* structure 1: every relation whose domain and range are named or value types, read
  forwards and (when its values are entities) backwards;
* structures 2 and 3: every two-hop path through a mediator (CVT) type, and every
  reading of a CVT with two named inputs, made from the CVT type's links (the relations
  that lead into it and out of it) by the same code that reads a store's CVT nodes.

Most CVT types have a handful of links; a few are hubs that hundreds of relations lead
into (``measurement_unit.dated_integer``: population, marriages, aircraft movements...).
A CVT *node* is reached by one of those, so a hub is read once per link that leads into
it, together with the links that lead out of it, never two incoming links together.
Unlike a store's CVT nodes, a link and its reverse together are kept: through a CVT they
are the symmetric relations (``people.person.sibling_s`` in, ``sibling_relationship.sibling``
out: the siblings of a person).
Every statement made here has support 0: seen in the schema, not in a query, so the
recall prior still ranks a statement that queries used first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from nl2sparql.kg.freebase_schema import FreebaseSchema, Role
from nl2sparql.memory_bank.bank import StatementCollector
from nl2sparql.memory_bank.build_store import MAX_CVT_LINKS, Link, plain_statements, signature_statements
from nl2sparql.memory_bank.statement import NS_PREFIX, Statement

# Domains whose relations describe Freebase itself (web pages, images, user spaces), not the world.
SKIPPED_DOMAINS: frozenset[str] = frozenset({"freebase", "user", "type", "kg", "dataworld", "m"})
SKIPPED_TYPES: frozenset[str] = frozenset({"common.webpage", "common.image", "common.document"})


@dataclass(frozen=True, slots=True)
class CvtLinks:
    """The relations that lead into a CVT type and out of it, as store-scan links."""

    incoming: tuple[Link, ...]
    outgoing: tuple[Link, ...]

    def signatures(self, max_links: int = MAX_CVT_LINKS) -> list[tuple[Link, ...]]:
        """One signature for a small CVT type; one per incoming link for a hub."""
        links = (*self.incoming, *self.outgoing)
        if len(links) <= max_links or not self.incoming:
            return [tuple(sorted(links))]
        return [tuple(sorted((link, *self.outgoing))) for link in self.incoming]


def _kept(relation: str, role: Role) -> bool:
    """A relation about the world: not Freebase's bookkeeping, not to or from a web page or image."""
    return relation.split(".", 1)[0] not in SKIPPED_DOMAINS and not {role.domain, role.range} & SKIPPED_TYPES


def cvt_links(schema: FreebaseSchema) -> dict[str, CvtLinks]:
    """Every CVT type's links, from the relations whose domain or range it is."""
    incoming: dict[str, list[Link]] = defaultdict(list)
    outgoing: dict[str, list[Link]] = defaultdict(list)
    for relation, role in schema.predicates():
        if not _kept(relation, role):
            continue
        into, out_of = schema.is_cvt_type(role.range), schema.is_cvt_type(role.domain)
        if into and out_of is False:
            incoming[role.range].append((NS_PREFIX + relation, False))
        if out_of and into is False:
            outgoing[role.domain].append((NS_PREFIX + relation, True))
    return {
        t: CvtLinks(tuple(incoming.get(t, ())), tuple(outgoing.get(t, ())))
        for t in sorted(set(incoming) | set(outgoing))
    }


def plain_schema_statements(schema: FreebaseSchema) -> Iterable[Statement]:
    """Structure 1 for every relation between named (or value) types."""
    for relation, role in schema.predicates():
        if not _kept(relation, role):
            continue
        if schema.is_cvt_type(role.domain) is False and schema.is_cvt_type(role.range) is False:
            yield from plain_statements(NS_PREFIX + relation, not schema.is_value_type(role.range))


def cvt_schema_statements(schema: FreebaseSchema, max_links: int = MAX_CVT_LINKS) -> Iterable[Statement]:
    """Structures 2 and 3 for every CVT type: each input/output choice through its links."""
    for links in cvt_links(schema).values():
        values = {
            link for link in links.outgoing if schema.is_value_type(schema.range(link[0].removeprefix(NS_PREFIX)) or "")
        }
        for signature in links.signatures(max_links):
            yield from signature_statements(signature, values)


def schema_statements(schema: FreebaseSchema, max_links: int = MAX_CVT_LINKS) -> list[Statement]:
    """Every structure-1/2/3 statement the schema allows, once each, with support 0.

    >>> from nl2sparql.kg.freebase_schema import FreebaseSchema, Role
    >>> roles = {
    ...     "people.person.spouse_s": Role("people.person", "people.marriage"),
    ...     "people.marriage.spouse": Role("people.marriage", "people.person"),
    ...     "people.marriage.from": Role("people.marriage", "type.datetime"),
    ...     "people.person.gender": Role("people.person", "people.gender"),
    ... }
    >>> reverse = {"people.person.spouse_s": "people.marriage.spouse"}
    >>> parents = {"people.person": frozenset({"common.topic"}), "people.gender": frozenset({"common.topic"})}
    >>> made = schema_statements(FreebaseSchema(roles, parents, reverse))
    >>> sorted({s.structure for s in made}), all(s.support == 0 for s in made)
    ([1, 2, 3], True)
    >>> sparql = {s.sparql for s in made}
    >>> "?e1 ns:people.person.spouse_s ?cvt . ?cvt ns:people.marriage.from ?e2 ." in sparql
    True
    >>> "?e1 ns:people.person.spouse_s ?cvt . ?cvt ns:people.marriage.spouse ?e2 ." in sparql
    True
    """
    collector = StatementCollector()
    for stmt in (*plain_schema_statements(schema), *cvt_schema_statements(schema, max_links)):
        collector.add(stmt, 0)
    return [e for e in collector.entries() if isinstance(e, Statement)]
