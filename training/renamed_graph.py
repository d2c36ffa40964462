"""Freebase in other words: the home graph and WebQSP's gold queries renamed into a non-Freebase vocabulary.

A ranker that must work on graphs whose vocabulary is not Freebase's needs questions over
such a graph, but real natural questions exist only for Freebase (WebQSP). So the graph is
rewritten in the style of a typical RDF export of a database or a small ontology, and the
gold queries are rewritten with the same map, so the same questions ask the same things in
other words:

* predicates ``ns:people.person.place_of_birth`` -> ``vocab#placeOfBirth`` (lowerCamelCase of
  the last segment; ``vocab#personPlaceOfBirth``, then ``vocab#peoplePersonPlaceOfBirth``, when
  names clash), each with an ``rdfs:label`` in words ("place of birth");
* types (objects of ``ns:type.object.type``) -> classes ``vocab#Person`` (same rule, UpperCamel),
  labelled too; ``ns:type.object.type`` -> ``rdf:type``;
* ``ns:type.object.name`` -> ``vocab#name`` with plain strings (a database has no language
  tags); entities keep no ``rdfs:label``, so their names live only where a database keeps them;
* nodes ``ns:m.xxx`` (and FB15k-237's CVTs ``ns:cvt.N``) -> ``id/m.xxx``.

Run it as ``python -m nl2sparql.training.renamed_graph --graph G.nt.gz --webqsp WebQSP.train.json
--out DIR``: DIR gets ``graph.nt.gz`` and ``questions-qald.json`` (the WebQSP train questions
outside the dev split whose gold query could be rewritten).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pyoxigraph as ox

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.atomic import atomic_output, write_atomic
from nl2sparql.kg.splits import is_webqsp_dev

FREEBASE_NS = "http://rdf.freebase.com/ns/"
VOCAB_NS = "http://example.org/kg/vocab#"
ID_NS = "http://example.org/kg/id/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
FB_NAME = FREEBASE_NS + "type.object.name"
FB_TYPE = FREEBASE_NS + "type.object.type"
#: what the two Freebase built-ins become whatever the graph holds
FIXED = {FB_NAME: VOCAB_NS + "name", FB_TYPE: RDF_TYPE}
DATASET_ID = "webqsp-train-renamed"

# Entity ids a gold query may name (``m.0abc``, ``g.11b...``): renamed by rule, not by the map.
_ENTITY_ID = re.compile(r"[mg]\.[0-9a-z_]+")
_FREEBASE_IRI = re.compile(r"<" + re.escape(FREEBASE_NS) + r"([^<>\s]*)>")
_WORD = re.compile(r"[A-Za-z]+|\d+")
_FILTER_LINE = re.compile(r"\s*FILTER\s*\((?P<expr>.*)\)\s*")
# The pieces a language filter is made of; a filter of nothing else is dropped.
_LANGUAGE_TESTS = re.compile(
    r'!?\s*isLiteral\(\?\w+\)|langMatches\(\s*lang\(\?\w+\)\s*,\s*"[^"]*"\s*\)|lang\(\?\w+\)\s*=\s*"[^"]*"'
)
_CONNECTIVES = re.compile(r"\|\||&&|[()\s]")
_ENGLISH_LITERAL = re.compile(r'("(?:[^"\\]|\\.)*")@en(?:-[A-Za-z0-9]+)*\b')


class RenameError(Nl2SparqlError):
    """The source graph or dataset cannot be read or written."""


# -- the vocabulary ----------------------------------------------------------------------------


def _segments(iri: str) -> list[str]:
    """The dotted parts of a Freebase name, as ``[domain..., type, property]``."""
    return iri[len(FREEBASE_NS) :].split(".")


def _words(parts: Sequence[str]) -> list[str]:
    """The lower-case words of name parts (``["person", "place_of_birth"]`` -> person place of birth)."""
    return [word.lower() for part in parts for word in _WORD.findall(part)]


def _camel(words: Sequence[str], upper: bool) -> str:
    """``["place", "of", "birth"]`` -> ``placeOfBirth`` (``PlaceOfBirth`` when ``upper``)."""
    joined = "".join(word.capitalize() for word in words) or "Thing"
    return joined if upper else joined[0].lower() + joined[1:]


def _level_words(iri: str, level: int) -> list[str]:
    """The words a name is made of at clash level ``level``: 0 the last segment, 1 with the type
    segment before it, 2 the whole dotted name (domain included)."""
    parts = _segments(iri)
    keep = len(parts) if level >= 2 else min(len(parts), level + 1)
    return _words(parts[-keep:])


def _clash_free(iris: Iterable[str], upper: bool, reserved: frozenset[str] = frozenset()) -> dict[str, str]:
    """Local names for ``iris``, deterministic whatever their order.

    Every IRI in a group that would share a name (or take a reserved one) moves up a level
    together, so no IRI's name depends on which of its rivals came first; two names still equal
    with the whole dotted name spelt out get ``2``, ``3``, ... in IRI order."""
    level = dict.fromkeys(sorted(set(iris)), 0)
    while True:
        names = {iri: _camel(_level_words(iri, lvl), upper) for iri, lvl in level.items()}
        holders: defaultdict[str, list[str]] = defaultdict(list)
        for iri, name in names.items():
            holders[name].append(iri)
        crowded = [iri for name, group in holders.items() if len(group) > 1 or name in reserved for iri in group]
        movable = [iri for iri in crowded if level[iri] < 2]
        if not movable:
            break
        for iri in movable:
            level[iri] += 1
    for name, group in holders.items():
        if len(group) > 1 or name in reserved:
            first = 2 if name in reserved else 1
            for number, iri in enumerate(sorted(group), first):
                names[iri] = name if number == 1 else f"{name}{number}"
    if len(set(names.values())) < len(names) or reserved & set(names.values()):
        raise RenameError("the vocabulary would give two terms one name; rename by hand")
    return names


def vocabulary(predicates: Iterable[str], types: Iterable[str] = ()) -> dict[str, str]:
    """Map each Freebase predicate (and type, from the objects of ``type.object.type``) IRI to its
    new IRI under :data:`VOCAB_NS`; ``type.object.name`` and ``type.object.type`` are always in it.

    Names come from the last segment so they read like a hand-made schema's; a clash takes the
    type segment, then the domain, so the map never merges two predicates.

    >>> v = vocabulary([FREEBASE_NS + "people.person.place_of_birth", FREEBASE_NS + "film.film.genre",
    ...                 FREEBASE_NS + "music.artist.genre"], [FREEBASE_NS + "people.person"])
    >>> [v[FREEBASE_NS + p].rpartition("#")[2] for p in ("people.person.place_of_birth", "film.film.genre",
    ...  "music.artist.genre", "people.person", "type.object.name")]
    ['placeOfBirth', 'filmGenre', 'artistGenre', 'Person', 'name']
    """
    mine = [p for p in predicates if p.startswith(FREEBASE_NS) and p not in FIXED]
    reserved = frozenset(iri.rpartition("#")[2] for iri in FIXED.values() if iri.startswith(VOCAB_NS))
    result = {p: VOCAB_NS + name for p, name in _clash_free(mine, upper=False, reserved=reserved).items()}
    classes = [t for t in types if t.startswith(FREEBASE_NS) and t not in result and t not in FIXED]
    result.update({t: VOCAB_NS + name for t, name in _clash_free(classes, upper=True).items()})
    result.update(FIXED)
    return result


def labels(vocab: Mapping[str, str]) -> dict[str, str]:
    """The ``rdfs:label`` of each new vocabulary term, in the words its name was made of
    (``vocab#personPlaceOfBirth`` -> "person place of birth"), so a describer need not guess
    words from camelCase."""
    found: dict[str, str] = {}
    for old, new in sorted(vocab.items()):
        if not new.startswith(VOCAB_NS):
            continue
        local = new[len(VOCAB_NS) :]
        candidates = (_level_words(old, level) for level in range(3))
        words = next(
            (w for w in candidates if _camel(w, local[:1].isupper()) in (local, local.rstrip("0123456789"))), None
        )
        found[new] = " ".join(words or _level_words(old, 2))
    return found


# -- the graph ---------------------------------------------------------------------------------


@dataclass
class GraphTerms:
    """What one pass over the source graph finds: its predicates, its types and its named nodes."""

    predicates: Counter[str] = field(default_factory=Counter)
    types: set[str] = field(default_factory=set)
    named: set[str] = field(default_factory=set)
    triples: int = 0


def _open_source(path: Path) -> IO[bytes]:
    """The source's bytes, gunzipped when it starts with the gzip magic number."""
    if not path.is_file():
        raise RenameError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
    raw = path.open("rb")
    if raw.read(2) == b"\x1f\x8b":
        raw.close()
        return gzip.open(path, "rb")
    raw.seek(0)
    return raw


def read_triples(path: str | Path) -> Iterator[ox.Triple | ox.Quad]:
    """The triples of an N-Triples file (gzipped or not), streamed; a bad file is a :class:`RenameError`."""
    path = Path(path).expanduser()
    with _open_source(path) as handle:
        try:
            yield from ox.parse(handle, format=ox.RdfFormat.N_TRIPLES)
        except (SyntaxError, OSError, EOFError, ValueError) as exc:
            raise RenameError(f"{path}: not readable N-Triples: {exc}") from exc


def scan_graph(path: str | Path) -> GraphTerms:
    """One pass over the source: the predicates and types the vocabulary must cover, and the
    nodes with a name (the others are CVTs)."""
    terms = GraphTerms()
    for triple in read_triples(path):
        predicate = triple.predicate.value
        terms.predicates[predicate] += 1
        terms.triples += 1
        if predicate == FB_TYPE and isinstance(triple.object, ox.NamedNode):
            terms.types.add(triple.object.value)
        elif predicate == FB_NAME:
            terms.named.add(triple.subject.value)
    return terms


def _node_text(term: Any, vocab: Mapping[str, str], named: Collection[str] | None) -> str:
    """A subject or object in N-Triples: a mapped term, an ``id/`` node, a blank CVT, or as it was."""
    if isinstance(term, ox.NamedNode):
        iri = term.value
        if iri in vocab:
            return f"<{vocab[iri]}>"
        if iri.startswith(FREEBASE_NS):
            local = iri[len(FREEBASE_NS) :]
            if named is not None and iri not in named:
                return str(ox.BlankNode(re.sub(r"[^A-Za-z0-9]", "_", local)))
            return f"<{ID_NS}{local}>"
    return str(term)


def rename_graph(
    source_nt_gz: str | Path,
    out_nt_gz: str | Path,
    vocab: Mapping[str, str],
    named: Collection[str] | None = None,
) -> int:
    """Write the source graph renamed with ``vocab`` to ``out_nt_gz`` (gzipped N-Triples, replaced
    atomically, so a crash leaves no half graph), then the label of every new term; returns the
    number of triples written.

    Names lose their language tag. With ``named`` (the nodes that have a name), a Freebase node
    outside it (a CVT) is written as a blank node, as a database export writes the rows of a
    table without a key; otherwise it becomes an ``id/`` IRI like any entity."""
    out = Path(out_nt_gz).expanduser()
    written = 0
    try:
        with atomic_output(out) as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=6) as packed:
            text = io.TextIOWrapper(packed, encoding="utf-8", newline="\n")
            for triple in read_triples(source_nt_gz):
                predicate = triple.predicate.value
                obj = triple.object
                if predicate == FB_NAME and isinstance(obj, ox.Literal) and obj.language:
                    obj_text = str(ox.Literal(obj.value))
                elif predicate == FB_TYPE:
                    obj_text = _node_text(obj, vocab, None)
                else:
                    obj_text = _node_text(obj, vocab, named)
                new_predicate = vocab.get(predicate, predicate)
                text.write(f"{_node_text(triple.subject, vocab, named)} <{new_predicate}> {obj_text} .\n")
                written += 1
            for term, label in sorted(labels(vocab).items()):
                text.write(f"<{term}> <{RDFS_LABEL}> {ox.Literal(label)} .\n")
                written += 1
            text.flush()
            text.detach()
    except OSError as exc:
        raise RenameError(f"{out}: cannot write: {exc}") from exc
    return written


# -- the queries -------------------------------------------------------------------------------


def _is_language_filter(line: str) -> bool:
    """Whether a line is a FILTER of language tests only (``!isLiteral(?x) || lang(?x) = "" ||
    langMatches(lang(?x), "en")``): on plain-string names it tests nothing, or fails."""
    found = _FILTER_LINE.fullmatch(line)
    if not found or "lang" not in found.group("expr").lower():
        return False
    return not _CONNECTIVES.sub("", _LANGUAGE_TESTS.sub("", found.group("expr")))


def _renamed_iri(found: re.Match[str], vocab: Mapping[str, str], missing: list[str]) -> str:
    iri = FREEBASE_NS + found.group(1)
    if iri in vocab:
        return f"<{vocab[iri]}>"
    if _ENTITY_ID.fullmatch(found.group(1)):
        return f"<{ID_NS}{found.group(1)}>"
    missing.append(iri)
    return found.group(0)


def rename_query(sparql_full_iri_text: str, vocab: Mapping[str, str]) -> str | None:
    """A gold query (full-IRI SPARQL text) in the new vocabulary, or ``None`` when it names a
    Freebase predicate or type the map lacks (it could not be asked of the renamed graph).

    Language filters are dropped and ``"..."@en`` literals lose their tag, because names in the
    renamed graph are plain strings.

    >>> v = vocabulary([FREEBASE_NS + "people.person.place_of_birth"])
    >>> print(rename_query('SELECT ?n WHERE {\\n  <http://rdf.freebase.com/ns/m.01> '
    ...     '<http://rdf.freebase.com/ns/people.person.place_of_birth> ?x .\\n'
    ...     '  FILTER (!isLiteral(?x) || lang(?x) = "" || langMatches(lang(?x), "en"))\\n}', v))
    SELECT ?n
    WHERE {
      <http://example.org/kg/id/m.01> <http://example.org/kg/vocab#placeOfBirth> ?x .
    }
    """
    from nl2sparql.compiler import SparqlSyntaxError, generate, parse

    lines = [line for line in sparql_full_iri_text.splitlines() if not _is_language_filter(line)]
    text = _ENGLISH_LITERAL.sub(r"\1", "\n".join(lines))
    missing: list[str] = []
    text = _FREEBASE_IRI.sub(lambda found: _renamed_iri(found, vocab, missing), text)
    if missing or FREEBASE_NS in text or re.search(r"\blang(Matches)?\(", text):
        return None
    try:
        return generate(parse(text, "sparql11"), "full-iri")
    except SparqlSyntaxError:
        return None


def gold_full_iri(example: Any) -> str | None:
    """An example's gold query as full-IRI text, or ``None`` when it has none or it does not parse."""
    from nl2sparql.compiler import SparqlSyntaxError, generate, parse

    if not example.gold_sparql:
        return None
    try:
        return generate(parse(example.gold_sparql, "virtuoso"), "full-iri")
    except SparqlSyntaxError:
        return None


def renamed_dataset(examples: Iterable[Any], vocab: Mapping[str, str]) -> dict[str, Any]:
    """QALD JSON of the examples outside the WebQSP dev split whose gold query could be renamed,
    question text unchanged (answers are left to the renamed graph)."""
    questions = []
    for example in examples:
        if is_webqsp_dev(example):
            continue
        full = gold_full_iri(example)
        renamed = rename_query(full, vocab) if full is not None else None
        if renamed is None:
            continue
        questions.append(
            {
                "id": example.id,
                "question": [{"language": "en", "string": example.question}],
                "query": {"sparql": renamed},
                "answers": [],
            }
        )
    return {"dataset": {"id": DATASET_ID}, "questions": questions}


# -- the command -------------------------------------------------------------------------------


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m nl2sparql.training.renamed_graph",
        description="Rename the home graph and the WebQSP train gold queries into a non-Freebase vocabulary.",
    )
    parser.add_argument("--graph", required=True, type=Path, help="source N-Triples (.nt or .nt.gz), Freebase IRIs")
    parser.add_argument("--webqsp", required=True, type=Path, help="WebQSP train JSON")
    parser.add_argument("--out", required=True, type=Path, help="folder for graph.nt.gz and questions-qald.json")
    parser.add_argument(
        "--blank-cvts", action="store_true", help="write nameless Freebase nodes (CVTs) as blank nodes, not id/ IRIs"
    )
    return parser.parse_args(argv)


def run(graph: Path, webqsp: Path, out: Path, blank_cvts: bool = False) -> dict[str, Any]:
    """Write ``out/graph.nt.gz`` and ``out/questions-qald.json``; returns the counts."""
    from nl2sparql.kg.datasets import load_dataset

    graph, webqsp, out = graph.expanduser(), webqsp.expanduser(), out.expanduser()
    examples = load_dataset(webqsp, "webqsp")  # read first: a bad dataset fails before the long pass
    if out.exists() and not out.is_dir():
        raise RenameError(f"{out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    terms = scan_graph(graph)
    vocab = vocabulary(terms.predicates, terms.types)
    triples = rename_graph(graph, out / "graph.nt.gz", vocab, named=terms.named if blank_cvts else None)
    dataset = renamed_dataset(examples, vocab)
    write_atomic(out / "questions-qald.json", json.dumps(dataset, ensure_ascii=False, indent=1) + "\n")
    dev = sum(1 for e in examples if is_webqsp_dev(e))
    return {
        "source_triples": terms.triples,
        "triples_written": triples,
        "predicates": len(terms.predicates),
        "classes": len(terms.types),
        "examples": len(examples),
        "dev_skipped": dev,
        "questions_written": len(dataset["questions"]),
        "not_rewritable": len(examples) - dev - len(dataset["questions"]),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: print the counts, or one line saying what is wrong (no traceback)."""
    args = _arguments(argv)
    try:
        counts = run(args.graph, args.webqsp, args.out, blank_cvts=args.blank_cvts)
    except Nl2SparqlError as exc:
        raise SystemExit(f"renamed_graph: {exc}") from None
    except KeyboardInterrupt:
        raise SystemExit("renamed_graph: interrupted; nothing was replaced") from None
    for key, value in counts.items():
        print(f"{key}: {value}")
    print(f"wrote {args.out / 'graph.nt.gz'} and {args.out / 'questions-qald.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
