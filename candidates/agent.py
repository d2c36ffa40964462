"""The agent: candidate plans built over the graph from what the question was grounded in.

Pangu's split ("Don't Generate, Discriminate"): this module knows what is valid (the
bank's statements, the store's edges), the scorer knows what is likely. The search is a
small beam loop over partial plans:

1. **bases**: one hop from each grounded entity, class or value (:mod:`.anchors`), over
   every bank statement whose first edge the node really has;
2. **intersections** of the best bases (and of every base with the instances of a class
   the question names) from different anchors that share a node;
3. the best of those are **extended**: a second hop from the nodes they reach (a third
   from a node the question names by a title or a name), and intersections again;
4. the best of all get the **operators** the question's cues open (:mod:`.shapes`: count,
   yes/no, ranking with a window, comparison, aggregate, per-group aggregate, ranking of
   groups, negation, several columns, text match) over attributes the nodes they reach
   really have.

Every candidate reaches something on the store (a pattern that matches nothing is
dropped), every look at the store is bounded (:class:`~nl2sparql.candidates.graph.GraphView`),
and the whole search stops at ``max_candidates``.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Protocol

from nl2sparql.candidates.anchors import anchors_of, asked_words, asks_for, identifying, named_spans, naming
from nl2sparql.candidates.asking import (
    NOT_COUNTED,
    age_of_times,
    asks_kind_of,
    counted_class,
    counted_then_done,
    finds_counted,
    grouped_by,
    kind_found,
    kind_read,
    plural_class,
)
from nl2sparql.candidates.candidate import TYPED, Anchor, Candidate
from nl2sparql.candidates.cues import SIGN_WORDS, Cues, read_cues, singular_word
from nl2sparql.candidates.gathered import gathered_operators
from nl2sparql.candidates.graph import SPREAD, GraphView, distinct_nodes
from nl2sparql.candidates.hops import Edge, Hop, bind, bind_reversed, body, edge_of
from nl2sparql.candidates.shapes import (
    answer_step,
    attribute_phrase,
    attribute_words,
    counted_difference,
    difference,
    edge_at,
    flag_holds,
    flag_read,
    function_in_name,
    mentioned,
    named_at,
    names_counted,
    negated_through,
    not_found_by,
    not_of_class,
    operators,
    outranks,
    ranked_by_other,
    share,
    told_apart,
    value_as,
    whether,
    with_many_columns,
    with_other_column,
)
from nl2sparql.candidates.shapes import (
    counted as counting,
)
from nl2sparql.candidates.spans import span_pairs, spanned
from nl2sparql.candidates.units import attribute_unit, is_number, unit
from nl2sparql.compiler.assemble import STATEMENT_PREFIXES
from nl2sparql.kg.label_index import DEFAULT_NAME_PREDICATES
from nl2sparql.kg.verbs import agent_nouns
from nl2sparql.memory_bank.statement import Statement


class Scorer(Protocol):
    """What the agent asks of the model that knows what is likely (:mod:`nl2sparql.ranker`):
    one score for each candidate of a question, given its cues and the names it was grounded in."""

    def scores(
        self, question: str, candidates: Sequence[Candidate], cues: Cues, named: Sequence[str]
    ) -> Sequence[float]: ...


#: ``scores(question, candidates) -> one float each``: a scorer bound to one question
Scores = Callable[[str, Sequence[Candidate]], Sequence[float]]
_X = re.compile(r"\?x\b")
_WHOSE = re.compile(r"\bwhose (.+?) is ")  # the predicate a holder reading names
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#: a pattern that types the things found, ``?x``, by a class
_TYPES_X = re.compile(rf"^\?x (?:a|<{re.escape(RDF_TYPE)}>) <([^>]+)> \.$")
_CLASS_OF = re.compile(r"^Find the type of ")
_ANSWER = "The answer is ?x."
#: the bank's statements (most used first) read for attributes a question names with nothing grounded
ATTRIBUTE_STATEMENTS = 5_000
#: the most value readings a question's words name, for numbers gathered along a path
MEASURES = 4
#: the ways a path of one or two edges may run from a node (see :meth:`GraphView.chains_to_class`)
_DIRECTIONS = (("in",), ("out",), ("in", "in"), ("in", "out"), ("out", "in"), ("out", "out"))
#: words of a value's reading that name no measure of their own
_GENERIC_WORDS = frozenset({"the", "a", "an", "of", "in", "and", "or", "to", "by", "for", "number", "value", "id"})


@dataclass(frozen=True, slots=True)
class AgentLimits:
    """Bounds of one question's search (every input has one)."""

    entities: int = 3
    classes: int = 2
    values: int = 3
    beam: int = 8
    statements_per_node: int = 40
    attributes: int = 20
    max_candidates: int = 240
    store_queries: int = 1600
    timeout: float = 2.0
    seconds: float = 10.0


class Agent:
    """Builds scored candidates for questions over one memory bank and one store."""

    def __init__(self, bank: Any, store: Any, limits: AgentLimits | None = None) -> None:
        self.bank = bank
        self.store = store
        self.limits = limits or AgentLimits()
        self.prefixes = {**STATEMENT_PREFIXES, **dict(bank.meta.prefixes)}
        self._by_edge: dict[Edge, list[Statement]] = defaultdict(list)
        self._measure_words: dict[str, list[Statement]] | None = None  # built on first use
        for statement in bank.entries("graph"):
            edge = edge_of(statement, self.prefixes)
            if edge is not None:
                self._by_edge[edge].append(statement)

    # -- the search ------------------------------------------------------------------------

    def candidates(
        self, question: str, grounding: Any, scorer: Scorer, chooser: Scorer | None = None
    ) -> list[Candidate]:
        """The question's candidates, best first, each with its score: ``scorer`` steers the
        search, ``chooser`` (when given; a trained ranker) orders the complete candidates."""
        cues = read_cues(question)
        beam = self.limits.beam
        view = GraphView(self.store, self.limits.timeout, self.limits.store_queries, self.limits.seconds)
        anchors = [
            a for a in anchors_of(grounding, self.limits, cues)
            if not self._said_in_a_name(a, cues.text) and not _says_what_it_follows(view, a)
        ]  # fmt: skip
        if names := named_spans(grounding, anchors):  # their words open no operator
            cues = read_cues(getattr(grounding, "question", question), names)
        if cues.compare and _sign_held(cues, anchors):  # *positive tests*: a result the graph keeps, no sign
            cues = replace(cues, compare=None)
        if cues.compare and any(a.kind == "class" and counted_class(a, replace(cues, counted="")) for a in anchors):
            cues = replace(cues, counts_compared=True)
        # *more than one Oscar*: things the graph calls otherwise, counted where they reach each
        counts_unnamed = bool(cues.compare) and self._things_unnamed(cues.compare_unit)
        cues = self._counted_as_kept(view, self._functions_as_named(cues, plural_class(grounding)))
        named = [a.name for a in anchors if a.kind != "class"]  # what a candidate should cover

        def scores(question: str, found: Sequence[Candidate]) -> Sequence[float]:
            return scorer.scores(question, found, cues, named)

        every = [b for a in anchors for b in self._bases(view, a)]
        every = every or self._attribute_bases(view, cues.text, cues.compare_unit)
        every += [h for h in self._flag_holders(view, cues.text) if h.patterns not in {b.patterns for b in every}]
        every = _of_family(every, anchors)
        bases = self._best(question, every, scores, beam * 2)
        # a class the question names types the answer: its instances are joined with every base;
        # so are the holders of a value it writes (*won*: the placements whose outcome is WIN)
        typed = [b for b in every if b.steps[0].startswith(TYPED)]
        values = {a.name for a in anchors if a.kind == "value"}
        held = [b for b in every if b.anchors and b.anchors[0] in values][: beam // 2]
        joined = self._intersections(
            view, _unique(bases[:beam] + typed + held + self._crowded_out(question, every, bases[:beam], scores))
        )
        if cues.both:  # the holders of two roles the question names (*which vice presidents also became president*)
            holders = [b for b in every if not b.anchors and not b.steps[0].startswith(TYPED)][:beam]
            joined = [*joined, *self._intersections(view, holders, roles=True)]
        firsts = self._best(question, bases + list(joined), scores, beam * 2)
        grown = [c for b in firsts if b.hops == 1 for c in self._next_hops(view, b)]
        grown = self._best(question, grown, scores, beam * 2, each=3)
        # a node the question names by a value (a title, a name) is where a path starts: one
        # more hop from the best two-hop readings that began there (not from a class joined
        # with it, which starts from all its instances)
        identified = {a.name for a in anchors if a.kind == "value" and a.once}
        named_starts = {
            _X.sub("?m", b.steps[0])
            for b in firsts
            if (b.names_answer or _identified(b, identified)) and not b.steps[0].startswith(TYPED)
        }
        from_named = [g for g in grown if g.steps[0] in named_starts][:beam]
        third = [c for g in from_named for c in self._next_hops(view, g, "?m3", "?c6")]
        grown += self._best(question, third, scores, beam)
        words = asked_words(question)  # what the question asks for: a hop's or a record's edge may name it
        # from any other two-hop reading, a third hop to what the question asks for (*which
        # manufacturers built the aircraft flown by Virgin America*)
        others = [g for g in grown if g.hops == 2 and g not in from_named and not _reads_asked(g, words)]
        to_asked = [c for g in others[:3] for c in self._next_hops(view, g, "?m3", "?c6") if _reads_asked(c, words)]
        grown += to_asked[:2]
        crossed = list(self._intersections(view, firsts[:beam] + grown[:beam]))
        # two readings by the same edges from two items (*won both Best actor and Best actress*)
        paired = [g for g in grown if g.hops == 2 and any(_parallel(g, h) for h in grown if h is not g)]
        crossed += self._intersections(view, paired[: beam * 2])
        if len(anchors) > 2:  # a third item held too (*American Airlines flights from JFK to LAX*)
            third = _unique(firsts[:beam] + held)  # a value's holders among them (*in 2001*)
            crossed += self._intersections(view, self._best(question, crossed, scores, 3), third)
        grown += crossed
        grown += self._met_records(view, self._records_met(question, view, crossed, named, scores), cues, words)
        if cues.same:
            grown += [_without_anchor(g, anchors) for g in grown if g.hops == 2 and len(g.anchors) == 1]
        classes = {a.term.strip("<>") for a in anchors if a.kind == "class"}
        asked = {a.term.strip("<>") for a in anchors if a.kind == "class" and a.asked}
        held = self._holders_asked(view, anchors, question)
        classes, asked = classes | held, asked | held
        kind_asked = {
            a.term.strip("<>"): a.name for a in anchors if a.kind == "class" and asks_kind_of(a.name, question)
        }
        wholes = [b for b in typed if _types_as(b, asked)]  # every thing of a class the question asks for
        # each reading's answer kind and class, looked up once: the best eight and the best
        # sixteen are the same reading objects (both picked by _best from one list)
        kinds: dict[int, Candidate] = {}

        def with_kind(reading: Candidate) -> Candidate:
            if id(reading) not in kinds:
                kinds[id(reading)] = self._typed(view, reading, classes, asked=asked, kinds=kind_asked)
            return kinds[id(reading)]

        best = self._best(question, firsts + grown, scores, beam)
        pool = [with_kind(c) for c in best]
        ranked = self._best(question, firsts + grown, scores, beam * 2)
        if _reads_attributes(cues):  # the things themselves may rank below readings of their values
            nodes = (n for c in ranked if c not in best and (n := with_kind(c)).answer_kind == "uri")
            pool += itertools.islice(nodes, beam // 2)
        if asked:  # and the things of the class asked for (all of them first) below readings of other things
            things = (n for c in ranked if c not in best and (n := with_kind(c)).answer_class == "named")
            every_one = [with_kind(b) for b in wholes]
            pool = _unique(pool + every_one + list(itertools.islice(things, beam // 2)))
        if not anchors:  # nothing grounded: every holder of an attribute named is a base (*for each marital status*)
            pool = _unique(pool + [with_kind(b) for b in typed])
        if (cues.things or asked) and not (cues.count or cues.negation):  # a record's things, in its place
            pool = [r for c in pool for r in ([with_kind(s) for s in self._stepped_out(view, c, asked, words)] or [c])]
            pool += [with_kind(s) for c in pool for s in self._through_records(view, c, asked, words)]
        if cues.count:  # *how many microarchitectures does Intel have processors of*: the code names, typed
            counted = [a for a in anchors if a.kind == "class" and counted_class(a, cues)]
            pool += self._typed_as_counted(view, pool, counted)
            pool += [with_kind(c) for c in self._stepped_to_counted(view, pool, counted)]
        final = list(pool)
        if cues.yes_no:  # every grounded item's best readings, each checked against the others
            checked = self._best(question, firsts + grown, scores, beam * 2, each=beam // 2)
            final += self._yes_no(view, [with_kind(c) for c in checked], anchors)
            final += self._all_values_hold(bases, anchors)
        for base in pool:
            if _finds_flags(view, base):  # true or false: nothing to count, rank or compare
                if cues.yes_no and flag_read(base, cues.text):  # *was flight DL 461 cancelled*
                    final.append(flag_holds(base, not cues.negation))
                continue
            numbers, others = self._attributes(view, base)
            if cues.columns:
                others += self._name_column(view, base, cues.text, numbers + others)
            shaped = [*operators(base, cues, numbers, others)]
            shaped += [spanned(base, start, end) for start, end in span_pairs(numbers)] if cues.span else []
            final += [c for c in shaped if c.head == "ASK" or view.reaches(c.patterns) or c.tail]
        if _gathers(cues):  # the measures the question names, by words that name no class it names
            measures = self._measures(_without_classes(cues.text, anchors))
            counted = [a for a in anchors if a.kind == "class" and not a.asked and counted_class(a, cues)]
            # the instances of a class the question asks for first (*which airline ...*)
            nodes = wholes + [c for c in pool if c.answer_kind == "uri"]
            for base in _unique(nodes)[:3]:
                if measures:
                    gathered = list(gathered_operators(base, cues, self._paths_to(view, base, measures)))
                    final += gathered + self._other_values(view, base, gathered, cues)
                for anchor in counted[:1]:
                    paths = self._paths_to_class(view, base, anchor)
                    final += gathered_operators(base, cues, paths, counted=True)
                # *lip-synced most often*, *won more than one Oscar*: the nodes that reach each
                if (cues.group_rank or counts_unnamed) and not counted:
                    final += gathered_operators(base, cues, self._paths_in(view, base, cues.text), counted=True)
            # *how many mammals does each order have*: each thing of the class named after *each*,
            # with the count of the things the question counts, however far they are
            if cues.per_group and cues.count:
                final += self._counted_per(view, typed, anchors, cues)
        if cues.negation:  # things of the class asked for that are not of another class named
            others = [a for a in anchors if a.kind == "class" and not a.asked]
            absent = [not_of_class(b, a.term, a.name) for b in wholes for a in others if _kin(view, b, a.term)]
            # and those that a reading of a named item finds none of (*which airlines did not fly to O'Hare*)
            finders = [c for c in pool if c.anchors and c.answer_class == "named" and not c.steps[0].startswith(TYPED)]
            absent += [n for w in wholes[:1] for r in finders[: beam // 2] if (n := not_found_by(w, r))]
            # or the things a reading of one item finds that a reading of another finds none of
            # (*which contestants of Season 6 never won an episode*)
            singles = [c for c in firsts + grown if len(c.anchors) == 1 and not c.steps[0].startswith(TYPED)]
            kinds_of = (with_kind(c) for c in self._best(question, singles, scores, beam, each=2))
            ones = [k for k in kinds_of if k.answer_class == "named"]
            absent += [
                n for w in ones[:2] for r in ones[: beam // 2]
                if not set(w.anchors) & set(r.anchors) and (n := not_found_by(w, r))
            ]  # fmt: skip
            # or the things whose records have none of a role the question names (*which presidents
            # had no vice president in any of their terms*)
            holders = [c for c in pool if c.answer_kind == "uri"][: beam // 2]
            absent += [negated_through(h, *path) for h in holders for path in self._onward_paths(view, h, cues.text)]
            final += absent + ([counting(n) for n in absent] if cues.count else [])  # *how many ... are not*
        if cues.columns:
            final += self._entity_columns(view, anchors, cues.text)
        # one number at two named items: subtracted, or compared yes or no
        pairs = self._number_pairs(view, ranked, anchors, question) if cues.difference or cues.outranks else []
        if cues.difference:
            final += [difference(a, b, (cues.difference == "later") != age_of_times(a, cues)) for a, b in pairs]
            # *how many more captures of A than of B*: the things found from each, counted
            counted = self._number_pairs(view, ranked, anchors, question, "uri") if cues.counted else []
            counted = [pair for pair in counted if finds_counted(pair[0], cues.text)]
            final += [counted_difference(a, b, cues.difference == "later") for a, b in counted]
        own = self._attribute_pairs(view, anchors, cues.text) if cues.difference or cues.outranks else []
        if cues.difference:
            final += [difference(a, b, later=cues.difference == "later") for a, b in own]
        if cues.outranks:
            final += [outranks(a, b, cues.outranks) for a, b in [*pairs, *own]]
        if cues.difference or cues.outranks:  # two numbers of one thing, told apart by their words
            final += self._told_apart(view, _unique([with_kind(c) for c in firsts[:beam]] + pool), cues)
        if cues.share:  # of things a reading finds, or that hold a flag or pass a number (*more than 500 calories*)
            flagged = [c for c in final if c.shape == "compare" and c.patterns[-1].startswith("FILTER(?v ")]
            final += _shares(firsts + grown + flagged, cues.share == "percentage", self.limits.beam)
            final += self._classed_shares(view, self._best(question, grown, scores, beam), cues.share == "percentage")
        if cues.compare_unit and self._kept_in(cues.compare_unit):  # *at least 150 knots*: what is kept in knots
            final = [c for c in final if not _compares_without(c, cues.compare_unit)]
        final = _unique(_with_twins(final, anchors))[: self.limits.max_candidates]
        if classes:  # the groups a ranking or a list of groups answers with: of a class the question names?
            counts = {a.term.strip("<>") for a in anchors if a.kind == "class" and counted_class(a, cues)}
            final = [self._typed_groups(view, c, classes, asked, counts) if _answers_groups(c) else c for c in final]
        chosen = chooser.scores(question, final, cues, named) if chooser else scores(question, final)
        ranked = sorted(zip(final, chosen, strict=True), key=lambda pair: -pair[1])
        return [candidate.scored(score) for candidate, score in ranked]

    def _best(self, question: str, found: list[Candidate], scores: Scores, keep: int, each: int = 0) -> list[Candidate]:
        """The ``keep`` best of ``found``; with ``each``, the best ``each`` of every grounded
        item's readings first, so that one item's many paths cannot crowd out another's."""
        found = _unique(found)
        if len(found) <= keep:
            return found
        ranked = [c for c, _ in sorted(zip(found, scores(question, found), strict=True), key=lambda pair: -pair[1])]
        if not each:
            return ranked[:keep]
        taken: dict[str, int] = defaultdict(int)
        first = []
        for candidate in ranked:
            anchor = candidate.anchors[0] if candidate.anchors else ""
            if taken[anchor] < each:
                taken[anchor] += 1
                first.append(candidate)
        return _unique(first[:keep] + ranked)[:keep]

    def _crowded_out(
        self, question: str, every: list[Candidate], kept: Sequence[Candidate], scores: Scores
    ) -> list[Candidate]:
        """The readings of each grounded item none of whose readings is ``kept`` that find
        things of a kind a kept reading finds (*the outcome of Latrice Royale in Queens Behind
        Bars*: the placements of the episode, below the eight readings of the contestant,
        still meet her placements), the best two."""
        present = {c.anchors[0] for c in kept if c.anchors}
        kinds = {kind_found(c.steps[0]) for c in kept} - {""}
        missing = dict.fromkeys(c.anchors[0] for c in every if c.anchors and c.anchors[0] not in present)
        found = []
        for name in missing:
            alike = [c for c in every if c.anchors[:1] == (name,) and kind_found(c.steps[0]) in kinds]
            found += self._best(question, alike, scores, 2)
        return found

    def _holders_asked(self, view: GraphView, anchors: Sequence[Anchor], question: str) -> set[str]:
        """The classes of the things that hold a category the question asks for by its name
        (*which health plan reported the largest breach*: the covered entities whose type is
        *Health Plan*): an item named right after *which* or *what*, held by several things
        (not *who was Abraham Lincoln's vice president*: his terms)."""
        found: set[str] = set()
        for anchor in anchors:
            asked = rf"\b(?:which|what) {re.escape(anchor.name.lower())}(?:e?s)?\b"
            if anchor.kind != "entity" or not re.search(asked, question.lower()):
                continue
            held = (f"?h ?hp {anchor.term} .",)
            if len(view.sample(held, "?h", 2)) > 1:
                found |= {t.value for t in view.sample((*held, f"?h <{RDF_TYPE}> ?ht ."), "?ht", 3)}
        return found

    def _typed(
        self,
        view: GraphView,
        candidate: Candidate,
        classes: set[str],
        answer: str = "?x",
        asked: Set[str] = frozenset(),
        kinds: Mapping[str, str] | None = None,
    ) -> Candidate:
        """``candidate`` with the kind of answer it finds (a node or a value), from one sample,
        and whether its nodes (``answer``'s) are of a class the question names (``classes``),
        or of one it asks for where it asks for things of a class (``asked``: *which airline
        ...*; a value then is of none). A class named, or a thing of it, is no answer where
        the question asks a kind of it (``kinds``, by name: *what type of plot is Plot 12* is
        not answered *plot*), and a value named as its kind is (its *covered entity type*)."""
        kinds = kinds or {}
        found = view.sample(candidate.patterns, answer, 1)
        kind = found[0].type if found else ""
        datatype = (found[0].datatype or "") if kind == "literal" else ""
        nameless = kind == "uri" and _nameless(view, found[0].value)
        wordless = kind == "literal" and not any(map(str.isalpha, found[0].value))
        named = "other" if kind == "literal" and asked else ""
        if named and self._time_of_record(view, candidate, asked):  # *in which midterm*: its year
            named = "record"
        classes = asked or classes
        if kind == "uri" and classes:  # a class itself (*the type of Coldplay*) is of the classes named
            types = {t.value for t in view.sample((*candidate.patterns, f"{answer} <{RDF_TYPE}> ?xt ."), "?xt", 5)}
            itself = {found[0].value} - kinds.keys()
            named = "named" if (types | itself) & classes else "other" if types else ""
            named = "other" if types & kinds.keys() else named
        if found and any(kind_read(candidate, name) for name in kinds.values()):
            named = "named"
        return replace(
            candidate,
            answer_kind=kind,
            answer_class=named,
            answer_datatype=datatype,
            answer_nameless=nameless,
            answer_wordless=wordless,
        )

    def _typed_as_counted(
        self, view: GraphView, pool: Sequence[Candidate], counted: Sequence[Anchor]
    ) -> list[Candidate]:
        """The readings that find things of a class the question counts without saying so
        (the code names of Intel's processors are microarchitectures), typed with it, the
        best ``beam // 2``; none where a reading of another item already finds things of it
        (*how many bakers competed in series broadcast on Channel 4*: bakers contestant in them)."""
        found = []
        for anchor in counted[:1]:
            typed_as = f"?x <{RDF_TYPE}> {anchor.term} ."
            if any(typed_as in r.patterns and len(r.anchors) > 1 for r in pool):
                continue
            for reading in (r for r in pool if r.answer_kind == "uri" and r.answer_class == "named"):
                if typed_as in reading.patterns or anchor.name in reading.anchors:
                    continue
                if view.reaches((*reading.patterns, typed_as)):
                    steps = (*_steps(reading), f"{TYPED}{anchor.name}, assign it to ?x.", _ANSWER)
                    found.append(replace(reading, steps=steps, patterns=(*reading.patterns, typed_as),
                                         anchors=(*reading.anchors, anchor.name)))  # fmt: skip
        return found[: self.limits.beam // 2]

    def _stepped_to_counted(
        self, view: GraphView, pool: Sequence[Candidate], counted: Sequence[Anchor]
    ) -> list[Candidate]:
        """One hop beyond the best readings to things of a class the question counts, where no
        reading finds any (*how many different countries have won the women's race*: the
        countries of the winners of the women's races), typed with it, the best ``beam // 2``."""
        found: list[Candidate] = []
        for anchor in counted[:1]:
            typed_as = f"?x <{RDF_TYPE}> {anchor.term} ."
            if any(r.answer_class == "named" and set(r.anchors) - {anchor.name} for r in pool):
                continue
            readings = [r for r in pool if r.answer_kind == "uri" and anchor.name not in r.anchors]
            for reading in readings[: self.limits.beam // 2]:
                for step in self._next_hops(view, reading, "?m5", "?c7"):
                    if view.reaches((*step.patterns, typed_as)):
                        steps = (*_steps(step), f"{TYPED}{anchor.name}, assign it to ?x.", _ANSWER)
                        found.append(replace(step, steps=steps, patterns=(*step.patterns, typed_as)))
        return found[: self.limits.beam // 2]

    def _classed_shares(self, view: GraphView, readings: Sequence[Candidate], percentage: bool) -> list[Candidate]:
        """The share of all the things of their class that a reading's nodes are, where the
        reading names that class (*what percentage of the races were won by runners from
        Kenya*: the race wins whose winner is from Kenya, of every race win); the question
        need not name it as the graph does."""
        found = []
        for reading in readings:
            kind = kind_found(_steps(reading)[-1])
            if not kind or reading.steps[0].startswith(TYPED):
                continue
            types = view.sample((*reading.patterns, f"?x <{RDF_TYPE}> ?xt ."), "?xt", 2)
            if len(types) != 1 or types[0].type != "uri":
                continue
            typed = f"?x <{RDF_TYPE}> <{types[0].value}> ."
            whole = Candidate("lookup", (f"{TYPED}{kind}, assign it to ?x.", _ANSWER), (typed,))
            part = replace(reading, steps=(*whole.steps[:1], *reading.steps), patterns=(typed, *reading.patterns))
            found.append(share(part, whole, percentage))
        return found

    def _typed_groups(
        self, view: GraphView, candidate: Candidate, classes: set[str], asked: set[str], counted: set[str]
    ) -> Candidate:
        """A grouping typed by its groups ``?g``, read off the patterns that reach them alone
        (the groups of one relation are the same for every number summed over them). The class
        the question counts is no class of the groups (*for each brand, how many drives*:
        drives are counted), where the candidate counts things of it."""
        grouping = tuple(p for p in candidate.patterns if re.search(r"\?g\b", p))
        counted = counted & {m.group(1) for p in candidate.patterns if (m := _TYPES_X.match(p))}
        classes, asked = classes - counted, asked - counted
        typed = self._typed(view, replace(candidate, patterns=grouping), classes, "?g", asked)
        return replace(
            candidate,
            answer_kind=typed.answer_kind,
            answer_class=typed.answer_class,
            answer_datatype=typed.answer_datatype,
            answer_nameless=typed.answer_nameless,
            answer_wordless=typed.answer_wordless,
        )

    # -- bases -----------------------------------------------------------------------------

    def _statements(self, view: GraphView, term: str) -> list[Statement]:
        return self._statements_of(view.edges(term))

    def _statements_of(self, edges: Iterable[Edge]) -> list[Statement]:
        """The bank's statements that leave by ``edges``, the most used first, at most ``statements_per_node``."""
        found = [s for edge in sorted(edges, key=str) for s in self._by_edge.get(edge, ())]
        return sorted(found, key=lambda s: -s.support)[: self.limits.statements_per_node]

    def _bases(self, view: GraphView, anchor: Anchor) -> Iterable[Candidate]:
        if anchor.kind == "year":
            yield from self._dated_in(anchor)
            return
        statements = self._statements(view, anchor.term)
        if anchor.kind == "class":  # a class's own edges are the schema's: only its instances count
            statements = [s for s in statements if edge_of(s, self.prefixes) == Edge(RDF_TYPE, "in")]
        for statement in statements:
            hop = bind(statement, anchor.term, anchor.name, "?x", ["?c1"], self.prefixes)
            yield _base(hop, anchor)
        if anchor.kind == "value":
            for predicate, hop in self._holders(anchor):
                yield replace(_base(hop, anchor), names_answer=anchor.unique or naming(predicate))

    def _said_in_a_name(self, anchor: Anchor, text: str) -> bool:
        """Whether a number is written as part of the name of the attribute it was found under
        (*ranked first in the Forbes 2000*: the 2000 of *rank in the Forbes 2000*), or an
        entity's name inside the whole name of an attribute the question writes (*a hurricane
        force diameter*: no status *hurricane*): the question names the attribute, not the item."""
        if anchor.kind == "entity":
            name = f" {anchor.name.lower()} "
            return any(
                name in f" {said} " and len(said) > len(name) - 2 and re.search(rf"\b{said}\b", text)
                for said in self._attribute_names
            )
        if anchor.kind != "value" or not anchor.name.isdigit():
            return False
        for predicate in anchor.predicates:
            for statement in self._by_edge.get(Edge(predicate, "out"), ())[:1]:
                words = re.findall(r"[a-z0-9]+", statement.description.lower())
                said = [f"{a} {b}" for a, b in itertools.pairwise(words) if anchor.name in (a, b) and a != b]
                if any(re.search(rf"\b{pair}\b", text) for pair in said):
                    return True
        return False

    def _holders(self, anchor: Anchor) -> Iterator[tuple[str, Hop]]:
        """The readings of the nodes that hold a value's (or a year's) term under one of its
        predicates, each with that predicate."""
        for predicate in anchor.predicates:
            for statement in self._by_edge.get(Edge(predicate, "out"), ())[: self.limits.statements_per_node]:
                hop = bind_reversed(statement, anchor.term, anchor.name, "?x", self.prefixes)
                if hop is not None:
                    yield predicate, hop

    def _dated_in(self, year: Anchor) -> Iterable[Candidate]:
        """The holders of a date in a year the question writes (*the series that premiered
        in 2014*: ``?x <premiere> ?y2014 . FILTER(YEAR(?y2014) = 2014)``)."""
        number, _, month = year.term.removeprefix("?y").partition("m")
        kept = f"YEAR({year.term}) = {number}" + (f" && MONTH({year.term}) = {month}" if month else "")
        for _, hop in self._holders(year):
            yield _base(replace(hop, patterns=(*hop.patterns, f"FILTER({kept})")), year)

    def _attribute_bases(self, view: GraphView, text: str, unit: str = "") -> list[Candidate]:
        """With nothing grounded, the values of the attributes the question names (*which
        years does the data cover*: the year of every observation), by all their words or by
        their head noun (*the highest salary*: the nine-month salary), or by the unit it
        compares in (*won in under 2.15 hours*: the time in hours), at most ``beam`` of them."""
        asked = {singular_word(w) for w in text.split()}
        kept_in = f" in {unit} " if unit else None
        found: list[Candidate] = []
        holders: list[Candidate] = []
        for statement, read in self._attribute_statements:
            words = [singular_word(w) for w in read]
            named = set(words) <= asked or words[-1:] and words[-1] in asked
            if not words or words[0] == "type" or not (named or kept_in and kept_in in body(statement)):
                continue
            hop = bind(statement, "?m", "?m", "?x", ["?c1"], self.prefixes)
            if view.reaches(hop.patterns):
                # of every holder, so the sentence names none (*the year of an observation*)
                sentence = _ANY_HOLDER.sub(_any_holder, hop.sentence, count=1).replace(" ?m,", ",")
                found.append(Candidate("lookup", (sentence, _ANSWER), hop.patterns))
                holders += self._every_holder(view, hop)
            if len(found) >= self.limits.beam:
                break
        return found + _unique(holders)[:1]

    @cached_property
    def _attribute_statements(self) -> list[tuple[Statement, list[str]]]:
        """The bank's statements, the most supported first (at most ``ATTRIBUTE_STATEMENTS``),
        each with the words of the attribute it reads: read once, for every question."""
        statements = sorted(self.bank.entries("graph"), key=lambda s: -s.support)[:ATTRIBUTE_STATEMENTS]
        return [(statement, attribute_words(f"Find {body(statement)}").split()) for statement in statements]

    def _other_values(
        self, view: GraphView, base: Candidate, gathered: Sequence[Candidate], cues: Cues
    ) -> list[Candidate]:
        """The things kept by a value of their records, each with a value of its own the question
        lists (*the storms with a wind speed of at least 150 knots and their season*), or a
        value of the thing ranked first that it asks for (*in which season was the storm with
        the strongest winds*)."""
        if not (cues.columns or cues.ranking and cues.value):
            return []
        numbers, others = self._attributes(view, base)
        if cues.columns:
            named = mentioned([*numbers, *others], cues.text)
            return [with_other_column(c, a) for c in gathered if c.head == "SELECT DISTINCT ?x" for a in named]
        words = asked_words(cues.text)
        asked = [a for a in (*numbers, *others) if asks_for(attribute_words(a.sentence), words)]
        return [ranked_by_other(c, a) for c in gathered if c.shape == "rank" for a in asked]

    def _kept_in(self, word: str) -> bool:
        """Whether an attribute of the graph names ``word`` as the unit it is kept in (*wind speed
        in knots*)."""
        return word in self._units_kept

    @cached_property
    def _units_kept(self) -> frozenset[str]:
        """The words right after *in* in the attributes :attr:`_attribute_statements` read (*knots*,
        *nautical*, *mb* of *mb/s*): read once, for every question."""
        return frozenset(w for s, _ in self._attribute_statements for w in re.findall(r"\bin (\w+)", f"Find {body(s)}"))

    @cached_property
    def _attribute_names(self) -> frozenset[str]:
        """The names of the attributes :attr:`_attribute_statements` read, each in its words."""
        return frozenset(" ".join(words) for _, words in self._attribute_statements if words)

    def _flag_holders(self, view: GraphView, text: str) -> list[Candidate]:
        """All the things of the class that holds a yes/no attribute the question names its
        holders by, as the ones who do it (*which class had the most survivors*: every
        passenger, of whom those who survived are counted); at most one class."""
        said = {singular_word(w) for w in text.split()}
        for statement, words in self._attribute_statements:
            if not any(agent_nouns(w) & said for w in words):
                continue
            hop = bind(statement, "?m", "?m", "?x", ["?c1"], self.prefixes)
            if hop.sentence.startswith("Find the type"):
                continue
            values = view.sample(hop.patterns, "?x", 2)
            if values and all(_is_flag(v) for v in values) and (holders := self._every_holder(view, hop)):
                return holders
        return []

    def _every_holder(self, view: GraphView, hop: Hop) -> list[Candidate]:
        """All the things of the class that holds an attribute (*for each sex, what is the
        average salary*: every faculty member, whose sex groups them), named as the hop
        names it; none where its holders are of no class."""
        kind = re.search(r" of the (.+?) \?m\b", hop.sentence)
        found = view.sample((*hop.patterns, f"?m <{RDF_TYPE}> ?t ."), "?t", 1)
        if kind is None or not found or found[0].type != "uri":
            return []
        step = f"{TYPED}{kind.group(1)}, assign it to ?x."
        return [Candidate("lookup", (step, _ANSWER), (f"?x <{RDF_TYPE}> <{found[0].value}> .",))]

    def _next_hops(
        self, view: GraphView, base: Candidate, middle: str = "?m", helper: str = "?c2"
    ) -> Iterable[Candidate]:
        """``base`` continued one hop from the nodes it reaches (its ``?x`` becomes ``middle``);
        not from a class (``the type of X``: its instances are *the entities of X's type*,
        which no question means by a path)."""
        if any(_CLASS_OF.match(step) for step in base.steps):
            return
        first = _renamed(base, middle)
        # a hop back along the edge that reached ``middle`` finds where the path began
        came_by = {edge for p in first.patterns if (edge := edge_at(p, middle)) and edge[1] == "out"}
        seen: set[str] = set()
        nodes = [f"<{n.value}>" for n in view.sample(base.patterns, "?x") if n.type == "uri"]
        spread = self._statements_of(view.edges_of_all(base.patterns, "?x", SPREAD)) if nodes else []
        for statement in [*(s for node in nodes for s in self._statements(view, node)), *spread]:
            if statement.id in seen:
                continue
            seen.add(statement.id)
            hop = bind(statement, middle, middle, "?x", [helper], self.prefixes)
            if len(hop.patterns) == 1 and edge_at(hop.patterns[0], middle) in came_by:
                continue
            steps, patterns = (*first.steps, hop.sentence, _ANSWER), first.patterns + hop.patterns
            candidate = replace(first, steps=steps, patterns=patterns, hops=base.hops + 1, names_answer=False)
            if view.reaches(candidate.patterns):
                yield candidate

    def _stepped_out(self, view: GraphView, reading: Candidate, asked: set[str], words: Set[str]) -> list[Candidate]:
        """One hop beyond the nodes ``reading`` finds, where those are records with no name (a
        pitching season, a salary) and the hop reaches named things the question asks for:
        things the edge is named like (*which pitchers ...*: the pitcher of each pitching
        season) or of the class it asks for. The record stays on the way, so its numbers still
        rank and compare the things."""
        if reading.answer_kind != "uri" or not reading.steps or self._named(view, reading):
            return []
        found = []
        for step in self._next_hops(view, reading, "?m5", "?c7"):
            if f"<{RDF_TYPE}>" in step.patterns[-1] or not self._named(view, step):
                continue
            if asks_for(attribute_words(step.steps[-2]), words) or (
                asked and self._typed(view, step, asked).answer_class == "named"
            ):
                found.append(step)
        return found

    def _time_of_record(self, view: GraphView, candidate: Candidate, classes: Set[str]) -> bool:
        """Whether ``candidate`` answers the year or date of nameless records of one of
        ``classes`` (*in which midterm did ...*: a midterm has no name, its year says which)."""
        found = _TIME_OF.match(answer_step(candidate))
        if found is None:
            return False
        typed = (f"{found.group(1)} <{RDF_TYPE}> <{c}> ." for c in classes)
        records = next((r for t in typed if (r := view.sample((*candidate.patterns, t), found.group(1), 1))), [])
        return bool(records) and records[0].type == "uri" and _nameless(view, records[0].value)

    def _through_records(
        self, view: GraphView, reading: Candidate, asked: set[str], words: Set[str]
    ) -> list[Candidate]:
        """What a nameless record on ``reading``'s way leads to, where the question asks for
        that and not for what ``reading`` answers (*who won Best actress after 2015*: the
        winner of each award whose ceremony is after 2015, not the ceremony). The record's
        conditions and the operator stay."""
        if _reads_asked(reading, words):
            return []
        found = []
        for waypoint in _waypoints(reading):
            record = replace(_answered_by(reading, waypoint), answer_kind="uri")
            if not self._named(view, record):
                found += self._stepped_out(view, record, asked, words)
        return found

    def _records_met(
        self, question: str, view: GraphView, crossed: Sequence[Candidate], named: Sequence[str], scores: Scores
    ) -> list[Candidate]:
        """The nameless records readings meet at: the best three that the most named items meet
        at (*measles*, *California* and *2001* at one report), then the best three of all."""
        met = [c for c in crossed if not self._named(view, c)]

        def items(reading: Candidate) -> int:
            return sum(a in named for a in reading.anchors)

        most = max(map(items, met), default=0)
        fullest = self._best(question, [c for c in met if items(c) == most], scores, 3)
        return _unique(fullest + self._best(question, met, scores, 3))

    def _met_records(
        self, view: GraphView, crossed: Sequence[Candidate], cues: Cues, words: Set[str]
    ) -> list[Candidate]:
        """The nameless records two readings meet at (``crossed``: Harper's batting season that
        played for a team season of 2015), read on: a value of it the question names (*how
        many home runs did Harper hit in 2015*; *how many measles cases*: the case count), or
        the named node at the other end of an edge it was met by, where the edge's words are
        what the question asks for (*which players born in Cuba played for ...*: the player
        the record names)."""
        found = []
        for reading in crossed:
            hops = self._next_hops(view, reading, "?m4", "?c8")  # a value named, or the count counted
            found += [c for c in hops if named_at(c.steps[-2], cues.text) >= 0 or names_counted(c.steps[-2], cues)]
            for waypoint in _waypoints(reading):
                marked = [re.sub(re.escape(waypoint) + r"\b", "?w", step) for step in reading.steps]
                edge = next((m.group(1) for step in marked if (m := _MET_BY.match(step))), "")
                thing = _answered_by(reading, waypoint)
                if asks_for(edge, words) and self._named(view, thing):
                    found.append(thing)
        return found

    def _named(self, view: GraphView, reading: Candidate) -> bool:
        """Whether the nodes ``reading`` finds have a name (one sampled)."""
        node = view.sample(reading.patterns, "?x", 1)
        names = ", ".join(f"<{p}>" for p in DEFAULT_NAME_PREDICATES)
        return bool(node) and bool(view.sample((f"<{node[0].value}> ?np ?n . FILTER(?np IN ({names}))",), "?n", 1))

    def _intersections(
        self,
        view: GraphView,
        found: Sequence[Candidate],
        others: Sequence[Candidate] | None = None,
        roles: bool = False,
    ) -> Iterable[Candidate]:
        """Two readings from different anchors that find a node in common (at most three hops,
        or four by the same edges: *the films that won both Best actor and Best actress*, or
        two hops from each of two items: *captures of rodents in control plots*): two of
        ``found``, or a join of ``found`` and one of ``others`` (a third reading, whose helper
        nodes are then the third's own). With ``roles``, two readings of every holder of an
        edge, by two edges (*which vice presidents also became president*)."""
        for i, a in enumerate(found):
            for b in found[i + 1 :] if others is None else others:
                if roles and _edges_read(a) == _edges_read(b):  # one role twice
                    continue
                if not (a.anchors and b.anchors or roles):  # a reading of every holder keeps nothing: no join
                    continue
                if _finds_types(a) and _finds_types(b):  # two things' classes in common: no question's join
                    continue
                apart = a.hops + b.hops
                if set(a.anchors) & set(b.anchors) or apart > 4 or (apart == 4 and not _two_by_two(view, a, b)):
                    continue
                b_own = _renamed_helpers_n(b, 1 if others is None else 2)
                steps = (*_steps(a), *_steps(b_own), _ANSWER)
                patterns, anchors = a.patterns + b_own.patterns, a.anchors + b.anchors
                named = a.names_answer or b.names_answer
                hops = max(a.hops, b.hops)
                candidate = replace(a, steps=steps, patterns=patterns, anchors=anchors, hops=hops, names_answer=named)
                if view.reaches(candidate.patterns):
                    yield candidate

    def _yes_no(self, view: GraphView, bases: Sequence[Candidate], anchors: Sequence[Anchor]) -> list[Candidate]:
        """Whether a reading reaches another grounded item (an ``ASK``: no is an answer too). A
        reading that finds nodes is checked against an entity (one of a class those nodes
        have: an airport is never a route) or a class, one that finds values against a value
        the question writes."""
        found = []
        for base in bases:
            kinds = {"literal": ("value",), "uri": ("entity", "class")}.get(base.answer_kind, ())
            for other in anchors:
                if other.name in base.anchors or other.kind not in kinds:
                    continue
                if other.kind == "value" and not _may_hold(base, other):
                    continue
                if other.kind == "entity" and not self._may_be(view, base, other):
                    continue
                if other.kind == "class" and len(base.anchors) < 2:
                    continue  # one item's reading has things of a class it reaches, always
                if other.kind == "class":  # a thing of that class, not the class itself
                    patterns = (*base.patterns, f"?x <{RDF_TYPE}> {other.term} .")
                    steps = (*_steps(base), f"Make sure ?x is a {other.name}.", "The answer is whether ?x exists.")
                else:
                    patterns = tuple(_X.sub(other.term, p) for p in base.patterns)
                    steps = (*_steps(base), f"Make sure ?x is {other.name}.", "The answer is whether ?x exists.")
                anchored = base.anchors + (other.name,)
                ask = replace(base, shape="yes-no", steps=steps, patterns=patterns, head="ASK", anchors=anchored)
                # checked against an entity or a value, the reading's nodes are that one's kind
                found.append(ask if other.kind == "class" else replace(ask, answer_class=""))
        return found + _exists([*bases, *self._roles_of_its_kind(view, anchors)], anchors)

    def _roles_of_its_kind(self, view: GraphView, anchors: Sequence[Anchor]) -> list[Candidate]:
        """Readings of the one entity grounded by the roles that others of its class hold and
        it may not (*Was Edd Kimber a runner-up?*: no series has him as its runner-up), so
        that whether it holds one can be answered no."""
        grounded = [a for a in anchors if a.kind != "class"]
        if len(grounded) != 1 or grounded[0].kind != "entity":
            return []
        entity = grounded[0]
        kinds = [t.value for t in view.sample((f"{entity.term} <{RDF_TYPE}> ?t .",), "?t", 2) if t.type == "uri"]
        own = view.edges(entity.term)
        found = []
        for kind in kinds:
            for edge in sorted(view.edges_into_all((f"?k <{RDF_TYPE}> <{kind}> .",), "?k") - own, key=str):
                for statement in self._by_edge.get(edge, ())[: self.limits.statements_per_node]:
                    hop = bind(statement, entity.term, entity.name, "?x", ["?c1"], self.prefixes)
                    found.append(replace(_base(hop, entity), answer_kind="uri"))
        return found

    def _may_be(self, view: GraphView, reading: Candidate, entity: Anchor) -> bool:
        """Whether ``entity`` may be one of the nodes ``reading`` finds: they share a class, or
        one side has none."""
        found = {t.value for t in view.sample((*reading.patterns, f"?x <{RDF_TYPE}> ?xt ."), "?xt")}
        own = {t.value for t in view.sample((f"{entity.term} <{RDF_TYPE}> ?xt .",), "?xt")}
        return not found or not own or bool(found & own)

    def _all_values_hold(self, bases: Sequence[Candidate], anchors: Sequence[Anchor]) -> list[Candidate]:
        """Whether one node holds every value the question writes (*Is Steve Johnson a sales
        support agent?*: a first name, a last name and a job title on one employee), for the
        first two readings of each value; an ``ASK`` whatever the store says."""
        values = {a.name for a in anchors if a.kind == "value"}
        by_value: dict[str, list[Candidate]] = defaultdict(list)
        for base in bases:
            if base.hops == 1 and len(base.anchors) == 1 and base.anchors[0] in values:
                by_value[base.anchors[0]].append(base)
        if len(by_value) < 2:
            return []
        found = []
        for combination in itertools.islice(itertools.product(*(b[:2] for b in by_value.values())), 8):
            joined = [_renamed_helpers_n(c, n) for n, c in enumerate(combination)]
            steps = (*(s for c in joined for s in _steps(c)), "The answer is whether ?x exists.")
            patterns = tuple(p for c in joined for p in c.patterns)
            anchors_used = tuple(a for c in joined for a in c.anchors)
            found.append(Candidate("yes-no", steps, patterns, head="ASK", anchors=anchors_used))
        return found

    def _entity_columns(self, view: GraphView, anchors: Sequence[Anchor], text: str) -> list[Candidate]:
        """Several values of one named entity, a column each (*the population and the GDP per
        capita of Brazil in 2007*): its attributes that the question names, when two or more."""
        found = []
        for anchor in anchors:
            if anchor.kind != "entity":
                continue
            named = self._named_attributes(view, anchor, text)
            if len(named) > 1:
                found.append(with_many_columns(Candidate("lookup", (), (), anchors=(anchor.name,)), named, False))
        return found

    def _named_attributes(self, view: GraphView, anchor: Anchor, text: str) -> list[Hop]:
        """The attributes of a named entity that the question names, in its order, each with a value."""
        hops = [bind(s, anchor.term, anchor.name, "?v", ["?c3"], self.prefixes)
                for s in self._statements(view, anchor.term)]  # fmt: skip
        return [hop for hop in mentioned(hops, text) if view.sample(hop.patterns, "?v", 1)]

    def _attribute_pairs(
        self, view: GraphView, anchors: Sequence[Anchor], text: str
    ) -> list[tuple[Candidate, Candidate]]:
        """Two numbers of one named entity, in the order the question names them, to subtract
        (*the difference between the wins and the losses of the 2016 Chicago Cubs*) or compare
        (*is its average reading score higher than its average math score*)."""
        found = []
        for anchor in (a for a in anchors if a.kind == "entity"):
            numbers = [hop for hop in self._named_attributes(view, anchor, text)
                       if _numeric(view.sample(hop.patterns, "?v", 1)[0].value)]  # fmt: skip
            readings = [_base(value_as(hop, "?x"), anchor) for hop in numbers[:2]]
            if len(readings) == 2:
                found.append((readings[0], readings[1]))
        return found

    def _told_apart(self, view: GraphView, readings: Sequence[Candidate], cues: Cues) -> list[Candidate]:
        """Two numbers of the node a one-hop reading of one named item finds, which the question
        tells apart by their words, subtracted or compared yes or no (*how much more does the
        textbook for X cost new than used at the bookstore*: its new price less its used)."""
        found = []
        for reading in [r for r in readings if r.answer_kind == "uri" and len(r.anchors) == 1 and r.hops == 1][:3]:
            numbers = [hop for hop in self._attributes(view, reading)[0] if hop.via == "?x"]
            pair = told_apart(numbers, cues.text)
            if pair is None:
                continue
            first, second = (_value_read(reading, hop) for hop in pair)
            if cues.difference:
                found.append(difference(first, second, later=cues.difference == "later"))
            if cues.outranks:
                found.append(outranks(first, second, cues.outranks))
        return found

    def _number_pairs(
        self,
        view: GraphView,
        readings: Sequence[Candidate],
        anchors: Sequence[Anchor],
        question: str,
        kind: str = "literal",
    ) -> list[tuple[Candidate, Candidate]]:
        """One number at two named items of a kind, to subtract or compare (*by how much did the
        life expectancy in China grow between 1952 and 2007*): a reading that finds a number
        from the first item named, and the same read from the second; with ``kind`` "uri",
        a reading that finds nodes (to be counted) instead."""
        text = question.lower()
        operands = sorted((a for a in anchors if a.kind != "class" and _at(a, text) >= 0), key=lambda a: _at(a, text))
        found: list[tuple[Candidate, Candidate]] = []
        for first, second in itertools.combinations(operands, 2):
            for reading in readings if first.kind == second.kind else ():
                if first.name not in reading.anchors or second.name in reading.anchors:
                    continue
                sample = view.sample(reading.patterns, "?x", 1)
                if not sample or sample[0].type != kind or (kind == "literal" and not _numeric(sample[0].value)):
                    continue
                other = _swapped(reading, first, second)
                if view.reaches(other.patterns):
                    found.append((reading, other))
                if len(found) >= self.limits.beam:
                    return found
        return found

    # -- numbers gathered along a path --------------------------------------------------

    def _functions_as_named(self, cues: Cues, several: bool = False) -> Cues:
        """The cues less an aggregate whose word is part of the name of an attribute the
        question writes (*how many more average viewers*: the series' *average UK viewers*),
        unless it speaks of several things of a class (``several``: *the total enrollment of
        the districts in Lake county* adds up each district's *total enrollment*)."""
        phrases = [words for _, words in self._measure_names(cues.text)] if cues.aggregates and not several else []
        kept = tuple(f for f in cues.aggregates if not any(function_in_name(f, p, cues.text) for p in phrases))
        return cues if kept == cues.aggregates else replace(cues, aggregates=kept)

    def _counted_as_kept(self, view: GraphView, cues: Cues) -> Cues:
        """The cues with no ranking by a number of things where what *the most* counts is a
        number the graph keeps under those words (*hit the most home runs*: a batting
        season's *home runs*, not how many of something; *affecting the most individuals*: a
        breach's *individuals affected*; *how many teachers*: the *number of teachers* a school
        district keeps), and no count where the question
        asks that number (*how many calories does the Big Mac have*: its calories) or an
        aggregate is of such a number (*the average number of years at the company*: the
        years at the company, a number kept, begin with the words counted)."""
        averaged = cues.count and bool(cues.aggregates)
        if cues.count and self._number_named(cues.text):  # *the course number of X*: a value kept
            return replace(cues, count=False)
        if not cues.counted or not (cues.group_rank or cues.count):
            return cues
        counted = [singular_word(w) for w in cues.counted.split()]
        if counted == ["time"]:  # *how many times*: how often, never a time kept
            return cues
        for statement, words in self._measure_names(cues.text):
            edge = edge_of(statement, self.prefixes)
            named = [singular_word(w) for w in words.split()]
            bare = named[2:] if named[:2] == ["number", "of"] else named  # *number of teachers*, not *course number*
            kept = counted in (named, bare) or (averaged and named[: len(counted)] == counted)
            if edge is None or not (kept or counted_then_done(named, counted, cues.text)):
                continue
            sample = view.sample((f"?s <{edge.predicate}> ?v .",), "?v", 1)
            if sample and sample[0].type == "literal" and _numeric(sample[0].value):
                return replace(cues, group_rank=False, count=False)
        return cues

    def _number_named(self, text: str) -> bool:
        """Whether *number of* is the end of an attribute's name the question writes (*what is
        the course number of X*), not a count, where no other word asks one (*how many*)."""
        if re.search(r"\bhow many\b|\bcount\b", text):
            return False
        named = (words for _, words in self._measure_names(text) if words.split()[-1:] == ["number"])
        return any(re.search(rf"\b{re.escape(words)} of\b", text) for words in named)

    def _things_unnamed(self, word: str) -> bool:
        """Whether the word after a compared number names things the graph calls otherwise (*more
        than one Oscar*): a noun that is no unit, none the graph keeps values in (*nautical
        miles*), and no word of any value the graph holds."""
        return (
            len(word) > 2 and word.isalpha() and word not in NOT_COUNTED and unit(word) is None
            and not self._measures(word) and not self._kept_in(word)
        )  # fmt: skip

    def _measure_names(self, text: str) -> list[tuple[Statement, str]]:
        """:meth:`_measures`, each with the words that name its value."""
        return [(s, attribute_words(f"Find {body(s)}")) for s in self._measures(text)]

    def _measures(self, text: str) -> list[Statement]:
        """The bank's readings of a value whose words the question writes (*total sales*: the
        sales amount of an order line), the most words shared first, at most ``MEASURES``."""
        if self._measure_words is None:
            self._measure_words = defaultdict(list)
            for statement in self.bank.entries("graph"):
                edge = edge_of(statement, self.prefixes)
                if edge is None or edge.direction != "out" or edge.predicate == RDF_TYPE:
                    continue
                for word in set(attribute_words(f"Find {body(statement)}").split()) - _GENERIC_WORDS:
                    self._measure_words[singular_word(word)].append(statement)
        shared: dict[str, int] = defaultdict(int)
        by_id = {}
        for word in {singular_word(w) for w in text.split()}:
            for statement in self._measure_words.get(word, ()):
                shared[statement.id] += 1
                by_id[statement.id] = statement
        ranked = sorted(shared, key=lambda i: (-shared[i], -by_id[i].support, i))
        return [by_id[i] for i in ranked[:MEASURES]]

    def _paths_to(self, view: GraphView, base: Candidate, measures: Sequence[Statement]) -> list[list[Hop]]:
        """Paths from the nodes ``base`` finds back to things that hold one of ``measures``
        as a number, one to three edges long (:meth:`GraphView.chains_to`), as
        hops: the edges read toward the things, then the measure to ``?v``."""
        by_predicate = {e.predicate: s for s in measures if (e := edge_of(s, self.prefixes))}
        paths = []
        for depth in (1, 2, 3):
            for measure, *edges in view.chains_to(_starts(view, base, depth), sorted(by_predicate), depth):
                hops = self._path_hops([Edge(p, "in") for p in edges], f"?w{depth}")
                if hops is not None:
                    last = hops[-1].target
                    paths.append([*hops, bind(by_predicate[measure], last, last, "?v", ["?cwv"], self.prefixes)])
        return paths

    def _paths_to_class(self, view: GraphView, base: Candidate, counted: Anchor) -> list[list[Hop]]:
        """Paths of one or two edges, either way, from the nodes ``base`` finds to things of
        the class the question counts (*the airline that flies to the most airports*: the
        routes it operates, then their destinations), as hops ending at ``?v``, typed."""
        typed = Hop(f"{TYPED}{counted.name}, assign it to ?v.", (f"?v <{RDF_TYPE}> {counted.term} .",), "?v", "type")
        paths = []
        for directions in _DIRECTIONS:
            start = _starts(view, base, len(directions))
            for edges in view.chains_to_class(start, counted.term.strip("<>"), directions):
                if len(edges) == 2 and edges[0] == edges[1] and directions[0] != directions[1]:
                    continue  # there and back along one edge
                hops = self._path_hops([Edge(p, d) for p, d in zip(edges, directions, strict=True)], "?v")
                if hops is not None:
                    paths.append([*hops, typed])
        return paths

    def _counted_per(
        self, view: GraphView, typed: Sequence[Candidate], anchors: Sequence[Anchor], cues: Cues
    ) -> list[Candidate]:
        """Each thing of the class the question groups by, with the count of the things of
        the class it counts (any class it names so, asked for or not), along the paths of two
        edges that lead from one to the other where no one edge does (one edge makes a group
        of the counted things by that relation, which the operators build)."""
        found: list[Candidate] = []
        classes = [a for a in anchors if a.kind == "class"]
        for group in (a for a in classes if grouped_by(a, cues.text)):
            base = next((b for b in typed if b.anchors[:1] == (group.name,)), None)
            if base is None:
                continue
            for counted in (a for a in classes if a is not group and counted_class(a, cues)):
                paths = self._paths_to_class(view, base, counted)
                if all(len(path) > 2 for path in paths):
                    found += gathered_operators(base, cues, paths, counted=True)
        return found

    def _paths_in(self, view: GraphView, base: Candidate, text: str = "") -> list[list[Hop]]:
        """The one-edge paths by which nodes reach those ``base`` finds: what a question
        counts when it ranks things by how often (*which artist was lip-synced most often*:
        the episodes whose lip sync artist each is); the two-edge ones, by which nodes reach
        those (*which pizza was ordered most often*: the order items of its menu items); and
        what the records that reach them name by an edge the question names (*which president
        had the most vice presidents*: the vice presidents of his terms)."""
        edges = sorted(view.edges_into_all(base.patterns, "?x"), key=str)
        found = [hops for edge in edges if (hops := self._path_hops([edge], "?v")) is not None]
        for edge, reach in self._records_reaching(view, base):
            for second in sorted(view.edges_into_all(reach, "?w1"), key=str):
                if (hops := self._path_hops([edge, second], "?v")) is not None:
                    found.append(hops)
        return found + self._onward_paths(view, base, text)

    def _records_reaching(self, view: GraphView, base: Candidate) -> list[tuple[Edge, tuple[str, ...]]]:
        """The first few edges that reach the nodes ``base`` finds (as many as half the beam),
        each with the patterns of the records ``?w1`` it reaches them from (the nodes once
        each), for the second hop of :meth:`_paths_in` and :meth:`_onward_paths`."""
        found = []
        for edge in sorted(view.edges_into_all(base.patterns, "?x"), key=str)[: self.limits.beam // 2]:
            first = self._path_hops([edge], "?w1")
            if first:
                found.append((edge, (distinct_nodes(base.patterns, "?x"), *(p for hop in first for p in hop.patterns))))
        return found

    def _onward_paths(self, view: GraphView, base: Candidate, text: str) -> list[list[Hop]]:
        """The two-edge paths from the nodes ``base`` finds back along an edge that reaches
        them (the first few, as :meth:`_paths_in` takes) to the records that reach them, then
        on to nodes by an edge the question names (``text``): the vice presidents of each
        president's terms (not a number the records keep)."""
        found = []
        for edge, reach in self._records_reaching(view, base):
            onward = sorted((e for e in view.edges_of_all(reach, "?w1") if e.predicate != edge.predicate), key=str)
            for second in onward:
                hops = self._path_hops([edge, second], "?v")
                if hops is None or named_at(hops[-1].sentence, text) < 0:
                    continue
                sample = view.sample((*reach, *hops[-1].patterns), "?v", 1)
                if sample and sample[0].type == "uri":
                    found.append(hops)
        return found

    def _path_hops(self, edges: Sequence[Edge], end: str) -> list[Hop] | None:
        """A chain of edges from ``?x`` read as hops through ``?w1``, ``?w2``, ... to ``end``, by the
        bank's first statement of each edge (``None`` when the bank has none for one of them)."""
        statements = [next(iter(self._by_edge.get(edge, ())), None) for edge in edges]
        if None in statements:
            return None
        names = ["?x", *(f"?w{i}" for i in range(1, len(edges))), end]
        return [bind(s, names[i], names[i], names[i + 1], [f"?cw{i}"], self.prefixes)
                for i, s in enumerate(statements) if s is not None]  # fmt: skip

    # -- attributes ------------------------------------------------------------------------

    def _attributes(self, view: GraphView, base: Candidate) -> tuple[list[Hop], list[Hop]]:
        """Hops from the nodes ``base`` reaches to ``?v``: those whose values are numbers or
        dates, and the others; then the numbers of a node on the way (``?m``), which is where
        a value keyed by a second item hangs (a country's population *in 2007*, on the
        observation that joins the two; a CVT's, in Freebase's words), the nearest first; and
        where it is a record with no name that an item the question names holds, its other
        relations, which may group the things (the contestant of the placement whose outcome
        is WIN: *which contestant won the most episodes*)."""
        numbers: list[Hop] = []
        others: list[Hop] = []
        on_the_way: list[Hop] = []
        for start in ("?x", *reversed(_waypoints(base))):
            record = start != "?x" and bool(_pinned(base, start)) and not self._named(view, _answered_by(base, start))
            for hop, numeric in self._hops_from(view, base, start):
                if len(numbers) + len(others) >= self.limits.attributes:
                    return numbers, others + on_the_way
                if start == "?x":
                    (numbers if numeric else others).append(hop)
                elif numeric:
                    numbers.append(replace(hop, via=start))
                elif record and len(on_the_way) < self.limits.attributes // 4:
                    on_the_way.append(replace(hop, via=start))
        return numbers, others + on_the_way

    def _name_column(self, view: GraphView, base: Candidate, text: str, attributes: Sequence[Hop]) -> list[Hop]:
        """The names of the nodes ``base`` reaches, as a column (*the name and ISO code of every
        canton*), when the question asks for a name and none of their attributes is one: a
        graph's names are its labels, which the bank leaves to the linker."""
        if "name" not in text.split() or any(" name of " in hop.sentence for hop in attributes):
            return []
        for predicate in DEFAULT_NAME_PREDICATES:
            hop = Hop("Find the name of ?x, assign it to ?v.", (f"?x <{predicate}> ?v .",), "?v", "name")
            if view.sample((*base.patterns, *hop.patterns), "?v", 1):
                return [hop]
        return []

    def _hops_from(self, view: GraphView, base: Candidate, start: str) -> Iterator[tuple[Hop, bool]]:
        """Every statement of the nodes ``base`` binds ``start`` to (a sample of three; and, for
        every instance of a class, the edges any of them has: a box office gross only some
        films have), as a hop to ``?v`` that reaches a value, and whether its values are
        numbers or dates."""
        nodes = [f"<{n.value}>" for n in view.sample(base.patterns, start, 3) if n.type == "uri"]
        statements = [s for node in nodes for s in self._statements(view, node)]
        if start == "?x" and base.steps[0].startswith(TYPED) and len(_steps(base)) == 1:
            statements += self._statements_of(view.edges_of_all(base.patterns, start))
        elif start == "?x" and nodes:  # and the edges any of (many of) the others have
            statements += self._statements_of(view.edges_of_all(base.patterns, start, SPREAD))
        seen: set[str] = set()
        pinned = _pinned(base, start)
        for statement in statements:
            if statement.id in seen:
                continue
            seen.add(statement.id)
            hop = bind(statement, start, start, "?v", ["?c3"], self.prefixes)
            if len(hop.patterns) == 1 and edge_at(hop.patterns[0], start) in pinned:
                continue  # the value the question fixed there (*population is 2016*): nothing to rank or read
            values = view.sample((*base.patterns, *hop.patterns), "?v", 2)
            if not values:
                continue
            numeric = all(v.type == "literal" and (is_number(v.datatype) or _numeric(v.value)) for v in values)
            dated = all(v.datatype and v.datatype.endswith(("#date", "#dateTime")) for v in values)
            yield replace(hop, dated=dated, flag=all(_is_flag(v) for v in values)), numeric


_REACHES_X = re.compile(r"^\S+ <([^>]+)> \?x \.$")
_ANY_HOLDER = re.compile(r" of the (\w)")


def _without_classes(text: str, anchors: Sequence[Anchor]) -> str:
    """The question's words less those of the classes it was grounded in (*the typhoons ...
    with their highest wind speed*: *typhoon* names no *typhoon force radius*).

    >>> _without_classes("list the typhoons with their highest wind speed", [Anchor("<T>", "typhoon", "class", 1.0)])
    'list the with their highest wind speed'
    """
    named = {singular_word(w) for a in anchors if a.kind == "class" for w in a.name.lower().split()}
    return " ".join(w for w in text.split() if singular_word(w) not in named)


def _compares_without(candidate: Candidate, unit_word: str) -> bool:
    """Whether ``candidate`` compares a value whose name says no unit, where the question
    writes one the graph keeps values in (*at least 150 knots*: not the season).

    >>> steps = ("Find the season of the storm ?x, assign it to ?v.", "Make sure ?v is at least 150.")
    >>> _compares_without(Candidate("compare", steps, ()), "knots")
    True
    >>> steps = ("Find the write speed in mb/s of the drive ?x, assign it to ?v.", "Make sure ?v is greater than 3000.")
    >>> _compares_without(Candidate("compare", steps, ()), "mb")
    False
    """
    compared = [s for s in candidate.steps if s.startswith("Make sure ?v is ")]
    read = [attribute_phrase(s) for s in candidate.steps if s.startswith("Find ") and s.endswith("assign it to ?v.")]
    unitless = [r for r in read if unit_word not in re.findall(r"\w+", r) and not attribute_unit(r)]
    return bool(compared and read) and len(unitless) == len(read)


def _finds_types(reading: Candidate) -> bool:
    """Whether a reading answers the classes of the nodes it reaches (*the type of ?m*).

    >>> _finds_types(Candidate("lookup", (), ("?m <s> <F> .", f"?m <{RDF_TYPE}> ?x .")))
    True
    """
    return bool(reading.patterns) and reading.patterns[-1].endswith(f"<{RDF_TYPE}> ?x .")


def _says_what_it_follows(view: GraphView, anchor: Anchor) -> bool:
    """Whether a class's word says what the entity named before it is (*the women's division*:
    Women is a division), which types no answer."""
    return bool(anchor.follows) and view.reaches((f"{anchor.follows} <{RDF_TYPE}> {anchor.term} .",))


def _any_holder(match: re.Match[str]) -> str:
    """*of the observation* as *of an observation*."""
    return f" of {'an' if match.group(1) in 'aeiou' else 'a'} {match.group(1)}"


def _answers_groups(candidate: Candidate) -> bool:
    """Whether a candidate answers with the groups ``?g`` of a grouping (ranked, listed, or
    kept by their count)."""
    return candidate.shape in ("rank-group", "group", "compare") and candidate.head.startswith("SELECT ?g")


def _shares(readings: Sequence[Candidate], percentage: bool, limit: int) -> list[Candidate]:
    """What share of a class's instances (a reading that is only *the entities whose type is
    C*), or of what one grounded item finds, another reading keeps (one that narrows them
    further)."""
    wholes = [r for r in readings if len(_steps(r)) == 1 and r.steps[0].startswith(TYPED)]
    # *what percentage of the third class passengers survived*, *of Taco Bell items have more
    # than 500 calories*: of the things the flag or the number is said of, where a grounded
    # item narrows them, not of the whole class
    bases = {id(r): base for r in readings if (base := _unfiltered(r)) and any(_narrows(base, w) for w in wholes)}
    found = [share(r, bases[id(r)], percentage) for r in readings if id(r) in bases]
    for whole in wholes[:2]:
        parts = [r for r in readings if r is not whole and id(r) not in bases and _narrows(r, whole)]
        found += [share(part, whole, percentage) for part in parts[:limit]]
    # or of the things one grounded item finds (*what percentage of the storms of 2017 became
    # hurricanes*: of the storms of 2017)
    ones = [r for r in readings if len(_steps(r)) == 1 and not r.steps[0].startswith(TYPED)]
    for whole in [r for r in ones if any(_narrows_by_another(p, r) for p in readings)][:2]:
        parts = [r for r in readings if _narrows_by_another(r, whole)]
        found += [share(part, whole, percentage) for part in parts[:limit]]
    return found


def _narrows(reading: Candidate, whole: Candidate) -> bool:
    return set(whole.patterns) < set(reading.patterns)


def _narrows_by_another(reading: Candidate, whole: Candidate) -> bool:
    """Whether ``reading`` narrows ``whole`` by a reading of its own, not by a type alone (the
    airports whose type is *large airport*, typed *airport*, are no share of themselves)."""
    own = [s for s in _steps(reading) if s not in _steps(whole) and not s.startswith(TYPED)]
    return _narrows(reading, whole) and bool(own)


def _unfiltered(reading: Candidate) -> Candidate | None:
    """The reading a yes/no attribute kept true or false (``FILTER(?v = true)``), or a value
    compared with a number (``FILTER(?v > 500)``), was added to, or ``None`` where it is no
    such reading.

    >>> kept = Candidate("compare", ("Find A, assign it to ?x.", "Find the survived of ?x, assign it to ?v.",
    ...     "Make sure ?v is true.", "The answer is ?x."), ("?x a <P> .", "?x <survived> ?v .", "FILTER(?v = true)"))
    >>> _unfiltered(kept).patterns, _unfiltered(kept).steps
    (('?x a <P> .',), ('Find A, assign it to ?x.', 'The answer is ?x.'))
    """
    if reading.shape != "compare" or not reading.patterns[-1].startswith("FILTER(?v "):
        return None
    steps = tuple(s for s in reading.steps if "?v" not in s)
    patterns = tuple(p for p in reading.patterns[:-1] if "?v" not in p)
    return replace(reading, shape="lookup", steps=steps, patterns=patterns)


def _sign_held(cues: Cues, anchors: Sequence[Anchor]) -> bool:
    """Whether the comparison with zero a sign word makes (*positive*, *negative*) is a value
    the graph holds instead (*how many tests were positive*: the result *positive*).

    >>> from nl2sparql.candidates.cues import read_cues
    >>> held = Anchor('"positive"', '"positive"', "value", 1.0, ("http://x/result",))
    >>> _sign_held(read_cues("How many tests were positive?"), [held])
    True
    >>> _sign_held(read_cues("How many order lines made a negative profit?"), [])
    False
    """
    if cues.compare is None or cues.compare[1] != "0":
        return False
    words = {a.name.strip('"').lower() for a in anchors if a.kind == "value"}
    return any(word in words and re.search(rf"\b{word}\b", cues.text) for word in SIGN_WORDS)


def _may_hold(reading: Candidate, value: Anchor) -> bool:
    """Whether the values a reading finds may be ``value``: the predicate that reaches ``?x``
    is one the value is an object of (*Johnson* is a last name, never a city).

    >>> reading = Candidate("lookup", (), ("?m <http://x/city> ?x .",))
    >>> _may_hold(reading, Anchor('"Johnson"', '"Johnson"', "value", 1.0, ("http://x/lastName",)))
    False
    """
    reaching = {m.group(1) for p in reading.patterns if (m := _REACHES_X.match(p))}
    return not reaching or not value.predicates or bool(reaching & set(value.predicates))


def _at(anchor: Anchor, text: str) -> int:
    """Where the question (lower-cased) writes an anchor's name, or -1; a mark the name ends
    with need not be written (*Filet-O-Fish®*).

    >>> _at(Anchor("<F>", "Filet-O-Fish®", "entity", 1.0), "the big mac than the filet-o-fish?")
    21
    """
    return text.find(anchor.name.strip('"').lower().rstrip("®™©*. "))


def _swapped(reading: Candidate, first: Anchor, second: Anchor) -> Candidate:
    """``reading`` from ``second`` where it started from ``first``."""
    return replace(
        reading,
        steps=tuple(s.replace(first.name, second.name) for s in reading.steps),
        patterns=tuple(p.replace(first.term, second.term) for p in reading.patterns),
        anchors=tuple(second.name if a == first.name else a for a in reading.anchors),
    )


def _starts(view: GraphView, base: Candidate, depth: int) -> tuple[str, ...]:
    """Where a search for paths of ``depth`` edges starts: every node ``base`` finds for one
    edge (a few people of thousands direct films), a sample of three for longer paths, whose
    joins over every node would take seconds."""
    if depth == 1:  # each node once, not once for each way the base reaches it
        return (f"{{ SELECT DISTINCT ?x WHERE {{ {' '.join(base.patterns)} }} }}",)
    nodes = " ".join(f"<{n.value}>" for n in view.sample(base.patterns, "?x", 3) if n.type == "uri")
    return (f"VALUES ?x {{ {nodes} }}",)


def _types_as(candidate: Candidate, classes: set[str]) -> bool:
    """Whether a candidate's first step is the instances of one of ``classes``."""
    return any(candidate.patterns[0] == f"?x <{RDF_TYPE}> <{c}> ." for c in classes) if candidate.patterns else False


def _gathers(cues: Cues) -> bool:
    """Whether the cues open an aggregate of numbers per node (:mod:`.gathered`)."""
    return bool(cues.per_group or cues.ranking or (cues.compare and (cues.things or cues.count)))


def _reads_attributes(cues: Cues) -> bool:
    """Whether the cues open an operator over the values of the nodes a base finds."""
    return bool(cues.ranking or cues.compare or cues.aggregates or cues.per_group or cues.negation or cues.columns)


def _exists(bases: Sequence[Candidate], anchors: Sequence[Anchor]) -> list[Candidate]:
    """With one item grounded, whether a one-hop reading of it finds anything (*Was Ian
    Cumming a runner-up?*: a series whose runner-up he is); readings of values are left
    out, a value is there or not whatever the question asks.

    >>> ian = Anchor("<http://x/ian>", "Ian", "entity", 1.0)
    >>> runner_up = Candidate("lookup", ("Find the series whose runner-up is Ian, assign it to ?x.", _ANSWER),
    ...                       ("?x <http://x/runnerUp> <http://x/ian> .",), anchors=("Ian",), answer_kind="uri")
    >>> [(c.head, c.steps[-1]) for c in _exists([runner_up], [ian])]
    [('ASK', 'The answer is whether ?x exists.')]
    >>> _exists([runner_up], [ian, Anchor("<http://x/s4>", "Series 4", "entity", 1.0)])
    []
    """
    grounded = {a.name for a in anchors if a.kind != "class"}
    if len(grounded) != 1:
        return []
    return [whether(b) for b in bases if b.hops == 1 and b.answer_kind == "uri" and set(b.anchors) == grounded]


def _of_family(bases: list[Candidate], anchors: Sequence[Anchor]) -> list[Candidate]:
    """The bases, where the question names several entities by the part of their names they
    share (*the RER*: RER A, RER B, ...), read from any member of that family (the edge to
    any node) instead of from one member: the words pick none of them.

    >>> a = Anchor("<A>", "RER", "entity", 1.0, partial=True)
    >>> b = Anchor("<B>", "RER", "entity", 0.9, partial=True)
    >>> base = Candidate("lookup", ("Find the station whose connection is the line RER, assign it to ?x.", _ANSWER),
    ...                  ("?x <c> <A> .",), anchors=("RER",))
    >>> other = replace(base, patterns=("?x <c> <B> .",))
    >>> [(c.steps[0], c.patterns) for c in _of_family([base, other], [a, b])]  # doctest: +NORMALIZE_WHITESPACE
    [('Find the station whose connection is any line RER, assign it to ?x.', ('?x <c> ?c9 .',))]
    """
    names = Counter(a.name for a in anchors if a.kind == "entity" and a.partial)
    members = [a for a in anchors if a.kind == "entity" and names[a.name] > 1]
    if not members:
        return bases
    firsts = {a.name: a for a in reversed(members)}
    found = [b for b in bases if not any(a.term in p for a in members for p in b.patterns)]
    for anchor in firsts.values():
        for base in (b for b in bases if any(anchor.term in p for p in b.patterns) and not _types(b)):
            name = re.escape(anchor.name)
            first = re.sub(rf"\bthe ((?:\w+ ){{0,3}}){name}\b", rf"any \1{anchor.name}", base.steps[0])
            patterns = tuple(p.replace(anchor.term, "?c9") for p in base.patterns)
            found.append(replace(base, steps=(first, *base.steps[1:]), patterns=patterns))
    return found


def _types(candidate: Candidate) -> bool:
    """Whether a candidate reads a type (``rdf:type``) edge."""
    return any(_TYPE_EDGE.match(p) for p in candidate.patterns)


_TYPE_EDGE = re.compile(rf"^\S+ (?:a|<{re.escape(RDF_TYPE)}>) ")


def _edges_read(reading: Candidate) -> frozenset[str]:
    """The predicates a reading's patterns follow."""
    return frozenset(re.findall(r"\s(<[^>]+>|\w+:\w+)\s", " ".join(reading.patterns)))


def _value_read(reading: Candidate, attribute: Hop) -> Candidate:
    """``reading`` read on to a value of the nodes it finds (``attribute``, a hop from ``?x``
    to ``?v``): the value is the answer ``?x``, the nodes are ``?m``."""
    base = _renamed(reading, "?m")
    hop = value_as(replace(attribute, sentence=_X.sub("?m", attribute.sentence),
                           patterns=tuple(_X.sub("?m", p) for p in attribute.patterns)), "?x")  # fmt: skip
    return replace(base, steps=(*base.steps, hop.sentence, _ANSWER), patterns=base.patterns + hop.patterns)


def _base(hop: Hop, anchor: Anchor) -> Candidate:
    return Candidate("lookup", (hop.sentence, _ANSWER), hop.patterns, anchors=(anchor.name,))


def _steps(candidate: Candidate) -> tuple[str, ...]:
    return tuple(s for s in candidate.steps if not s.startswith("The answer is"))


def _renamed(candidate: Candidate, name: str) -> Candidate:
    """``candidate`` with its answer ``?x`` called ``name`` and its answer line dropped."""
    steps = tuple(_X.sub(name, s) for s in _steps(candidate))
    return replace(candidate, steps=steps, patterns=tuple(_X.sub(name, p) for p in candidate.patterns))


def _without_anchor(candidate: Candidate, anchors: Sequence[Anchor]) -> Candidate:
    """A path that leaves a named item and comes back to its kind, without that item itself
    (*the countries with the same currency as Ecuador*: not Ecuador)."""
    anchor = next((a for a in anchors if a.name == candidate.anchors[0]), None)
    if anchor is None or anchor.kind != "entity":
        return candidate
    steps = (*_steps(candidate), f"Make sure ?x is not {anchor.name}.", _ANSWER)
    return replace(candidate, steps=steps, patterns=(*candidate.patterns, f"FILTER(?x != {anchor.term})"))


def _renamed_helpers_n(candidate: Candidate, n: int) -> Candidate:
    """The helper nodes (``?m``, ``?c1``, ...) of the ``n``-th of several joined readings given
    names of their own, so that joined readings share only ``?x``."""
    if n == 0:
        return candidate

    def fix(text: str) -> str:
        return re.sub(r"\?(c\d|m\d?)\b", lambda m: f"?{m.group(1)}_{n}", text)

    return replace(
        candidate, steps=tuple(fix(s) for s in candidate.steps), patterns=tuple(fix(p) for p in candidate.patterns)
    )


def _pinned(candidate: Candidate, node: str) -> set[tuple[str, str]]:
    """The edges by which ``candidate`` ties ``node`` to a constant, not its type (*the
    placement whose outcome is "WIN"*, *the count whose population is 2016*).

    >>> _pinned(Candidate("lookup", (), ("?m <http://x/population> 2016 .", "?m <http://x/town> ?x .")), "?m")
    {('<http://x/population>', 'out')}
    >>> _pinned(Candidate("lookup", (), (f"?m <{RDF_TYPE}> <http://x/Quake> .",)), "?m")
    set()
    """
    found = set()
    for pattern in candidate.patterns:
        parts = pattern.split(maxsplit=2)
        if len(parts) == 3 and parts[0] == node and parts[1] != f"<{RDF_TYPE}>" and not parts[2].startswith("?"):
            found.add((parts[1], "out"))
    return found


#: the year or date of a node on the way: *Find the year of the midterm election ?m, ...*
_TIME_OF = re.compile(r"^Find the (?:year|date) of the [\w -]+ (\?m\w*), assign it to \?x\.$")


def _nameless(view: GraphView, iri: str) -> bool:
    """Whether a node has no name: no label and no text under a naming edge (a record; a
    track with a ``name`` is named)."""
    edges = view.sample((f"<{iri}> ?np ?n . FILTER(isLiteral(?n))",), "?np", 40)
    return not any(e.value in DEFAULT_NAME_PREDICATES or naming(e.value) for e in edges)


def _identified(base: Candidate, once: Set[str]) -> bool:
    """Whether a base starts from a value held once under an identifier (*record 502*: the
    sighting whose record number is 502), a node the question names as a title names one.

    >>> step = "Find the sighting whose record number is 502, assign it to ?x."
    >>> _identified(Candidate("lookup", (step,), (), anchors=("502",)), {"502"})
    True
    """
    said = _WHOSE.search(base.steps[0]) if base.anchors and base.anchors[0] in once else None
    return said is not None and identifying(said.group(1))


def _two_by_two(view: GraphView, a: Candidate, b: Candidate) -> bool:
    """Whether two readings may meet four hops apart: by the same edges (:func:`_parallel`),
    or each two hops from one item of its own (not from all things of a class), at a node,
    no value (an episode number is never a rank, and the job levels of male and of female
    employees meet at every level, a join of both)."""
    one_each = a.hops == b.hops == 2 and len(a.anchors) == len(b.anchors) == 1
    typed = any(c.steps[0].startswith(TYPED) for c in (a, b))
    if not (_parallel(a, b) or (one_each and not typed)):
        return False
    found = view.sample(a.patterns, "?x", 1)
    return bool(found) and found[0].type == "uri"


def _parallel(a: Candidate, b: Candidate) -> bool:
    """Whether two readings of one anchor each take the same edges (*the film of the award
    whose category is Best actor*, *... is Best actress*).

    >>> steps = ("Find the award whose category is {}, assign it to ?m.", "Find the film of the award ?m, ...")
    >>> actor, actress = ([s.format(name) for s in steps] for name in ("Best actor", "Best actress"))
    >>> _parallel(Candidate("lookup", tuple(actor), (), anchors=("Best actor",)),
    ...           Candidate("lookup", tuple(actress), (), anchors=("Best actress",)))
    True
    """
    if len(a.anchors) != 1 or len(b.anchors) != 1:
        return False
    return [s.replace(a.anchors[0], "#") for s in a.steps] == [s.replace(b.anchors[0], "#") for s in b.steps]


def _waypoints(candidate: Candidate) -> list[str]:
    """The named nodes a candidate passes on its way to ``?x`` (``?m``, ``?m_1``, ``?m3``).

    >>> _waypoints(Candidate("lookup", (), ("?m <http://x/year> 2007 .", "?m <http://x/country> ?x .")))
    ['?m']
    """
    return list(dict.fromkeys(re.findall(r"\?m\d?(?:_\d+)?\b", " ".join(candidate.patterns))))


_MET_BY = re.compile(r"^Find the .+ whose (.+) is \?w, assign it to \?x\.$")


def _answered_by(candidate: Candidate, waypoint: str) -> Candidate:
    """``candidate`` answering with the node ``waypoint`` names (its ``?x`` kept as ``?m4``)."""
    names = {"?x": "?m4", waypoint: "?x"}
    pattern = re.compile("|".join(re.escape(n) + r"\b" for n in names))

    def swap(text: str) -> str:
        return pattern.sub(lambda m: names[m.group(0)], text)

    steps = (*(swap(s) for s in _steps(candidate)), _ANSWER)
    return replace(candidate, steps=steps, patterns=tuple(swap(p) for p in candidate.patterns), names_answer=False)


def _kin(view: GraphView, things: Candidate, term: str) -> bool:
    """Whether the things a typed base finds and the instances of the class ``term`` share a
    type (*managers* and *players* are both persons; *teams* and *divisions* share none, and
    *the teams that are not divisions* means nothing). Each side's types are gathered on
    their own: joined through ``?t`` in one pattern, every thing meets every instance."""
    mine = f"{{ SELECT DISTINCT ?t WHERE {{ {' '.join(things.patterns)} ?x a ?t . }} }}"
    theirs = f"{{ SELECT DISTINCT ?t WHERE {{ ?y a {term} . ?y a ?t . }} }}"
    return view.reaches((mine, theirs, f"FILTER(?t != {term})"))


def _finds_flags(view: GraphView, reading: Candidate) -> bool:
    """Whether ``reading`` finds true or false (one value sampled)."""
    found = view.sample(reading.patterns, "?x", 1)
    return bool(found) and _is_flag(found[0])


def _is_flag(term: Any) -> bool:
    """Whether a value is true or false (an ``xsd:boolean``)."""
    return bool(term.datatype) and term.datatype.endswith("#boolean")


def _reads_asked(candidate: Candidate, words: Set[str]) -> bool:
    """Whether the reading's last hop finds what the question asks for (*the manufacturer of
    the aircraft ?m*, where it asks *which manufacturers*)."""
    return asks_for(attribute_words(answer_step(candidate)), words)


def _numeric(text: str) -> bool:
    """Whether a value reads as a number, a date or a time of a day (an order number that
    begins like a date does not).

    >>> [_numeric(t) for t in ("12.5", "2015-01-03", "2015-01-03T10:00:00", "22:50:29", "2015-000100", "abc")]
    [True, True, True, True, False, False]
    """
    return bool(re.fullmatch(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?|\d{4}-\d{2}(-\d{2})?([T ].*)?|\d\d:\d\d(:\d\d)?", text))


def _with_twins(found: Sequence[Candidate], anchors: Sequence[Anchor]) -> list[Candidate]:
    """``found``, each reading of an entity read of every entity that shares its name (a
    course cross-listed in two subjects, a name two storms bear): the question names both.
    Not inside a subquery, which would not see the values."""
    names: dict[str, list[str]] = defaultdict(list)
    for anchor in (a for a in anchors if a.kind == "entity" and a.term.startswith("<")):
        names[anchor.name].append(anchor.term)
    twins = [terms for terms in names.values() if len(terms) > 1]
    return [_read_as_twins(c, twins) for c in found] if twins else list(found)


def _read_as_twins(candidate: Candidate, twins: Sequence[Sequence[str]]) -> Candidate:
    """``candidate`` with each of ``twins``'s terms it holds bound by ``VALUES`` to all of them.

    >>> c = Candidate("lookup", ("Find the subject of the course X, assign it to ?x.",), ("<a> <s> ?x .",))
    >>> _read_as_twins(c, [["<a>", "<b>"]]).patterns
    ('VALUES ?twin0 { <a> <b> }', '?twin0 <s> ?x .')
    """
    patterns, values = candidate.patterns, []
    for i, terms in enumerate(twins):
        held = [p for p in patterns if any(t in p for t in terms)]
        if not held or any("SELECT" in p for p in held):
            continue
        for term in terms:
            patterns = tuple(p.replace(term, f"?twin{i}") for p in patterns)
        values.append(f"VALUES ?twin{i} {{ {' '.join(terms)} }}")
    return replace(candidate, patterns=(*values, *patterns)) if values else candidate


def _unique(candidates: Iterable[Candidate]) -> list[Candidate]:
    seen: dict[tuple[str, tuple[str, ...], str, str], Candidate] = {}
    for candidate in candidates:
        seen.setdefault((candidate.head, candidate.patterns, candidate.tail, candidate.text), candidate)
    return list(seen.values())
