"""Grounding: which entities, classes and literal values of the graph does a question name?

The grounded discrimination design (ARCHITECTURE.md, issue 40) builds candidate plans only
from what the graph holds, so before any plan is built the question is tied to the graph's
items, each with a score:

- **entities**, as :class:`~nl2sparql.kg.linker.EntityLinker` finds them (unchanged);
- **classes**: every object of ``rdf:type`` and every ``rdfs:Class`` / ``owl:Class``
  subject, named by its labels (the linker's label predicates: ``rdfs:label``,
  ``skos:prefLabel``/``altLabel``, ``schema:name``, ``foaf:name``) and by the words of its
  IRI's local name (``RecordLabel`` -> *record label*), matched in the singular and the
  plural (*bands* -> Band, *companies* -> Company, *people* -> a class labelled *person*);
- **literal values**: strings, numbers and dates that occur as objects in the graph (a city
  stored as the plain string ``"Leipzig"``, a year ``1991``, a code ``"DE"``), with the
  predicates they occur with. Strings are matched as text; numbers and dates by value
  (``1975`` finds ``"1975"^^xsd:integer``, ``"1975.0"^^xsd:decimal``, ``"1975"^^xsd:gYear``
  and, with a lower score, the dates of 1975).

Why an index in memory: a question is grounded in microseconds to milliseconds only if no
store query runs per question. The classes and values are read once, in two bounded
SELECTs (literals up to :attr:`IndexOptions.max_literal_chars` characters, at most
:attr:`IndexOptions.max_values` (value, predicate) pairs, the most frequent first), and
cached beside the linker's label index (``grounding-index.json.gz`` in the store folder),
keyed as the linker keys its cache: the store's triple count and the settings.

Scores (:class:`GroundWeights`) add a similarity and a length bonus::

    score = similarity + length * min(content words of the mention, 3) / 3  [- nested]

The similarity ranks how a mention matched: the name as written (a label 1.0, a local name
0.97, an alias 0.95; a value as stored 1.0, or by value for numbers and dates) > the other
grammatical number (times 0.95) > a value without its leading article (0.9) > a fuzzy match
(0.85 times the rapidfuzz ratio, at least 88) > the last words of a longer name (0.7 times the
square root of the share of the name's words they are). A year written in the question finds
the dates of that year at 0.7, a month the dates of that month at 0.8. A longer mention scores
higher, and a mention inside a longer one that matched a name exactly loses ``nested``
(*label* inside *record label*). Mentions made only of stop
words never match; values of at most three characters must be written in the question with
the same letters and case (``DE``, not *de*). Ties go to the class with more instances, the
value with more triples.
"""

from __future__ import annotations

import bisect
import math
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from rapidfuzz import fuzz, process

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.atomic import read_gzip_json, write_gzip_json
from nl2sparql.kg.label_index import (
    CACHE_FILE,
    DEFAULT_ALIAS_PREDICATES,
    DEFAULT_NAME_PREDICATES,
    SelectStore,
    default_cache_path,
    default_page_size,
    normalize,
    store_fingerprint,
)
from nl2sparql.kg.linker import MAX_WORDS, Candidate, EntityLinker, tokenize
from nl2sparql.kg.local_names import RDF_TYPE, SCHEMA_TYPES, VOCABULARIES, local_name_words
from nl2sparql.kg.terms import XSD, Term
from nl2sparql.kg.verbs import present_of
from nl2sparql.question import check_question

GROUNDING_CACHE_FILE = "grounding-index.json.gz"
FORMAT = "nl2sparql-grounding-index"
FORMAT_VERSION = 1
MAX_CLASS_NGRAM = 6
MAX_VALUE_NGRAM = 10
MAX_POSTINGS = 200  # string values a word may be in and still start a partial or fuzzy match
RDFS_CLASS = "http://www.w3.org/2000/01/rdf-schema#Class"
OWL_CLASS = "http://www.w3.org/2002/07/owl#Class"

_NUMERIC_NAMES = (
    "integer", "decimal", "double", "float", "int", "long", "short", "byte", "nonNegativeInteger",
    "positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong",
    "unsignedShort", "unsignedByte",
)  # fmt: skip
NUMERIC_TYPES = frozenset(XSD + t for t in _NUMERIC_NAMES)
DATE_TYPES = frozenset(XSD + t for t in ("date", "dateTime", "dateTimeStamp", "gYear", "gYearMonth"))
SKIPPED_TYPES = frozenset({XSD + "boolean"})

# How a class name was made: its similarity is GroundWeights.<source>.
LABEL, LOCAL, ALIAS = "label", "local name", "alias"


class _Token(Protocol):
    """A question word as :func:`~nl2sparql.kg.linker.tokenize` gives it."""

    norm: str
    start: int
    end: int
    stop: bool


class GroundingError(Nl2SparqlError):
    """The grounding index cannot be built, read or written, or a question cannot be read."""


# -- results ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClassMatch:
    """A class of the graph that the question names (``bands`` -> ``ex:Band``)."""

    iri: str
    name: str  # the class's display name (its first label, else its local-name words)
    mention: str  # the question's words that matched
    score: float
    span: tuple[int, int] = (0, 0)  # character offsets of the mention in the question
    match: str = "exact"  # "exact", "inflected", "partial" or "fuzzy"
    instances: int = 0  # subjects typed with the class


@dataclass(frozen=True, slots=True)
class ValueMatch:
    """A literal of the graph that the question writes, with the predicates it is an object of."""

    value: str  # the literal's lexical form, as stored
    datatype: str | None  # None for plain and language-tagged strings
    predicates: tuple[str, ...]  # most triples first
    mention: str
    score: float
    span: tuple[int, int] = (0, 0)
    #: exact, article, inflected, partial, fuzzy, number, date, year, month, year of date, month of date
    match: str = "exact"
    lang: str | None = None
    count: int = 0  # triples with this value as object (among those read)

    def term(self) -> Term:
        """The literal as a :class:`Term` (``term().n3()`` writes it in SPARQL)."""
        return Term.literal(self.value, self.datatype, self.lang)


@dataclass(frozen=True, slots=True)
class Grounding:
    """Everything a question was grounded in, best first within each kind."""

    question: str  # as read (stripped); spans index into it
    entities: tuple[Candidate, ...] = ()
    classes: tuple[ClassMatch, ...] = ()
    values: tuple[ValueMatch, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (spans as lists)."""
        return {
            "question": self.question,
            "entities": [asdict(e) for e in self.entities],
            "classes": [asdict(c) for c in self.classes],
            "values": [asdict(v) for v in self.values],
        }


@dataclass(frozen=True, slots=True)
class IndexOptions:
    """What the grounding index reads (all of it keys the cache)."""

    max_literal_chars: int = 60  # longer literals are prose, not values a question writes
    max_values: int = 50_000  # (value, predicate) pairs read, the most frequent first
    max_classes: int = 20_000  # classes read, the most instances first
    languages: tuple[str, ...] | None = ("en",)  # of labels and string values (untagged always)
    name_predicates: tuple[str, ...] = DEFAULT_NAME_PREDICATES
    alias_predicates: tuple[str, ...] = DEFAULT_ALIAS_PREDICATES

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


@dataclass(frozen=True, slots=True)
class GroundWeights:
    """How grounding scores add up (see the module docstring for the order they make)."""

    label: float = 1.0
    local_name: float = 0.97
    alias: float = 0.95
    inflected: float = 0.95  # times the name's similarity, for the other grammatical number
    article: float = 0.9  # a string value without its leading "the"/"a"/"an"
    partial: float = 0.7  # times (mention words / name words) ** 0.5
    fuzzy: float = 0.85  # times the rapidfuzz ratio / 100
    year_of_date: float = 0.7
    month_of_date: float = 0.8
    length: float = 0.5  # times min(content words, 3) / 3
    nested: float = 0.25  # off a mention inside a longer exactly matched one of the same kind
    fuzzy_cutoff: float = 88.0
    fuzzy_min_chars: int = 5
    per_key: int = 50  # values kept per number, date or text looked up (the most used first)


@dataclass(frozen=True, slots=True)
class GroundingReport:
    """What building (or loading) the grounding index cost and produced."""

    classes: int
    labelled_classes: int
    values: int
    predicates: int
    truncated: tuple[str, ...]  # "classes" and/or "values" where a bound was reached
    seconds: float
    cache_path: Path | None
    loaded_from_cache: bool

    def describe(self) -> str:
        """``8 classes (6 labelled), 57 literal values of 6 predicates``."""
        text = (
            f"{self.classes:,} classes ({self.labelled_classes:,} labelled), "
            f"{self.values:,} literal values of {self.predicates:,} predicates"
        )
        return text + (f" (bounded: {', '.join(self.truncated)})" if self.truncated else "")


# -- singular and plural ----------------------------------------------------------------

_IRREGULAR = {
    "person": "people", "man": "men", "woman": "women", "child": "children", "mouse": "mice",
    "goose": "geese", "foot": "feet", "tooth": "teeth", "ox": "oxen", "datum": "data",
    "medium": "media", "criterion": "criteria", "phenomenon": "phenomena", "index": "indices",
    "matrix": "matrices", "vertex": "vertices", "analysis": "analyses", "thesis": "theses",
    "crisis": "crises", "axis": "axes", "hypothesis": "hypotheses", "cactus": "cacti",
    "fungus": "fungi", "nucleus": "nuclei", "radius": "radii", "alumnus": "alumni", "genus": "genera",
    "corpus": "corpora", "curriculum": "curricula", "leaf": "leaves", "life": "lives", "wife": "wives",
    "knife": "knives", "half": "halves", "shelf": "shelves", "wolf": "wolves", "thief": "thieves",
    "calf": "calves", "hero": "heroes", "potato": "potatoes", "tomato": "tomatoes",
}  # fmt: skip
_SINGULAR_OF = {plural: singular for singular, plural in _IRREGULAR.items()} | {"persons": "person"}
_INVARIANT = frozenset((
    "series", "species", "sheep", "fish", "deer", "news", "aircraft", "software", "hardware",
    "equipment", "information", "music", "staff", "police", "moose", "bison", "salmon", "trout",
    "offspring", "headquarters", "means", "physics", "mathematics",
))  # fmt: skip
_VOWELS = frozenset("aeiou")


def plural(word: str) -> str:
    """The plural of a (lower-case) English noun, by rule and a table of irregular ones.

    >>> [plural(w) for w in ("band", "company", "person", "city", "box", "series", "day", "salesman")]
    ['bands', 'companies', 'people', 'cities', 'boxes', 'series', 'days', 'salesmen']
    """
    if word in _INVARIANT or len(word) < 2:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("man") and len(word) > 4:
        return word[:-3] + "men"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2] not in _VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def singular(word: str) -> str | None:
    """The singular of a (lower-case) word that looks plural; ``None`` for one that does not.

    >>> [singular(w) for w in ("bands", "companies", "people", "boxes", "movies", "status", "news", "genera")]
    ['band', 'company', 'person', 'box', 'movie', None, None, 'genus']
    >>> [singular(w) for w in ("statuses", "buses", "houses", "causes", "excuses")]
    ['status', 'bus', 'house', 'cause', 'excuse']
    """
    if word in _SINGULAR_OF:
        return _SINGULAR_OF[word]
    if word in _INVARIANT or len(word) < 4 or word.endswith(("ss", "us", "is")):
        return None
    if word.endswith("men") and len(word) > 4:
        return word[:-3] + "man"
    if word.endswith("ies") and word[:-3] + "ie" not in _IE_NOUNS:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("uses") and not word.endswith(("ouses", "auses")) and word not in _USE_NOUNS:
        return word[:-2]  # *statuses*, *buses*, *viruses*; not *houses*, *causes*, *excuses*
    return word[:-1] if word.endswith("s") else None


#: nouns in *-use* whose plural is not one of a noun in *-us*
_USE_NOUNS = frozenset(("uses", "fuses", "muses", "ruses", "excuses", "abuses", "refuses", "misuses", "reuses"))


_IE_NOUNS = frozenset(("movie", "cookie", "zombie", "pie", "tie", "lie", "genie", "hippie", "rookie", "selfie"))


def other_numbers(name: str) -> tuple[str, ...]:
    """A normalised name with its last word in the other grammatical number (both plurals
    of *person*).

    >>> other_numbers("record label"), other_numbers("people"), other_numbers("person"), other_numbers("series")
    (('record labels',), ('person',), ('people', 'persons'), ())
    """
    head, _, last = name.rpartition(" ")
    forms = [singular(last) or plural(last)] + _MORE_PLURALS.get(last, [])
    return tuple(f"{head} {form}" if head else form for form in forms if form != last)


_MORE_PLURALS = {"person": ["persons"]}


def category_code(text: str, holders: int) -> bool:
    """Whether a value is a category written in capitals, held by several nodes (the outcome
    *WIN*), which a question names by a common word (*won*), unlike a code naming one node
    (the ISO code *PER*, never *per*).

    >>> category_code("WIN", 190), category_code("PER", 1), category_code("Win", 190)
    (True, False, False)
    """
    text = text.strip()
    return text.isupper() and text.replace(" ", "").isalpha() and holders >= CATEGORY_HOLDERS


#: the nodes a value in capitals is held by at least, to be a category rather than a code
CATEGORY_HOLDERS = 3


#: people named by their sex (*women*), where a graph keeps the sex as a value (*female*)
_SEXED = {
    "woman": "female", "women": "female", "girl": "female", "girls": "female", "ladies": "female",
    "man": "male", "men": "male", "boy": "male", "boys": "male", "gentlemen": "male",
}  # fmt: skip


def other_forms(name: str) -> tuple[str, ...]:
    """A normalised name in the other grammatical number, a one-word irregular past as its
    verb (*won*: *win*), and people named by their sex as the value (*women*: *female*).

    >>> other_forms("airports"), other_forms("won"), other_forms("women")
    (('airport',), ('wons', 'win'), ('woman', 'female'))
    """
    other = present_of(name) or _SEXED.get(name)
    return (*other_numbers(name), other) if other else other_numbers(name)


# -- the index ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClassEntry:
    """A class as read from the store: its IRI, instance count and (text, source) names."""

    iri: str
    instances: int
    names: tuple[tuple[str, str], ...]

    @property
    def display(self) -> str:
        labels = [text for text, source in self.names if source == LABEL]
        return (labels or [text for text, _ in self.names] or [self.iri])[0]


@dataclass(frozen=True, slots=True)
class ValueEntry:
    """A literal as read from the store, with its predicates (and triples for each)."""

    lexical: str
    datatype: str | None
    lang: str | None
    predicates: tuple[tuple[str, int], ...]

    @property
    def count(self) -> int:
        return sum(n for _, n in self.predicates)


@dataclass(frozen=True, slots=True)
class _Key:
    """One way a class name is matched: which class, by which of its names, in which form."""

    position: int
    source: str  # LABEL, LOCAL or ALIAS
    form: str  # "exact", "inflected", "partial"
    fraction: float = 1.0  # for partial: mention words / name words


class GroundingIndex:
    """Classes and literal values with the lookup tables a question is matched against."""

    def __init__(
        self,
        classes: Sequence[ClassEntry],
        values: Sequence[ValueEntry],
        *,
        options: IndexOptions | None = None,
        fingerprint: int | None = None,
        truncated: Sequence[str] = (),
    ) -> None:
        self.classes = list(classes)
        self.values = list(values)
        self.options = options or IndexOptions()
        self.fingerprint = fingerprint
        self.truncated = tuple(truncated)
        self.class_keys: dict[str, list[_Key]] = {}
        for position, entry in enumerate(self.classes):
            self._add_class(position, entry)
        self.class_vocabulary = sorted(
            (k for k, keys in self.class_keys.items() if any(e.form in _WHOLE for e in keys)), key=len
        )
        self._class_lengths = [len(k) for k in self.class_vocabulary]
        # Values by their normalised text, by that text less a leading article, by number,
        # and by date: dates[kind][yyyy, yyyymm or yyyymmdd], kind one of _DATE_KINDS.
        self.value_keys: dict[str, list[int]] = {}
        self.article_keys: dict[str, list[int]] = {}
        self.numbers: dict[float, list[int]] = {}
        self.dates: dict[str, dict[int, list[int]]] = {kind: {} for kind in _DATE_KINDS}
        for position, value in enumerate(self.values):
            self._add_value(position, value)
        self.value_vocabulary = list(self.value_keys)
        postings: dict[str, list[int]] = {}
        for k, key in enumerate(self.value_vocabulary):
            for word in set(key.split()):
                postings.setdefault(word, []).append(k)
        # A word in very many values starts no partial or fuzzy match (it is kept out like a stop word).
        self.postings = {word: keys for word, keys in postings.items() if len(keys) <= MAX_POSTINGS}

    # -- building the tables ------------------------------------------------------------

    def _add_class(self, position: int, entry: ClassEntry) -> None:
        for text, source in entry.names:
            name = normalize(text)
            if not name:
                continue
            self._put(self.class_keys, name, _Key(position, source, "exact"))
            for other in other_numbers(name):
                self._put(self.class_keys, other, _Key(position, source, "inflected"))
            words = name.split()
            for said in _of_phrases(words):
                self._put(self.class_keys, said, _Key(position, source, "inflected"))
            for start in range(1, len(words)):
                tail = " ".join(words[start:])
                fraction = (len(words) - start) / len(words)
                self._put(self.class_keys, tail, _Key(position, source, "partial", fraction))
                for tail_other in other_numbers(tail):
                    self._put(self.class_keys, tail_other, _Key(position, source, "partial inflected", fraction))

    @staticmethod
    def _put(table: dict[str, list[_Key]], key: str, entry: _Key) -> None:
        entries = table.setdefault(key, [])
        if entry not in entries:
            entries.append(entry)

    def _add_value(self, position: int, value: ValueEntry) -> None:
        if value.datatype in NUMERIC_TYPES:
            number = _number(value.lexical)
            if number is not None:
                self.numbers.setdefault(number, []).append(position)
            return
        if value.datatype in DATE_TYPES:
            self._add_date(position, value)
            return
        key = normalize(value.lexical)
        if not key:
            return
        self.value_keys.setdefault(key, []).append(position)
        first, _, rest = key.partition(" ")
        if rest and first in _ARTICLES:
            self.article_keys.setdefault(rest, []).append(position)

    def _add_date(self, position: int, value: ValueEntry) -> None:
        parsed = _DATE_VALUE.match(value.lexical.strip())
        if not parsed:
            return
        year = int(parsed.group(1))
        month = int(parsed.group(2)) if parsed.group(2) else None
        day = int(parsed.group(3)) if parsed.group(3) else None
        exact = {XSD + "gYear": "year", XSD + "gYearMonth": "month"}.get(value.datatype or "")
        self.dates["year" if exact == "year" else "year of date"].setdefault(year, []).append(position)
        if month is not None:
            kind = "month" if exact == "month" else "month of date"
            self.dates[kind].setdefault(year * 100 + month, []).append(position)
        if day is not None and month is not None:
            self.dates["date"].setdefault((year * 100 + month) * 100 + day, []).append(position)

    def class_keys_near(self, size: int, cutoff: float) -> list[str]:
        """Class keys whose length a fuzzy ratio of ``cutoff`` allows against ``size`` characters."""
        cut = cutoff / 100
        lo = bisect.bisect_left(self._class_lengths, math.ceil(size * cut / (2 - cut)))
        hi = bisect.bisect_right(self._class_lengths, math.floor(size * (2 - cut) / cut))
        return self.class_vocabulary[lo:hi]

    # -- persistence --------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "fingerprint": self.fingerprint,
            "options": self.options.to_json(),
            "truncated": list(self.truncated),
            "classes": [[c.iri, c.instances, [list(n) for n in c.names]] for c in self.classes],
            "values": [[v.lexical, v.datatype, v.lang, [list(p) for p in v.predicates]] for v in self.values],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str = "grounding index") -> GroundingIndex:
        if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
            raise GroundingError(f"{source} is not a grounding index of version {FORMAT_VERSION}")
        try:
            classes = [
                ClassEntry(i, int(n), tuple((str(t), str(s)) for t, s in names)) for i, n, names in data["classes"]
            ]
            shared: dict[Any, Any] = {}  # one copy of each predicate, datatype and predicate list
            values = [
                ValueEntry(
                    str(lex), _one(shared, dt), lang, _one(shared, tuple((_one(shared, p), int(n)) for p, n in preds))
                )
                for lex, dt, lang, preds in data["values"]
            ]
            options = _options_from_json(data["options"])
            return cls(classes, values, options=options, fingerprint=data["fingerprint"], truncated=data["truncated"])
        except (KeyError, TypeError, ValueError) as exc:
            raise GroundingError(f"{source} is malformed: {exc!r}") from exc

    def save(self, path: Path) -> int:
        """Write the index (gzipped JSON) atomically; returns the file size in bytes."""
        return write_gzip_json(path, self.to_json())

    @classmethod
    def load(cls, path: Path) -> GroundingIndex:
        try:
            data = read_gzip_json(path)
        except (OSError, EOFError, ValueError) as exc:
            raise GroundingError(f"cannot read grounding index {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise GroundingError(f"{path} is not a grounding index")
        return cls.from_json(data, source=str(path))


def _one(shared: dict[Any, Any], item: Any) -> Any:
    """``item``, as the one equal copy kept in ``shared``: most values share their predicates
    (and datatype), which would otherwise be held once per value."""
    return None if item is None else shared.setdefault(item, item)


def _options_from_json(data: dict[str, Any]) -> IndexOptions:
    languages = data["languages"]
    return IndexOptions(
        max_literal_chars=int(data["max_literal_chars"]),
        max_values=int(data["max_values"]),
        max_classes=int(data["max_classes"]),
        languages=tuple(languages) if languages is not None else None,
        name_predicates=tuple(data["name_predicates"]),
        alias_predicates=tuple(data["alias_predicates"]),
    )


_DATE_KINDS = ("date", "year", "month", "year of date", "month of date")
_DATE_VALUE = re.compile(r"^(-?\d{4,})(?:-(\d{2})(?:-(\d{2}))?)?")


def _number(text: str) -> float | None:
    """A literal's or a mention's number (``1,000`` -> 1000.0); ``None`` when it is not one.

    >>> _number("1975"), _number("1.975E3"), _number("1,000.5"), _number("NaN"), _number("x")
    (1975.0, 1975.0, 1000.5, None, None)
    """
    try:
        number = float(text.strip().replace(",", ""))
    except ValueError:
        return None
    return number if math.isfinite(number) else None


# -- reading a store ------------------------------------------------------------------------


def _iris(values: Iterable[str]) -> str:
    return " ".join(f"<{v}>" for v in values)


def _rows(store: SelectStore, query: str, page_size: int | None, limit: int) -> Iterator[dict[str, Any]]:
    """The rows of ``query`` (which orders them) up to ``limit``, in pages of ``page_size``
    when it is set (endpoints cap the rows of one answer)."""
    step = limit if page_size is None else page_size
    offset = 0
    while offset < limit:
        size = min(step, limit - offset)
        rows = store.select(f"{query} LIMIT {size}" + (f" OFFSET {offset}" if offset else "")).rows
        yield from rows
        if len(rows) < size:
            return
        offset += size


def _lang_filter(variable: str, languages: tuple[str, ...] | None) -> str:
    """A SPARQL condition keeping untagged literals and those in ``languages``.

    >>> _lang_filter("?l", ("en",))
    '(LANG(?l) = "" || LANGMATCHES(LANG(?l), "en"))'
    """
    if languages is None:
        return "true"
    tests = " || ".join(
        f'LANGMATCHES(LANG({variable}), "{lang}")' for lang in languages if re.fullmatch(r"[\w-]+", lang)
    )
    return f'(LANG({variable}) = ""' + (f" || {tests})" if tests else ")")


def _language_ok(term: Term, languages: tuple[str, ...] | None) -> bool:
    return languages is None or not term.lang or term.lang.lower().split("-", 1)[0] in languages


def _outside_vocabularies(variable: str) -> str:
    """A SPARQL condition leaving out the RDF/RDFS/OWL/XSD/SKOS terms (``owl:Class`` is an
    object of ``rdf:type`` too, but no class a question asks about)."""
    return " && ".join(f'!STRSTARTS(STR({variable}), "{namespace}")' for namespace in VOCABULARIES)


def _is_vocabulary(iri: str) -> bool:
    return iri.startswith(VOCABULARIES) or iri in SCHEMA_TYPES


def read_classes(store: SelectStore, options: IndexOptions, page_size: int | None) -> tuple[list[ClassEntry], bool]:
    """The graph's classes (most instances first, at most ``max_classes``) with their names;
    the flag says whether the bound was reached."""
    predicates = (*options.name_predicates, *options.alias_predicates)
    classes = (
        f"SELECT ?c (COUNT(?s) AS ?n) WHERE {{ {{ ?s <{RDF_TYPE}> ?c }} UNION "
        f"{{ VALUES ?k {{ <{RDFS_CLASS}> <{OWL_CLASS}> }} ?c <{RDF_TYPE}> ?k }} "
        f"FILTER(isIRI(?c) && {_outside_vocabularies('?c')}) }} "
        f"GROUP BY ?c ORDER BY DESC(?n) ?c LIMIT {options.max_classes}"
    )
    query = (
        f"SELECT ?c ?n ?p ?l WHERE {{ {{ {classes} }} "
        f"OPTIONAL {{ VALUES ?p {{ {_iris(predicates)} }} ?c ?p ?l "
        f"FILTER(isLiteral(?l) && {_lang_filter('?l', options.languages)}) }} }} ORDER BY DESC(?n) ?c ?p ?l"
    )
    counts: dict[str, int] = {}
    names: dict[str, dict[tuple[str, str], None]] = {}
    aliases = set(options.alias_predicates)
    for row in _rows(store, query, page_size, options.max_classes * 20):
        iri = row["c"].value
        counts[iri] = int(row["n"].value)
        label = row.get("l")
        if label is not None and _language_ok(label, options.languages):
            source = ALIAS if row["p"].value in aliases else LABEL
            names.setdefault(iri, {})[(label.value, source)] = None
    entries = [_class_entry(iri, n, list(names.get(iri, {}))) for iri, n in counts.items() if not _is_vocabulary(iri)]
    return sorted(entries, key=lambda e: (-e.instances, e.iri)), len(counts) >= options.max_classes


def _class_entry(iri: str, instances: int, labels: list[tuple[str, str]]) -> ClassEntry:
    made = local_name_words(iri)
    local = [(text, LOCAL) for text in (made or ()) if text]
    ordered = sorted(labels, key=lambda n: (n[1] != LABEL, n[0]))
    return ClassEntry(iri, instances, tuple(ordered + local))


def read_values(store: SelectStore, options: IndexOptions, page_size: int | None) -> tuple[list[ValueEntry], bool]:
    """Literal objects up to ``max_literal_chars`` characters with their predicates (the
    linker's label predicates left out: those literals name entities), at most
    ``max_values`` (value, predicate) pairs, the most frequent first."""
    skipped = ", ".join(f"<{p}>" for p in (*options.name_predicates, *options.alias_predicates))
    query = (
        f"SELECT ?o ?p (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o FILTER(isLiteral(?o) && "
        f"STRLEN(STR(?o)) <= {options.max_literal_chars} && ?p NOT IN ({skipped}) && "
        f"{_lang_filter('?o', options.languages)}) }} GROUP BY ?o ?p ORDER BY DESC(?n) ?p ?o"
    )
    merged: dict[tuple[str, str | None, str | None], dict[str, int]] = {}
    shared: dict[Any, Any] = {}
    read = 0
    for row in _rows(store, query, page_size, options.max_values):
        read += 1
        term = row["o"]
        if term.datatype in SKIPPED_TYPES or not _language_ok(term, options.languages):
            continue
        predicates = merged.setdefault((term.value, _one(shared, term.datatype), term.lang), {})
        predicate = _one(shared, row["p"].value)
        predicates[predicate] = predicates.get(predicate, 0) + int(row["n"].value)
    values = [
        ValueEntry(lexical, datatype, lang, _one(shared, tuple(sorted(preds.items(), key=lambda p: (-p[1], p[0])))))
        for (lexical, datatype, lang), preds in merged.items()
    ]
    return values, read >= options.max_values


def build_grounding_index(
    store: SelectStore,
    options: IndexOptions | None = None,
    *,
    page_size: int | None = None,
    fingerprint: int | None = None,
) -> GroundingIndex:
    """Read the classes and literal values out of ``store`` (two bounded SELECTs)."""
    options = options or IndexOptions()
    if options.max_values < 0 or options.max_classes < 0 or options.max_literal_chars < 1:
        raise GroundingError(f"index bounds must be positive: {options}")
    try:
        classes, more_classes = read_classes(store, options, page_size)
        values, more_values = read_values(store, options, page_size)
    except Nl2SparqlError as exc:
        raise GroundingError(f"cannot read classes and values from the store: {exc}") from exc
    truncated = [name for name, more in (("classes", more_classes), ("values", more_values)) if more]
    return GroundingIndex(classes, values, options=options, fingerprint=fingerprint, truncated=truncated)


def default_grounding_cache(store: object) -> Path | None:
    """``<store folder>/grounding-index.json.gz`` for stores in a folder, else ``None``."""
    labels = default_cache_path(store)
    return labels.with_name(GROUNDING_CACHE_FILE) if labels else None


def load_or_build_grounding(
    store: SelectStore,
    cache_path: Path | None = None,
    options: IndexOptions | None = None,
    *,
    rebuild: bool = False,
) -> tuple[GroundingIndex, GroundingReport]:
    """The cached index when it was built from this store (same triple count) with these
    options, else a fresh one, written to the cache (``cache_path`` defaults to
    :func:`default_grounding_cache`; with neither, nothing is cached)."""
    start = time.perf_counter()
    options = options or IndexOptions()
    path = Path(cache_path) if cache_path is not None else default_grounding_cache(store)
    try:
        fingerprint = store_fingerprint(store)
    except Nl2SparqlError as exc:
        raise GroundingError(f"cannot count the store's triples: {exc}") from exc
    if path is not None and path.is_file() and not rebuild:
        cached = _cached(path)
        if cached is not None and cached.fingerprint == fingerprint and cached.options == options:
            return cached, _report(cached, start, path, True)
    index = build_grounding_index(store, options, page_size=default_page_size(store), fingerprint=fingerprint)
    if path is not None:
        try:
            index.save(path)
        except OSError as exc:
            raise GroundingError(f"cannot write grounding index {path}: {exc}") from exc
    return index, _report(index, start, path, False)


def _cached(path: Path) -> GroundingIndex | None:
    try:
        return GroundingIndex.load(path)
    except GroundingError:
        return None  # unreadable or another version: rebuilt and overwritten


def _report(index: GroundingIndex, start: float, path: Path | None, cached: bool) -> GroundingReport:
    return GroundingReport(
        classes=len(index.classes),
        labelled_classes=sum(any(s != LOCAL for _, s in c.names) for c in index.classes),
        values=len(index.values),
        predicates=len({p for v in index.values for p, _ in v.predicates}),
        truncated=index.truncated,
        seconds=time.perf_counter() - start,
        cache_path=path,
        loaded_from_cache=cached,
    )


# -- numbers and dates a question writes ---------------------------------------------------------

_MONTHS = {
    name: number
    for number, names in enumerate(
        ("january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
         "august aug", "september sep sept", "october oct", "november nov", "december dec"),
        start=1,
    )
    for name in names.split()
}  # fmt: skip
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATE_PATTERNS = (
    re.compile(r"\b(?P<year>\d{4})-(?P<mnum>\d{2})-(?P<day>\d{2})\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
)
_NUMBER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,]\d)")


@dataclass(frozen=True, slots=True)
class _Written:
    """A number or date the question writes: ``kind`` is "number", "date" or "month"."""

    kind: str
    span: tuple[int, int]
    number: float = 0.0
    year: int = 0
    month: int = 0
    day: int = 0


def written_dates(question: str) -> list[_Written]:
    """Dates (``1975-03-01``, ``March 1, 1975``, ``1 March 1975``) and months (``March 1975``).

    >>> [(w.kind, w.year, w.month, w.day) for w in written_dates("born on 1 March 1975 or in May 1980?")]
    [('date', 1975, 3, 1), ('month', 1980, 5, 0)]
    """
    found: list[_Written] = []
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(question):
            if any(m.start() < w.span[1] and w.span[0] < m.end() for w in found):
                continue
            parts = m.groupdict()
            month = int(parts["mnum"]) if parts.get("mnum") else _MONTHS[parts["month"].lower()]
            day = int(parts["day"]) if parts.get("day") else 0
            if 1 <= month <= 12 and day <= 31:
                kind = "date" if day else "month"
                found.append(_Written(kind, m.span(), year=int(parts["year"]), month=month, day=day))
    return sorted(found, key=lambda w: w.span)


def written_numbers(question: str, taken: Sequence[tuple[int, int]] = ()) -> list[_Written]:
    """Numbers written in digits outside the ``taken`` spans (the dates).

    >>> [w.number for w in written_numbers("albums of 1975 longer than 40.5 minutes, 1,000 sold")]
    [1975.0, 40.5, 1000.0]
    """
    out = []
    for m in _NUMBER.finditer(question):
        if any(m.start() < b and a < m.end() for a, b in taken):
            continue
        number = _number(m.group())
        if number is not None:
            out.append(_Written("number", m.span(), number=number))
    return out


# -- grounding ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Hit:
    position: int
    first: int  # token range [first, last) of the mention
    last: int
    sim: float
    match: str
    exact: bool  # a whole-name match, which makes mentions inside it "nested"
    span: tuple[int, int] | None = None  # character span, for numbers and dates
    words: int = 0  # the mention's words, where tokens miscount them ("41.8" is one)


class Grounder:
    """Grounds questions in one graph: entities (through the linker), classes and values.

    >>> index = GroundingIndex([ClassEntry("http://x.org/Band", 3, (("band", LABEL),))], [])
    >>> [(c.name, c.mention, c.match) for c in Grounder(index).ground("How many bands are there?").classes]
    [('band', 'bands', 'inflected')]
    """

    def __init__(
        self, index: GroundingIndex, linker: EntityLinker | None = None, weights: GroundWeights | None = None
    ) -> None:
        self.index = index
        self.linker = linker
        self.weights = weights or GroundWeights()
        self.report: GroundingReport | None = None  # how the index was built, when from a store

    @classmethod
    def from_store(
        cls,
        store: Any,
        cache_path: Path | None = None,
        *,
        linker: EntityLinker | None = None,
        options: IndexOptions | None = None,
        weights: GroundWeights | None = None,
        rebuild: bool = False,
        **linker_options: Any,
    ) -> Grounder:
        """A grounder over ``store``: its grounding index (cached at ``cache_path``, by default
        in the store folder) and, unless one is given, an :class:`EntityLinker` whose label
        index is cached beside it (``linker_options`` as :meth:`EntityLinker.from_store`)."""
        index, report = load_or_build_grounding(store, cache_path, options, rebuild=rebuild)
        if linker is None:
            label_cache = Path(cache_path).with_name(CACHE_FILE) if cache_path is not None else None
            linker = EntityLinker.from_store(store, label_cache, **linker_options)
        grounder = cls(index, linker, weights)
        grounder.report = report
        return grounder

    def ground(self, question: str, k: int = 5) -> Grounding:
        """Up to ``k`` entities, classes and values the question names, best first."""
        text = check_question(question)
        tokens = tokenize(text)
        if len(tokens) > MAX_WORDS:
            raise GroundingError(f"the question has {len(tokens)} words; grounding reads at most {MAX_WORDS}")
        if k <= 0:
            return Grounding(text)
        entities = tuple(self.linker.link(text, k)) if self.linker is not None else ()
        classes = self._ranked_classes(text, tokens, self._class_hits(tokens))[:k]
        values = self._ranked_values(text, tokens, self._value_hits(text, tokens))[:k]
        return Grounding(text, entities, tuple(classes), tuple(values))

    # -- classes ------------------------------------------------------------------------------

    def _class_hits(self, tokens: Sequence[_Token]) -> list[_Hit]:
        hits: list[_Hit] = []
        w = self.weights
        for i, j, key in _ngrams(tokens, MAX_CLASS_NGRAM):
            content_ends = not tokens[i].stop and not tokens[j - 1].stop
            keys = self.index.class_keys.get(key, [])
            for entry in keys:
                if entry.form.startswith("partial") and not content_ends:
                    continue
                hits.append(_Hit(entry.position, i, j, self._class_sim(entry), _FORM[entry.form], entry.form in _WHOLE))
            whole = any(e.form in _WHOLE for e in keys)
            if not whole and content_ends and j - i <= 3 and len(key) >= w.fuzzy_min_chars:
                hits += self._fuzzy_classes(key, i, j)
        return hits

    def _class_sim(self, entry: _Key) -> float:
        w = self.weights
        sim = {LABEL: w.label, LOCAL: w.local_name, ALIAS: w.alias}[entry.source]
        if "inflected" in entry.form:
            sim *= w.inflected
        if entry.form.startswith("partial"):
            sim *= w.partial * entry.fraction**0.5
        return sim

    def _fuzzy_classes(self, key: str, i: int, j: int) -> list[_Hit]:
        w = self.weights
        near = self.index.class_keys_near(len(key), w.fuzzy_cutoff)
        found = process.extract(key, near, scorer=fuzz.ratio, processor=None, score_cutoff=w.fuzzy_cutoff, limit=3)
        hits = []
        for name, ratio, _ in found:
            for entry in self.index.class_keys[name]:
                if entry.form in _WHOLE:
                    hits.append(
                        _Hit(entry.position, i, j, self._class_sim(entry) * w.fuzzy * ratio / 100, "fuzzy", False)
                    )
        return hits

    def _ranked_classes(self, text: str, tokens: Sequence[_Token], hits: list[_Hit]) -> list[ClassMatch]:
        out = []
        for hit, score in self._best(tokens, hits).values():
            entry = self.index.classes[hit.position]
            span = _char_span(tokens, hit)
            mention = text[span[0] : span[1]]
            out.append(ClassMatch(entry.iri, entry.display, mention, round(score, 6), span, hit.match, entry.instances))
        return sorted(out, key=lambda c: (-c.score, -c.instances, c.iri))

    # -- values -------------------------------------------------------------------------------

    def _value_hits(self, text: str, tokens: Sequence[_Token]) -> list[_Hit]:
        hits: list[_Hit] = []
        for i, j, key in _ngrams(tokens, MAX_VALUE_NGRAM, acronyms=text):
            surface = text[tokens[i].start : tokens[j - 1].end]
            exact = self.index.value_keys.get(key, [])[: self.weights.per_key]
            article = self.index.article_keys.get(key, [])[: self.weights.per_key]
            # *large airports* writes the value *large airport* in the plural; *won*, *WIN* as a past
            other = [] if exact else [p for form in other_forms(key) for p in self.index.value_keys.get(form, [])]
            content = not tokens[i].stop and not tokens[j - 1].stop
            for positions, sim, match in (
                (exact, self.weights.label, "exact"),
                (article, self.weights.article, "article"),
                (other[: self.weights.per_key], self.weights.label, "inflected"),
            ):
                ok = [p for p in positions if self._short_value_ok(p, key, surface, content)]
                hits += [_Hit(p, i, j, sim, match, True) for p in ok]
            if not exact and not article and not other and content:
                hits += self._near_values(key, i, j)
        return hits + self._number_hits(text, tokens)

    def _short_value_ok(self, position: int, key: str, surface: str, content: bool) -> bool:
        """A value of three letters or fewer is met only as written, or, where it is a category
        in capitals (*WIN*, *BTM*), by a word that is no stop word (*win*, *won*)."""
        value = self.index.values[position]
        category = content and category_code(value.lexical, value.count)
        return len(key) > 3 or surface == value.lexical.strip() or category

    def _near_values(self, key: str, i: int, j: int) -> list[_Hit]:
        """Partial (the mention is a run of a value's words) and fuzzy matches, among the
        values that share the mention's rarest indexed word."""
        w = self.weights
        postings = [self.index.postings[word] for word in key.split() if word in self.index.postings]
        if not postings:
            return []
        words = j - i
        hits = []
        for k in min(postings, key=len):
            value_key = self.index.value_vocabulary[k]
            size = value_key.count(" ") + 1
            if size > words and f" {key} " in f" {value_key} ":
                sim, match = w.partial * (words / size) ** 0.5, "partial"
            elif len(key) >= w.fuzzy_min_chars and (ratio := _ratio(key, value_key)) >= w.fuzzy_cutoff:
                sim, match = w.fuzzy * ratio / 100, "fuzzy"
            else:
                continue
            hits += [_Hit(p, i, j, sim, match, False) for p in self.index.value_keys[value_key]]
        return hits

    def _number_hits(self, text: str, tokens: Sequence[_Token]) -> list[_Hit]:
        w = self.weights
        dates = written_dates(text)
        hits = []
        for written in (*dates, *written_numbers(text, [d.span for d in dates])):
            first, last = _token_range(tokens, written.span)
            for position, match in self._by_value(written):
                sim = {"year of date": w.year_of_date, "month of date": w.month_of_date}.get(match, w.label)
                words = len(text[written.span[0] : written.span[1]].split())
                hits.append(_Hit(position, first, last, sim, match, True, written.span, words))
        return hits

    def _by_value(self, written: _Written) -> list[tuple[int, str]]:
        month = written.year * 100 + written.month
        if written.kind == "date":
            keys = [("date", month * 100 + written.day)]
        elif written.kind == "month":
            keys = [("month", month), ("month of date", month)]
        elif written.number.is_integer() and 1000 <= written.number <= 9999:
            keys = [("year", int(written.number)), ("year of date", int(written.number))]
        else:
            keys = []
        limit = self.weights.per_key
        numbers = self.index.numbers.get(written.number, []) if written.kind == "number" else []
        found = [(p, "number") for p in numbers[:limit]]
        return found + [(p, kind) for kind, key in keys for p in self.index.dates[kind].get(key, [])[:limit]]

    def _ranked_values(self, text: str, tokens: Sequence[_Token], hits: list[_Hit]) -> list[ValueMatch]:
        out = []
        for hit, score in self._best(tokens, hits).values():
            value = self.index.values[hit.position]
            span = _char_span(tokens, hit)
            predicates = tuple(p for p, _ in value.predicates)
            out.append(
                ValueMatch(
                    value.lexical, value.datatype, predicates, text[span[0] : span[1]], round(score, 6),
                    span, hit.match, value.lang, value.count,
                )
            )  # fmt: skip
        return sorted(out, key=lambda v: (-v.score, -v.count, v.value, v.datatype or ""))

    # -- scoring ------------------------------------------------------------------------------

    def _best(self, tokens: Sequence[_Token], hits: list[_Hit]) -> dict[int, tuple[_Hit, float]]:
        """Each item's best-scoring hit: similarity + length bonus - nested penalty."""
        w = self.weights
        whole = {(h.first, h.last) for h in hits if h.exact}
        best: dict[int, tuple[_Hit, float]] = {}
        for hit in hits:
            words = hit.words or max(sum(not t.stop for t in tokens[hit.first : hit.last]), 1)
            score = hit.sim + w.length * min(words, 3) / 3
            if any(a <= hit.first and hit.last <= b and b - a > hit.last - hit.first for a, b in whole):
                score -= w.nested
            current = best.get(hit.position)
            if current is None or score > current[1]:
                best[hit.position] = (hit, score)
        return best


def _of_phrases(words: Sequence[str]) -> list[str]:
    """A two-word class name said with *of* (*plot type*: *type of plot*, *types of plot*).

    >>> _of_phrases(["plot", "type"]), _of_phrases(["country"])
    (['type of plot', 'types of plot'], [])
    """
    if len(words) != 2:
        return []
    modifier, head = words
    return [f"{form} of {modifier}" for form in (head, *other_numbers(head))]


_WHOLE = frozenset({"exact", "inflected"})
_FORM = {"exact": "exact", "inflected": "inflected", "partial": "partial", "partial inflected": "partial"}


def _ngrams(tokens: Sequence[_Token], longest: int, acronyms: str | None = None) -> Iterator[tuple[int, int, str]]:
    """Token ranges up to ``longest`` tokens with their normalised text, skipping those made
    only of stop words (unless ``acronyms`` is the question and it writes them in capitals:
    ``IT``, ``US``)."""
    for i in range(len(tokens)):
        for j in range(i + 1, min(len(tokens), i + longest) + 1):
            gram = tokens[i:j]
            if all(t.stop for t in gram):
                surface = acronyms[gram[0].start : gram[-1].end] if acronyms is not None else ""
                if not (len(surface) > 1 and surface.isupper()):
                    continue
            yield i, j, " ".join(t.norm for t in gram)


def _ratio(mention: str, value: str) -> float:
    """rapidfuzz's ratio of a mention to a value, or to the value less its leading article.

    >>> round(_ratio("best sounds", "the best sound"), 1)
    95.2
    """
    first, _, rest = value.partition(" ")
    ratio = fuzz.ratio(mention, value)
    return max(ratio, fuzz.ratio(mention, rest)) if rest and first in _ARTICLES else ratio


_ARTICLES = frozenset(("the", "a", "an"))


def _token_range(tokens: Sequence[_Token], span: tuple[int, int]) -> tuple[int, int]:
    inside = [n for n, t in enumerate(tokens) if span[0] <= t.start and t.end <= span[1]]
    return (inside[0], inside[-1] + 1) if inside else (0, 0)


def _char_span(tokens: Sequence[_Token], hit: _Hit) -> tuple[int, int]:
    if hit.span is not None:
        return hit.span
    return tokens[hit.first].start, tokens[hit.last - 1].end


__all__ = [
    "ClassMatch",
    "Grounder",
    "Grounding",
    "GroundingError",
    "GroundingIndex",
    "GroundingReport",
    "GroundWeights",
    "IndexOptions",
    "ValueMatch",
    "build_grounding_index",
    "load_or_build_grounding",
    "other_numbers",
    "plural",
    "singular",
    "written_dates",
    "written_numbers",
]
