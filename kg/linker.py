"""Entity linking: which entities of the store does a question talk about?

The pipeline needs the question's topic entities (``{id: name}``) before the planner
runs. Users who know them pass ids, which :func:`validate_entity_ids` checks against the
store; otherwise :class:`EntityLinker` finds them by matching the question's word n-grams
(1 to 6 tokens) against a :class:`~nl2sparql.kg.label_index.LabelIndex`:

1. exact: the normalised n-gram is a normalised label (or alias);
2. partial: the n-gram is a run of whole words inside a longer label
   (``lincoln`` in ``Abraham Lincoln``, ``portuguese`` in ``Portuguese Language``);
3. derived: a one-word adjective, demonym or plural whose stem is a label
   (``chinese`` -> ``China``, ``egyptians`` -> ``Egypt``);
4. fuzzy: rapidfuzz's ``ratio`` over the labels of a compatible length, with a score
   cutoff, for typos and inflections (``justin beiber``, ``jamaican`` -> ``Jamaica``),
   tried only for n-grams that found no exact label.

N-grams made only of stop words are skipped; partial, derived and fuzzy matches must start
and end on a content word. Each (entity, mention) gets a score that adds the string
similarity, the mention's length in content words (a mention inside a longer one that
matched a label exactly loses some), the entity's log-degree (its popularity in the graph)
and, when the linker has one, the :class:`MentionPrior` of the n-gram (how often it names
the question's entity in training questions). An entity keeps its best mention. The
weights were tuned on the WebQSP train dev split (``WebQTrn-N`` with ``N % 10 == 0``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any, Protocol

from rapidfuzz import fuzz, process

from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kg.demonyms import country_names
from nl2sparql.kg.label_index import (
    ALIAS,
    FREEBASE_NS,
    NAME,
    NAME_SQUASHED,
    BuildReport,
    LabelIndex,
    entity_iri,
    load_or_build,
    normalize,
    short_id,
)
from nl2sparql.kg.local_names import iri_name, without_type_letter
from nl2sparql.kg.mention_prior import MentionPrior, learn_from_datasets

MAX_NGRAM = 6
MAX_WORDS = 200  # a longer "question" is refused rather than matched for seconds
PRIOR_CACHE_FILE = "mention-prior.json"

# Function words and the question words of KBQA questions: never a mention on their own.
_STOP_TEXT = """
a about above after again against all am an and any are as at be been before being below
between both but by can could did do does doing done down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its
itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we
were what when where which while who whom whose why will with would you your yours
yourself yourselves s t d ll m re ve o y also ever get got go goes went many much whats
wheres whos hows name names called call kind type
"""
STOP_WORDS: frozenset[str] = frozenset(_STOP_TEXT.split())


class LinkingError(Nl2SparqlError):
    """A question the linker cannot read."""


class UnknownEntityError(Nl2SparqlError):
    """Entity ids given by the caller that the store does not hold."""

    def __init__(self, unknown: Sequence[str]) -> None:
        self.unknown = tuple(unknown)
        noun = "entity" if len(self.unknown) == 1 else "entities"
        super().__init__(f"unknown {noun} (not in the store): {', '.join(self.unknown)}")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One entity the question may mention, with where and how it was found."""

    entity_id: str
    name: str
    score: float
    mention: str
    span: tuple[int, int]  # character offsets of the mention in the question
    label: str  # the normalised label the mention matched
    match: str  # "exact", "partial", "derived" or "fuzzy"
    degree: int


@dataclass(frozen=True, slots=True)
class RankWeights:
    """How the parts of a candidate's score add up (tuned on the WebQSP train dev split)."""

    prior: float = 0.3  # times log1p(degree) / log1p(max degree)
    length: float = 0.8  # times min(content words in the mention, 3) / 3
    mention: float = 0.5  # times the mention prior's value of the n-gram, in [-1, 1]
    nested: float = 0.25  # taken off a mention inside a longer mention that matched a label exactly
    alias: float = 0.95  # similarity of an exact alias match
    squashed: float = 0.98  # similarity of a match with punctuation dropped
    derived: float = 0.8  # similarity of a derived form (``chinese`` -> ``china``)
    fuzzy: float = 0.9  # similarity of a fuzzy match = fuzzy * ratio / 100
    partial: float = 0.95  # similarity of a partial match = partial * (mention words / label words) ** 0.5
    fuzzy_cutoff: float = 85.0  # rapidfuzz ratio below which a fuzzy match is dropped
    fuzzy_limit: int = 10  # labels kept per n-gram by the fuzzy matcher
    fuzzy_min_chars: int = 4  # n-grams shorter than this are not fuzzy-matched
    partial_limit: int = 200  # n-grams whose rarest word is in more labels are not partial-matched


@dataclass(frozen=True, slots=True)
class _Token:
    norm: str
    start: int
    end: int
    stop: bool


@dataclass(frozen=True, slots=True)
class _Match:
    position: int  # the entity's position in the index
    first: int  # token range [first, last) of the mention
    last: int
    key: str  # the normalised n-gram
    label: str  # the normalised label it matched
    sim: float
    match: str


_WORD = re.compile(r"[^\W_]+")
_BAD_IRI = re.compile(r'[\s<>"{}|^`\\]')
# Adjectives and demonyms to the names they come from: chinese -> china, egyptians -> egypt.
_SUFFIXES = ("ians", "ian", "ans", "an", "ese", "ish", "ic", "ns", "s", "i")
_ENDINGS = ("", "a", "ia", "y", "e", "o", "en", "and", "any")


def _around_exact(fuzzy: _Match, exact: set[tuple[int, int, str]]) -> bool:
    """Whether a fuzzy mention holds a shorter one that matched another label exactly, the
    fuzzy match's label holding that label too and its other words unlike the question's
    (*Western Digital make* is no *Western Digital Black*; *Western Digital Blak* may be).

    >>> m = _Match(0, 2, 5, "western digital make", "western digital black", 0.8, "fuzzy")
    >>> _around_exact(m, {(2, 4, "western digital")}), _around_exact(m, {(0, 1, "which")})
    (True, False)
    >>> _around_exact(_Match(0, 2, 5, "western digital blak", m.label, 0.9, "fuzzy"), {(2, 4, "western digital")})
    False
    """
    for a, b, key in exact:
        if fuzzy.first <= a and b <= fuzzy.last and b - a < fuzzy.last - fuzzy.first and key in fuzzy.label:
            rest_said, rest_named = fuzzy.key.replace(key, " ").split(), fuzzy.label.replace(key, " ").split()
            return SequenceMatcher(None, " ".join(rest_said), " ".join(rest_named)).ratio() < 0.75
    return False


def tokenize(question: str) -> list[_Token]:
    """Word tokens of ``question`` with their character offsets and normalised forms."""
    tokens = []
    for match in _WORD.finditer(question):
        for part in normalize(match.group()).split():
            tokens.append(_Token(part, match.start(), match.end(), part in STOP_WORDS))
    return tokens


class _SelectStore(Protocol):
    def select(self, query: str, timeout: float | None = None) -> Any: ...

    def labels(self, ids: Iterable[str]) -> dict[str, str]: ...


class EntityLinker:
    """Top-k entity candidates for a question, over one :class:`LabelIndex`."""

    def __init__(
        self,
        index: LabelIndex,
        weights: RankWeights | None = None,
        mention_prior: MentionPrior | None = None,
    ) -> None:
        self.index = index
        self.weights = weights or RankWeights()
        self.mention_prior = mention_prior
        self.report: BuildReport | None = None  # how the index was built, when from a store

    @classmethod
    def from_store(
        cls,
        store: Any,
        cache_path: Path | None = None,
        *,
        training: Sequence[str | Path] = (),
        weights: RankWeights | None = None,
        **options: Any,
    ) -> EntityLinker:
        """A linker over ``store``'s labels (index options as :func:`load_or_build`).

        ``training`` names dataset files with gold entities (WebQSP, CWQ, GrailQA) to learn
        a :class:`MentionPrior` from; it is cached beside the label index.
        """
        index, report = load_or_build(store, cache_path, **options)
        linker = cls(index, weights)
        linker.report = report
        if training:
            prior_cache = report.cache_path.with_name(PRIOR_CACHE_FILE) if report.cache_path else None
            linker.mention_prior = learn_from_datasets(
                linker.ngram_candidates,
                training,
                cache_path=prior_cache,
                index_key=[index.fingerprint, len(index), len(index.vocabulary)],
            )
        return linker

    def link(self, question: str, k: int = 5) -> list[Candidate]:
        """The ``k`` best candidates, best first (an empty list when nothing matches)."""
        if k <= 0:
            return []
        tokens = tokenize(question)
        if len(tokens) > MAX_WORDS:
            raise LinkingError(f"the question has {len(tokens)} words; the linker reads at most {MAX_WORDS}")
        w = self.weights
        index = self.index
        best: dict[int, tuple[float, _Match]] = {}
        matches = self._matches(tokens)
        exact_of = {(m.position, m.first, m.last) for m in matches if m.match == "exact"}
        exact_spans = {(a, b) for _, a, b in exact_of}
        exact_keys = {(m.first, m.last, m.key) for m in matches if m.match == "exact"}
        for m in matches:
            if m.match == "fuzzy" and any(p == m.position and m.first <= a and b <= m.last for p, a, b in exact_of):
                continue  # the entity's whole name is inside: *American Airlines* in *American Airlines fly*
            if m.match == "fuzzy" and _around_exact(m, exact_keys):
                continue  # another's whole name is inside, the words around it unlike the label's
            # Words the label does not cover earn nothing ("scarlett johansson date").
            words = min(sum(not t.stop for t in tokens[m.first : m.last]), m.label.count(" ") + 1)
            score = m.sim + w.length * min(words, 3) / 3 + w.prior * index.log_degree[m.position]
            if any(a <= m.first and m.last <= b and b - a > m.last - m.first for a, b in exact_spans):
                score -= w.nested
            if self.mention_prior is not None:
                score += w.mention * self.mention_prior.value(m.key)
            current = best.get(m.position)
            if current is None or score > current[0]:
                best[m.position] = (score, m)
        ranked = sorted(best.items(), key=lambda item: (-item[1][0], -index.degrees[item[0]], index.ids[item[0]]))
        out = []
        for position, (score, m) in ranked[:k]:
            span = (tokens[m.first].start, tokens[m.last - 1].end)
            out.append(
                Candidate(
                    entity_id=index.entity_id(position),
                    name=index.names[position],
                    score=round(score, 6),
                    mention=question[span[0] : span[1]],
                    span=span,
                    label=m.label,
                    match=m.match,
                    degree=index.degrees[position],
                )
            )
        return out

    def link_entities(self, question: str, k: int = 1, min_ratio: float = 0.8) -> dict[str, str]:
        """Up to ``k`` entities with non-overlapping mentions, best first, as ``{id: name}``.

        After the best one, an entity is taken only when its score is at least ``min_ratio``
        times the best score, so asking for three entities does not pad the answer with
        weak matches of ordinary words.
        """
        chosen: dict[str, str] = {}
        taken: list[tuple[int, int]] = []
        candidates = self.link(question, k=max(5, 4 * k))
        for candidate in candidates:
            start, end = candidate.span
            if any(start < b and a < end for a, b in taken):
                continue
            if chosen and candidate.score < min_ratio * candidates[0].score:
                break
            chosen[candidate.entity_id] = spoken_name(candidate)
            taken.append(candidate.span)
            if len(chosen) == k:
                break
        return chosen

    def ngram_candidates(self, question: str) -> dict[str, set[str]]:
        """Each matching n-gram of ``question`` with the ids it matched (what a mention prior learns from)."""
        found: dict[str, set[str]] = {}
        for m in self._matches(tokenize(question)):
            found.setdefault(m.key, set()).add(self.index.entity_id(m.position))
        return found

    # -- matching -----------------------------------------------------------------

    def _matches(self, tokens: Sequence[_Token]) -> list[_Match]:
        out: list[_Match] = []
        for i in range(len(tokens)):
            for j in range(i + 1, min(len(tokens), i + MAX_NGRAM) + 1):
                gram = tokens[i:j]
                if all(t.stop for t in gram):
                    continue
                key = " ".join(t.norm for t in gram)
                exact = self._exact(key, i, j, out)
                if gram[0].stop or gram[-1].stop:
                    continue
                self._partial(key, i, j, out)
                if j - i == 1:
                    self._derived(key, i, out)
                if j - i <= 2:
                    self._adjective(key, i, j, out)
                if not exact and len(key) >= self.weights.fuzzy_min_chars:
                    self._fuzzy(key, i, j, out)
        return out

    def _kind_sim(self, kind: int) -> float:
        w = self.weights
        if kind == NAME:
            return 1.0
        if kind == NAME_SQUASHED:
            return w.squashed
        return w.alias if kind == ALIAS else w.alias * w.squashed

    def _exact(self, key: str, i: int, j: int, out: list[_Match]) -> bool:
        entries = self.index.keys.get(key)
        if not entries:
            return False
        for position, kind in entries:
            out.append(_Match(position, i, j, key, key, self._kind_sim(kind), "exact"))
        return True

    def _derived(self, key: str, i: int, out: list[_Match]) -> None:
        keys = self.index.keys
        seen = {key}
        for suffix in _SUFFIXES:
            if not key.endswith(suffix) or len(key) - len(suffix) < 3:
                continue
            stem = key[: len(key) - len(suffix)]
            for ending in _ENDINGS:
                form = stem + ending
                if form in seen or form not in keys:
                    continue
                seen.add(form)
                for position, kind in keys[form]:
                    sim = self.weights.derived * self._kind_sim(kind)
                    out.append(_Match(position, i, i + 1, key, form, sim, "derived"))

    def _adjective(self, key: str, i: int, j: int, out: list[_Match]) -> None:
        """*French* names the country *France* (irregular adjectives: :mod:`~.demonyms`)."""
        keys = self.index.keys
        for form in country_names().get(key, ()):
            for position, kind in keys.get(form, ()):
                out.append(_Match(position, i, j, key, form, self.weights.derived * self._kind_sim(kind), "derived"))

    def _partial(self, key: str, i: int, j: int, out: list[_Match]) -> None:
        index = self.index
        words = key.split()
        if all(word.isdigit() for word in words):  # a bare number names no entity by part (``2007``
            return  # in ``Algeria 2007``): it is a value, which the grounder matches
        postings = [index.token_keys.get(word) for word in words]
        if any(p is None for p in postings):
            return
        rarest = min(postings, key=len)  # type: ignore[arg-type]
        assert rarest is not None
        if len(rarest) > self.weights.partial_limit:
            return
        padded = f" {key} "
        size = len(words)
        for k in rarest:
            label = index.vocabulary[k]
            label_words = label.count(" ") + 1
            if label_words <= size or padded not in f" {label} ":
                continue
            sim = self.weights.partial * (size / label_words) ** 0.5
            for position, kind in index.keys[label]:
                out.append(_Match(position, i, j, key, label, sim * self._kind_sim(kind), "partial"))

    def _fuzzy(self, key: str, i: int, j: int, out: list[_Match]) -> None:
        w = self.weights
        # ratio = 2 * matches / (len(a) + len(b)) >= cutoff bounds the label's length.
        cut = w.fuzzy_cutoff / 100
        size = len(key)
        shortest = math.ceil(size * cut / (2 - cut))
        longest = math.floor(size * (2 - cut) / cut)
        hits = process.extract(
            key,
            self.index.keys_of_length(shortest, longest),
            scorer=fuzz.ratio,
            processor=None,
            score_cutoff=w.fuzzy_cutoff,
            limit=w.fuzzy_limit,
        )
        for label, ratio, _ in hits:
            sim = w.fuzzy * ratio / 100
            for position, kind in self.index.keys[label]:
                out.append(_Match(position, i, j, key, label, sim * self._kind_sim(kind), "fuzzy"))


def spoken_name(candidate: Candidate) -> str:
    """The entity's name as the question says it when the match dropped a type letter that a
    name made from a local name ends in (``Pink Floyd B`` asked as *Pink Floyd*): the planner
    copies names into its plan, and a stray letter there reads as the start of an initial.

    >>> spoken_name(Candidate("x:PinkFloydB", "Pink Floyd B", 1.0, "pink floyd", (0, 10), "pink floyd", "exact", 3))
    'Pink Floyd'
    >>> spoken_name(Candidate("m.0x", "Malcolm X", 1.0, "Malcolm X", (0, 9), "malcolm x", "exact", 3))
    'Malcolm X'
    >>> spoken_name(Candidate("x:FM", "Freddie Mercury M", 1.0, "Freddie Mercury born", (0, 20), "", "fuzzy", 3))
    'Freddie Mercury'
    """
    head = without_type_letter(candidate.name)
    said = normalize(candidate.mention).split()
    if head and candidate.name[-1].lower() not in said and all(word in said for word in normalize(head).split()):
        return head
    return candidate.name


def validate_entity_ids(
    store: _SelectStore,
    entities: Mapping[str, str] | Iterable[str],
    namespace: str = FREEBASE_NS,
    keep_named_unknown: bool = False,
) -> dict[str, str]:
    """Check caller-given ids against the store; ``{id: name}`` or :class:`UnknownEntityError`.

    Ids may be short (``m.03_r3``), prefixed (``ns:m.03_r3``) or full IRIs (``<...>`` or
    bare); the result keys are short ids. An id is known when it occurs in a triple. Names
    given in a mapping are kept; missing ones come from ``Store.labels``, else the words of
    the IRI's local name (graphs whose entities have no labels), else the id itself. With
    ``keep_named_unknown`` (translating for another KG than the one loaded), an id the store
    lacks is kept when the caller named it.
    """
    given = dict(entities) if isinstance(entities, Mapping) else dict.fromkeys(entities, "")
    if not given:
        return {}
    iris = {entity_id: entity_iri(entity_id, namespace) for entity_id in given}
    malformed = [entity_id for entity_id, iri in iris.items() if not iri or _BAD_IRI.search(iri)]
    if malformed:
        raise UnknownEntityError(malformed)
    values = " ".join(f"<{iri}>" for iri in dict.fromkeys(iris.values()))
    query = f"SELECT DISTINCT ?e WHERE {{ VALUES ?e {{ {values} }} {{ ?e ?p ?o }} UNION {{ ?s ?p ?e }} }}"
    found = {row["e"].value for row in store.select(query).rows}
    unknown = [
        entity_id
        for entity_id, iri in iris.items()
        if iri not in found and not (keep_named_unknown and given[entity_id].strip())
    ]
    if unknown:
        raise UnknownEntityError(unknown)
    unnamed = [iris[entity_id] for entity_id, name in given.items() if not name]
    names = store.labels(unnamed) if unnamed else {}
    result = {}
    for entity_id, name in given.items():
        iri = iris[entity_id]
        short = short_id(iri, namespace)
        result[short] = name or names.get(iri) or iri_name(iri) or short
    return result
