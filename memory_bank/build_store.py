"""A memory bank from a KG alone (``--from-store``): how the product moves to a graph with no questions.

With no gold queries, the graph's own shape says which statements exist:

* structure 1: every predicate between a named entity and a named entity or a value,
  read in both directions (a value is never an input);
* structures 2 and 3: a CVT is a blank node or a Freebase node without a name (what
  Freebase's mediator types look like in a store); the predicates around it, with their
  direction, form its signature. A signature with two links gives structure-2 statements
  in both directions; one with three or more links gives every (input -> output) pair
  through the CVT and every (two inputs -> output) triple.

Any other IRI is a named node, labelled or not: graphs other than Freebase often leave
their instances without labels. Their schema (RDFS/OWL triples, classes, properties) is
not data and makes no statements, but ``rdf:type`` does (``?e2 is the type of ?e1``).
Such a graph's bank records the graph's own namespaces as prefixes and describes its
statements from the graph's labels and local names (:class:`GraphDescriber`).

Support is the number of triples (structure 1) or CVT nodes (structures 2 and 3) that
show the statement. Statements are made by the same decomposer that cuts queries, so a
statement found here and one found in a gold query have the same canonical text.
"""

from __future__ import annotations

import itertools
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from nl2sparql.kg.freebase_schema import FreebaseSchema, load_schema
from nl2sparql.kg.graph_schema import XSD, GraphSchema, graph_prefixes, namespace_of
from nl2sparql.kg.label_index import DEFAULT_ALIAS_PREDICATES, DEFAULT_NAME_PREDICATES, default_page_size
from nl2sparql.kg.local_names import RDF_TYPE, VOCABULARIES, schema_terms
from nl2sparql.memory_bank.bank import DEFAULT_PREFIXES, MemoryBank, StatementCollector
from nl2sparql.memory_bank.cvt import FixedJudge
from nl2sparql.memory_bank.decompose import decompose
from nl2sparql.memory_bank.describe import Describer, TemplateDescriber
from nl2sparql.memory_bank.describe_graph import GraphDescriber
from nl2sparql.memory_bank.embedder import Embedder
from nl2sparql.memory_bank.errors import MemoryBankError
from nl2sparql.memory_bank.index import IndexSettings
from nl2sparql.memory_bank.query_graph import Edge, QueryGraph
from nl2sparql.memory_bank.statement import Entry, Statement

FREEBASE_NS = "http://rdf.freebase.com/ns/"
NAME_PREDICATE = FREEBASE_NS + "type.object.name"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
RDFS_COMMENT = "http://www.w3.org/2000/01/rdf-schema#comment"
# Predicates whose values name or explain a node: never statements.
LABEL_PREDICATES = (*dict.fromkeys((*DEFAULT_NAME_PREDICATES, *DEFAULT_ALIAS_PREDICATES)), RDFS_COMMENT)
# Past this many links on one CVT, only structure-2 readings are made (k links give
# k * (k - 1) * (k - 2) / 2 structure-3 readings).
MAX_CVT_LINKS = 8

# A link of a CVT: (predicate, True when the CVT is the subject).
Link = tuple[str, bool]


@dataclass(frozen=True, slots=True)
class StoreScan:
    """What the scan of a KG found, before statements are made."""

    triples: int
    named: int
    cvt_nodes: int
    plain: Counter[str]  # compact predicate -> triples between named entities / values
    plain_to_entity: frozenset[str]  # predicates with at least one named-entity object
    signatures: Counter[tuple[Link, ...]]  # CVT signature (compact predicates) -> CVT nodes
    literal_links: frozenset[Link]  # links whose far end is a literal (never an input)
    inverse_links: frozenset[frozenset[Link]]  # link pairs that always reach the same node
    cvt_to_cvt: int
    dangling_cvts: int
    namespaces: Counter[str]  # namespace -> IRIs of it read (predicates, subjects, objects)
    schema_triples: int = 0  # RDFS/OWL triples and triples about classes/properties, skipped


def compact(iri: str, namespace: str = FREEBASE_NS) -> str:
    """``http://rdf.freebase.com/ns/film.actor.film`` -> ``ns:film.actor.film`` (other IRIs ``<...>``)."""
    return "ns:" + iri[len(namespace) :] if iri.startswith(namespace) else f"<{iri}>"


def scan_store(
    store: object,
    name_predicates: Iterable[str] = (NAME_PREDICATE, RDFS_LABEL),
    limit: int | None = None,
    progress: Callable[[str], None] | None = None,
    namespace: str = FREEBASE_NS,
    page_size: int | None | str = "auto",
) -> StoreScan:
    """Read the graph's edges once and sort them into plain predicates and CVT signatures
    (an endpoint is read in pages of ``page_size`` rows; ``"auto"``: endpoints only)."""
    select = getattr(store, "select", None)
    if select is None:
        raise MemoryBankError("building a bank from a store needs a store with select()")
    names = " ".join(f"<{p}>" for p in name_predicates)
    if progress:
        progress("reading names")
    named_rows = select(f"SELECT DISTINCT ?s WHERE {{ VALUES ?np {{ {names} }} ?s ?np ?n }}").rows
    named = {row["s"].value for row in named_rows if "s" in row}
    schema = {iri for iri in schema_terms(store) if not iri.startswith(FREEBASE_NS)}
    if progress:
        progress(f"{len(named):,} named entities, {len(schema):,} schema terms; reading edges")
    skip = ", ".join(f"<{p}>" for p in dict.fromkeys((*name_predicates, *LABEL_PREDICATES)))
    query = f"SELECT ?s ?p ?o WHERE {{ ?s ?p ?o . FILTER(?p NOT IN ({skip})) }}"
    pages = default_page_size(store) if page_size == "auto" else page_size
    plain: Counter[str] = Counter()
    to_entity: set[str] = set()
    links: dict[str, list[tuple[Link, str]]] = {}
    literal_links: set[Link] = set()
    namespaces: Counter[str] = Counter()
    cvt_to_cvt = triples = skipped = 0
    for row in _rows(select, query, limit, pages):  # type: ignore[arg-type]
        triples += 1
        s, p, o = row["s"], row["p"].value, row["o"]
        if _is_schema_triple(s, p, o, schema):
            skipped += 1
            continue
        for term in (s, row["p"], o):
            if term.type == "uri":
                namespaces[namespace_of(term.value)] += 1
        s_cvt = _is_cvt(s, named)
        o_cvt = o.type != "literal" and _is_cvt(o, named)
        if s_cvt and o_cvt:
            cvt_to_cvt += 1
        elif s_cvt:
            link = (compact(p, namespace), True)
            links.setdefault(s.value, []).append((link, o.value))
            if o.type == "literal":
                literal_links.add(link)
        elif o_cvt:
            links.setdefault(o.value, []).append(((compact(p, namespace), False), s.value))
        else:
            plain[compact(p, namespace)] += 1
            if o.type != "literal":
                to_entity.add(compact(p, namespace))
    signatures: Counter[tuple[Link, ...]] = Counter()
    together: Counter[frozenset[Link]] = Counter()  # single links met on one CVT
    same_node: Counter[frozenset[Link]] = Counter()  # ... and reaching the same node
    dangling = 0
    for around in links.values():
        if len(around) < 2:
            dangling += 1
            continue
        # A link kind that occurs more than twice (a CVT with many members) reads like two.
        counted = Counter(link for link, _ in around)
        signatures[tuple(sorted(link for link, n in counted.items() for _ in range(min(n, 2))))] += 1
        single = [(link, node) for link, node in around if counted[link] == 1]
        for (a, node_a), (b, node_b) in itertools.combinations(single, 2):
            pair = frozenset((a, b))
            together[pair] += 1
            same_node[pair] += node_a == node_b
    return StoreScan(
        triples=triples,
        named=len(named),
        cvt_nodes=len(links),
        plain=plain,
        plain_to_entity=frozenset(to_entity),
        signatures=signatures,
        literal_links=frozenset(literal_links),
        inverse_links=frozenset(p for p, n in together.items() if same_node[p] == n),
        cvt_to_cvt=cvt_to_cvt,
        dangling_cvts=dangling,
        namespaces=namespaces,
        schema_triples=skipped,
    )


def _rows(select: Callable[[str], Any], query: str, limit: int | None, page_size: int | None) -> Iterator[Any]:
    """The rows of ``query``: at once, or in ORDER BY / LIMIT / OFFSET pages (endpoints cap results)."""
    if page_size is None:
        yield from select(f"{query} LIMIT {int(limit)}" if limit else query).rows
        return
    offset = 0
    while limit is None or offset < limit:
        size = page_size if limit is None else min(page_size, limit - offset)
        rows = select(f"{query} ORDER BY ?s ?p ?o LIMIT {size} OFFSET {offset}").rows
        yield from rows
        if len(rows) < size:
            return
        offset += size


def _is_cvt(term: Any, named: set[str]) -> bool:
    """A blank node, or a Freebase node without a name; any other IRI is a named node."""
    return term.type == "bnode" or (term.value.startswith(FREEBASE_NS) and term.value not in named)


def _is_schema_triple(s: Any, p: str, o: Any, schema: set[str]) -> bool:
    """RDFS/OWL vocabulary (``rdfs:subClassOf``, ``owl:onProperty``, ``?c a owl:Class``) or a
    triple about a class or property: the graph's schema, not its data."""
    if p == RDF_TYPE:
        return o.value.startswith(VOCABULARIES) or s.value in schema
    return p.startswith(VOCABULARIES) or s.value in schema


def _statement(edges: list[Edge], inputs: list[str], output: str, cvt: str | None) -> Statement:
    graph = QueryGraph(tuple(edges), answers=(output,), topics=frozenset(inputs))
    result = decompose(graph, FixedJudge([cvt] if cvt else []))
    stmts = [o.entry for o in result.statements if isinstance(o.entry, Statement)]
    if len(stmts) != 1:
        raise MemoryBankError(f"expected one statement from {edges}, got {len(stmts)}")
    return stmts[0]


def _link_edge(link: Link, node: str) -> Edge:
    predicate, cvt_is_subject = link
    return Edge("?cvt", predicate, node) if cvt_is_subject else Edge(node, predicate, "?cvt")


def signature_of(statement: Statement) -> tuple[Link, ...]:
    """The CVT links of a structure-2/3 statement: ``(predicate, CVT is the subject)``."""
    return tuple(sorted((t.predicate, t.subject == "?cvt") for t in statement.triples))


def signature_statements(
    signature: tuple[Link, ...],
    literal_links: Iterable[Link] = frozenset(),
    inverse_links: Iterable[frozenset[Link]] = frozenset(),
) -> list[Statement]:
    """Every structure-2 (one input) and structure-3 (two inputs) reading of a CVT signature.

    Links to literals are only ever outputs; a reading that joins a link with its inverse
    (``politician.government_positions_held`` in, ``government_position_held.office_holder``
    out: the same node twice) says nothing and is left out."""
    values = frozenset(literal_links)
    inverse = frozenset(inverse_links)
    nodes = [f"<urn:nl2sparql:n{i}>" for i in range(len(signature))]
    sizes = (1, 2) if 3 <= len(signature) <= MAX_CVT_LINKS else (1,)
    out: dict[str, Statement] = {}
    for j, link_out in enumerate(signature):
        target = "?out"
        others = [i for i in range(len(signature)) if i != j and signature[i] not in values]
        for size in sizes:
            for chosen in itertools.combinations(others, size):
                used = [signature[i] for i in (*chosen, j)]
                if any(frozenset(pair) in inverse for pair in itertools.combinations(used, 2)):
                    continue
                edges = [_link_edge(signature[i], nodes[i]) for i in chosen]
                edges.append(_link_edge(link_out, target))
                stmt = _statement(edges, [nodes[i] for i in chosen], target, "?cvt")
                out.setdefault(stmt.key, stmt)
    return list(out.values())


def plain_statements(p: str, to_entity: bool) -> list[Statement]:
    """Structure 1 for a (compact) predicate, forward and (when its objects are entities) backward."""
    source = "<urn:nl2sparql:n0>"
    made = [_statement([Edge(source, p, "?out")], [source], "?out", None)]
    if to_entity:
        made.append(_statement([Edge("?out", p, source)], [source], "?out", None))
    return made


def statements_from_scan(scan: StoreScan) -> list[Entry]:
    collector = StatementCollector()
    for predicate, count in sorted(scan.plain.items()):
        for stmt in plain_statements(predicate, predicate in scan.plain_to_entity):
            collector.add(stmt, count)
    for signature, count in sorted(scan.signatures.items()):
        for stmt in signature_statements(signature, scan.literal_links, scan.inverse_links):
            collector.add(stmt, count)
    return collector.entries()


def all_readings(
    entries: Iterable[Entry],
    literal_valued: Callable[[str], bool],
    reverse: Callable[[str], str | None] = lambda p: None,
) -> list[Entry]:
    """``entries`` plus every other reading of what they state: the other direction of each
    structure-1 predicate (unless its values are literals) and every input/output choice
    through each CVT signature. Added readings have support 0: seen in the KG's shape,
    not in a query."""
    collector = StatementCollector()
    extra: dict[str, Statement] = {}
    for entry in entries:
        collector.add(entry, entry.support)
        if not isinstance(entry, Statement):
            continue
        if entry.structure == 1:
            predicate = entry.triples[0].predicate
            made = plain_statements(predicate, not literal_valued(predicate))
        else:
            signature = signature_of(entry)
            values = {k for k in signature if k[1] and literal_valued(k[0])}
            inverse = {
                frozenset((a, b))
                for a, b in itertools.combinations(signature, 2)
                if a[1] != b[1] and reverse(a[0].removeprefix("ns:")) == b[0].removeprefix("ns:")
            }
            made = signature_statements(signature, values, inverse)
        for stmt in made:
            extra.setdefault(stmt.key, stmt)
    for stmt in extra.values():
        collector.add(stmt, 0)
    return collector.entries()


def cvt_relations_found(entries: Iterable[Entry], relations: Iterable[tuple[str, str]]) -> dict[str, bool]:
    """For each two-hop relation ``(p1, p2)`` (``film.actor.film``, ``film.performance.film``): is
    ``?e1 p1 ?cvt . ?cvt p2 ?e2`` a structure-2 statement of the bank?"""
    have = {
        (e.predicates[0], e.predicates[1])
        for e in entries
        if isinstance(e, Statement)
        and e.structure == 2
        and e.triples[0].subject == "?e1"
        and e.triples[0].object == "?cvt"
        and e.triples[1].subject == "?cvt"
        and len(e.predicates) == 2
    }
    return {f"{p1}./{p2}": (p1, p2) in have for p1, p2 in relations}


def fb15k_cvt_relations() -> list[tuple[str, str]]:
    """The two-hop CVT relations of FB15k-237 (``/film/actor/film./film/performance/film``) as
    predicate pairs, read from the dataset's train split."""
    from nl2sparql.config import data_file

    relations: set[str] = set()
    path = data_file("fb15k-237/train.txt")
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and "./" in parts[1]:
                relations.add(parts[1])
    pairs = []
    for relation in sorted(relations):
        first, second = relation.split("./", 1)
        pairs.append(tuple(p.strip("/").replace("/", ".") for p in (first, second)))
    return pairs  # type: ignore[return-value]


def is_freebase(entries: Iterable[Entry]) -> bool:
    """Whether statements are over Freebase (their predicates are ``ns:`` names); a bank with
    no statements is taken to be Freebase's, as before graphs of other kinds were read."""
    statements = [e for e in entries if isinstance(e, Statement)]
    return not statements or any(t.predicate.startswith("ns:") for e in statements for t in e.triples)


def statement_prefixes(entries: Iterable[Entry]) -> dict[str, str]:
    """Prefixes for the namespaces of the IRIs that statements name (graphs other than Freebase)."""
    namespaces: Counter[str] = Counter()
    for entry in entries:
        if isinstance(entry, Statement):
            for t in entry.triples:
                for term in (t.subject, t.predicate, t.object):
                    if term.startswith("<http"):
                        namespaces[namespace_of(term[1:-1])] += 1
    return {**graph_prefixes(namespaces), "xsd": XSD}


def build_bank_from_store(
    store: object,
    embedder: Embedder | None = None,
    schema: FreebaseSchema | None = None,
    index_settings: IndexSettings | None = None,
    source: str = "store",
    limit: int | None = None,
    progress: bool = False,
) -> tuple[MemoryBank, StoreScan]:
    """Scan a KG, make its statements, describe them and embed them.

    Freebase statements are described with the Freebase schema; any other graph's with its
    own labels, domains and ranges, and its bank records the graph's namespaces."""
    say = (lambda msg: print(f"nl2sparql bank: {msg}", file=sys.stderr)) if progress else None
    scan = scan_store(store, limit=limit, progress=say)
    entries = statements_from_scan(scan)
    if not entries:
        raise MemoryBankError(
            f"no statements found in the store ({scan.triples} triples read, {scan.schema_triples} of them "
            "schema triples): it holds no triples between entities or from an entity to a value"
        )
    if say:
        say(f"{len(entries):,} statements from {scan.triples:,} triples and {scan.cvt_nodes:,} CVT nodes")
    describer: Describer
    if is_freebase(entries):
        describer = TemplateDescriber(schema if schema is not None else load_schema())
        namespace, prefixes = FREEBASE_NS, dict(DEFAULT_PREFIXES)
    else:
        describer = GraphDescriber(GraphSchema.from_store(store))  # type: ignore[arg-type]
        namespace, prefixes = "", {**graph_prefixes(scan.namespaces), "xsd": XSD}
    bank = MemoryBank.build(
        entries,
        embedder=embedder,
        describer=describer,
        index_settings=index_settings,
        sources=(source,),
        progress=progress,
        namespace=namespace,
        prefixes=prefixes,
    )
    return bank, scan
