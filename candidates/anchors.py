"""The grounded items a search starts from: entities, classes and values as anchors.

Grounding (:mod:`nl2sparql.kg.grounding`) reports everything the question may name, each
with a score; the agent starts only from what is likely a thing the question is about, so
weak and partial matches, and the numbers the question uses as operands, are left out here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from typing import Any

from nl2sparql.candidates.candidate import Anchor
from nl2sparql.candidates.cues import HOW_MEASURED, Cues, number_value, singular_word
from nl2sparql.candidates.units import is_number
from nl2sparql.kg.grounding import CATEGORY_HOLDERS, category_code
from nl2sparql.kg.local_names import local_name_words
from nl2sparql.kg.store import NS as FREEBASE_NS
from nl2sparql.kg.verbs import agent_nouns

#: an entity is an anchor when its link scores at least this share of the best link's (the
#: linker's own rule for a second entity, ``EntityLinker.link_entities``)
RELATIVE_SCORE = 0.8
#: value matches that name the whole value; partial and fuzzy ones (*longest* in *The Longest
#: Day*) are the question's ordinary words far more often than a name
WHOLE_VALUE_MATCHES = frozenset({"exact", "article", "inflected", "number", "date", "year"})


def anchors_of(grounding: Any, limits: Any, cues: Cues | None = None) -> list[Anchor]:
    """The grounded items a search starts from, best first within each kind.

    Left out: an entity linked far below the best one, unless the question writes its whole
    name apart from the others' (*Europe* beside *mazda rx-7 gs*); one matched in part on
    words that name another exactly (*series 1*: not *Series 1 Episode 1*); one found by a single
    lower-case word inside a longer name (*capital* in *Australian Capital Territory*: names
    are written with capitals), or by the adjective of *how deep*; a value matched in part, or
    written inside the whole name of an entity the question names (*3* in *series 3*); a
    number the question compares with or ranks by (*more than 12*, *the 6th to 10th*), or a
    word it searches names for (*with "Regional" in their name*), which is an operand, not a
    thing."""
    searched = cues.contains if cues is not None else None  # *"Regional" in their name*: a word searched for
    measured = HOW_MEASURED.search(cues.text) if cues is not None else None  # *how deep*: no entity *Deep*
    aggregated = bool(cues and cues.aggregates)
    operands = _operands(cues) if cues is not None else set()
    linked = [
        e
        for e in grounding.entities
        if not _common_word(e)
        and not _searched(e, searched)
        and not _measure_word(e, measured)
        and not (aggregated and _aggregate_word(e))
        and not _number_operand(e, operands)
    ]
    # one found in part on another's exact name takes no place (*a1 Best actress*, a record's
    # local name, beside the category *Best actress*)
    entities = _exact_first(linked)[: limits.entities]
    best = max((float(e.score) for e in entities), default=0.0)
    kept: list[Any] = []
    for entity in entities:
        if float(entity.score) >= RELATIVE_SCORE * best or _named_apart(entity, kept):
            kept.append(entity)
    kept = _exact_first(kept)
    found = [
        Anchor(_iri_term(e.entity_id), _as_asked(e.name, e.mention), "entity", float(e.score),
               partial=_as_asked(e.name, e.mention) != e.name)
        for e in kept
    ]  # fmt: skip
    text = getattr(grounding, "question", "")
    spans = [getattr(e, "span", (0, 0)) for e in kept]
    # a class word inside a name the question names takes no place of another class (*Season* in
    # *Season 6* leaves room for *contestants*), nor does one matched far below the best
    classes = [c for c in _whole_first(grounding.classes) if not _kind_of_named(c, spans, text)]
    top = max((float(c.score) for c in classes), default=0.0)
    classes = [c for c in classes if float(c.score) >= RELATIVE_SCORE * top or _by_head_noun(c)]
    # the class the question asks for keeps its place (*which sockets do the processors of X use*)
    classes = sorted(classes, key=lambda c: not _class_asked(c, text))[: limits.classes]
    terms = [_iri_term(e.entity_id) for e in kept]
    # a common noun after a determiner names a class, not an item too (*which typhoon*, *the
    # typhoon with*: no status *typhoon*; *the status typhoon* names the status)
    kinds = {
        tuple(c.span)
        for c in grounding.classes
        if c.match in ("exact", "inflected") and _DETERMINED.search(text[: c.span[0]])
    }
    # nor do lower-case words that name a class and only part of an item's name (*which three
    # covered entities*: not *The WellPoint Affiliated Covered Entities*)
    kinds |= {tuple(c.span) for c in grounding.classes if c.match in ("exact", "inflected")}.intersection(
        tuple(e.span) for e in kept if getattr(e, "match", "") in ("partial", "fuzzy")
    )
    found = [a for a, e in zip(found, kept, strict=True) if not (e.mention.islower() and tuple(e.span) in kinds)]
    found += [
        Anchor(f"<{c.iri}>", c.name, "class", float(c.score), asked=_class_asked(c, text),
               follows=_named_before(c, spans, terms, text))
        for c in classes
    ]  # fmt: skip
    named = [span for e, span in zip(kept, spans, strict=True) if getattr(e, "match", "") == "exact"]
    # a word that names a class is that class, not a value too (*which municipality*, *a
    # municipality*, *the most municipalities*: not those whose type is the string *municipality*)
    classed = [tuple(getattr(c, "span", (0, 0))) for c in classes]
    values = [
        v
        for v in grounding.values
        if v.match in WHOLE_VALUE_MATCHES
        and _number(v.value) not in operands
        and str(getattr(v, "mention", "")).strip() not in operands  # *after 2024-07-30*: no time that day
        and not _common_name(v)
        and not _searched(v, searched)
        and not _inside_name(getattr(v, "span", (0, 0)), named)
        and tuple(getattr(v, "span", (0, 0))) not in classed
        and not _year_said(v, grounding.values, text)
    ]
    chosen = _outermost(values)[: limits.values]
    for value in chosen:
        term = value.term().n3()
        shown = value.value if is_number(value.datatype) else f'"{value.value}"'
        once = getattr(value, "count", 0) <= len(value.predicates)
        names = once and any(naming(p) for p in value.predicates[:3])
        found.append(Anchor(term, shown, "value", float(value.score), tuple(value.predicates[:3]), names, once=once))
    written = [tuple(getattr(v, "span", (0, 0))) for v in chosen]
    # no year inside a value written whole (*order 2015-000100* holds no *2015*)
    dated = [v for v in grounding.values if not _inside_any(tuple(v.span), written)]
    found += years_of_dates(dated, operands)
    return found


def named_spans(grounding: Any, anchors: Sequence[Anchor]) -> list[tuple[int, int]]:
    """Where the question writes the whole name of an entity it is anchored at, as a name
    (with a capital) or in two words or more (*the first class passengers*: the class *First
    class*): words there name a thing, not an operator (*the Best actor award*).

    >>> from nl2sparql.kg.linker import Candidate
    >>> best = Candidate("http://x/Best_actor", "Best actor", 1.0, "Best actor", (12, 22), "best actor", "exact", 9)
    >>> grounding = type("G", (), {"entities": (best,)})()
    >>> named_spans(grounding, [Anchor("<http://x/Best_actor>", "Best actor", "entity", 1.0)])
    [(12, 22)]
    >>> named_spans(grounding, [])
    []
    """
    terms = {a.term for a in anchors if a.kind == "entity"}
    return [
        tuple(e.span)
        for e in grounding.entities
        if _iri_term(e.entity_id) in terms
        and e.match == "exact"
        and (any(c.isupper() for c in e.mention) or len(e.mention.split()) > 1)
    ]


def _year_said(value: Any, values: Sequence[Any], text: str) -> bool:
    """Whether a number is a year that dates hold, written as one and held as a date more often
    than as this number (*released in 2020*: no write speed of 2020; but *in 2016* is the
    season year where seasons keep their year as a number).

    >>> from nl2sparql.kg.grounding import ValueMatch
    >>> speed = ValueMatch("2020", "integer", ("http://x/speed",), "2020", 1.1, (23, 27), "number", count=1)
    >>> day = ValueMatch("2020-05-27", "date", ("http://x/released",), "2020", 0.8, (23, 27), "year of date", count=9)
    >>> said = [speed, day]
    >>> _year_said(speed, said, "which were released in 2020"), _year_said(speed, said, "a speed of 2020")
    (True, False)
    """
    span = tuple(value.span)
    dated = sum(getattr(v, "count", 0) for v in values if v.match == "year of date" and tuple(v.span) == span)
    if value.match != "number" or dated <= getattr(value, "count", 0):
        return False
    return bool(re.search(r"\b(?:in|during)\s*$", text[: span[0]], re.IGNORECASE))


def years_of_dates(values: Sequence[Any], operands: set[str]) -> list[Anchor]:
    """A year the question writes that dates hold (*premiered in 2014*), or a month of a year
    (*in November 2020*), as one anchor per year (or month) over every predicate whose dates
    fall in it; its term is the variable the dates are bound to (the agent keeps those in that
    year, ``?y2014``, or month, ``?y2020m11``). None for a year compared with (*after 2014*);
    ``anchors_of`` passes none that a value of the graph is written as (a season *2015*: that
    value is the anchor).

    >>> from nl2sparql.kg.grounding import ValueMatch
    >>> dates = [ValueMatch(d, "date", ("http://x/premiere",), "2014", 0.7, (26, 30), "year of date")
    ...          for d in ("2014-08-06", "2014-10-08")]
    >>> [(a.term, a.name, a.kind, a.predicates) for a in years_of_dates(dates, set())]
    [('?y2014', 'in 2014', 'year', ('http://x/premiere',))]
    >>> years_of_dates(dates, {"2014"})
    []
    >>> month = ValueMatch("2014-08-06", "date", ("http://x/premiere",), "August 2014", 0.9, (19, 30), "month of date")
    >>> [(a.term, a.name) for a in years_of_dates([month], set())]
    [('?y2014m8', 'in August 2014')]
    """
    by_term: dict[tuple[str, str], list[Any]] = {}
    for value in values:
        if value.match == "year of date" and value.mention.isdigit() and value.mention not in operands:
            by_term.setdefault((f"?y{value.mention}", f"in {value.mention}"), []).append(value)
        elif value.match == "month of date" and value.value[:4] not in operands:
            year, month = value.value[:4], int(value.value[5:7])
            by_term.setdefault((f"?y{year}m{month}", f"in {_MONTHS[month - 1]} {year}"), []).append(value)
    found = []
    for (term, name), dated in by_term.items():
        predicates = tuple(dict.fromkeys(p for v in dated for p in v.predicates))
        found.append(Anchor(term, name, "year", max(float(v.score) for v in dated), predicates[:3]))
    return found


_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
)  # fmt: skip


def _kind_of_named(cls: Any, spans: Sequence[tuple[int, int]], text: str) -> bool:
    """Whether a class's word is part of the name of an entity the question names
    (*Southwest Airlines*) or stands right before it (*destination of flight AA 1141*): it
    says what that entity is, not what the question asks for.

    >>> from types import SimpleNamespace as Match
    >>> flight = Match(name="flight", span=(15, 21))
    >>> _kind_of_named(flight, [(22, 29)], "destination of flight AA 1141")
    True
    >>> _kind_of_named(flight, [(25, 28)], "delay of flight to JFK")
    False
    """
    start, end = getattr(cls, "span", (0, 0))
    named = any(s <= start and end <= e or s > end and not text[end:s].strip() for s, e in spans)
    return end > start and named and not _asked(cls.name, text)


#: a determiner right before a word: the word is a common noun (*the typhoon*, *which typhoon*)
_DETERMINED = re.compile(r"\b(?:the|a|an|which|what|each|every|this|that|these|those)\s+$", re.IGNORECASE)


def _by_head_noun(cls: Any) -> bool:
    """Whether a class of two words or more was found by its head noun alone (*items*: the
    class *menu item*), which names it as well as its whole name would.

    >>> from types import SimpleNamespace as Match
    >>> _by_head_noun(Match(name="menu item", mention="items", match="partial"))
    True
    >>> _by_head_noun(Match(name="menu item", mention="menu", match="partial"))
    False
    """
    words = str(cls.name).lower().split()
    return cls.match == "partial" and len(words) > 1 and singular_word(str(cls.mention).lower()) == words[-1]


def _named_before(cls: Any, spans: Sequence[tuple[int, int]], terms: Sequence[str], text: str) -> str:
    """The entity whose name a class's word follows (*the women's division*, *the Jazz genre*:
    the word may say what the entity is), or ``""``.

    >>> from types import SimpleNamespace as Match
    >>> division = Match(name="division", span=(12, 20))
    >>> _named_before(division, [(4, 9)], ["<http://x/Women>"], "the women's division")
    '<http://x/Women>'
    >>> _named_before(division, [(0, 3)], ["<http://x/The>"], "the women's division")
    ''
    """
    start = getattr(cls, "span", (0, 0))[0]
    return next((t for (_, e), t in zip(spans, terms, strict=True) if _APART.fullmatch(text[e:start])), "")


#: what may stand between a name and a word that says what it names: nothing, or a possessive
_APART = re.compile(r"(?:'s|s'|')?\s+")


def _number_operand(entity: Any, operands: Set[str]) -> bool:
    """Whether an entity was found by a number word, in lower case, that the question ranks or
    compares by (*which three storms*: no storm named *Three*).

    >>> from types import SimpleNamespace as Link
    >>> _number_operand(Link(mention="three"), {"3"}), _number_operand(Link(mention="Three"), {"3"})
    (True, False)
    """
    mention = str(getattr(entity, "mention", "")).strip()
    return mention.islower() and number_value(mention) in operands


def _measure_word(entity: Any, measured: re.Match[str] | None) -> bool:
    """Whether the entity was found by the adjective of a *how deep*, *how tall* question."""
    return measured is not None and str(getattr(entity, "mention", "")).lower() == measured.group(1)


def _outermost(values: Sequence[Any]) -> list[Any]:
    """The values, less one written inside a longer one the question writes (*PG* and *13*
    in *PG-13*).

    >>> from types import SimpleNamespace as Match
    >>> whole, part = Match(span=(20, 25)), Match(span=(20, 22))
    >>> _outermost([whole, part, Match(span=(0, 4))]) == [whole, Match(span=(0, 4))]
    True
    """
    spans = [tuple(getattr(v, "span", (0, 0))) for v in values]
    return [v for v, span in zip(values, spans, strict=True) if not _inside_name(span, spans)]


def _exact_first(entities: Sequence[Any]) -> list[Any]:
    """The entities, less one matched in part or near enough on words that name another
    entity exactly (*series 1* is the series *Series 1*, not the episode *Series 1 Episode 1*).

    >>> from types import SimpleNamespace as Link
    >>> series, episode = Link(span=(21, 29), match="exact"), Link(span=(21, 29), match="partial")
    >>> _exact_first([series, episode]) == [series], len(_exact_first([episode, Link(span=(0, 5), match="exact")]))
    (True, 2)
    """
    exact = [tuple(getattr(e, "span", (0, 0))) for e in entities if getattr(e, "match", "") == "exact"]
    return [e for e in entities if getattr(e, "match", "") == "exact" or not _inside_any(tuple(e.span), exact)]


def _inside_any(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    return span[1] > span[0] and any(s <= span[0] and span[1] <= e for s, e in spans)


def _inside_name(span: tuple[int, int], names: Sequence[tuple[int, int]]) -> bool:
    """Whether a value is written inside the whole name of an entity the question names
    (*3* in *series 3*, the series labelled *Series 3*): part of that name, not a value.

    >>> _inside_name((36, 37), [(29, 37)]), _inside_name((29, 37), [(29, 37)]), _inside_name((40, 44), [(29, 37)])
    (True, False, False)
    """
    return _inside_any(span, [name for name in names if name != span])


def _searched(item: Any, word: str | None) -> bool:
    """Whether an item was found by the word the question searches names for, which is an
    operand of a text match (*airports with "Regional" in their name*), not a thing."""
    return word is not None and str(getattr(item, "mention", "")).strip(' "').lower() == word


def _named_apart(entity: Any, kept: Sequence[Any]) -> bool:
    """An exact match of the entity's whole name on words no kept entity was found by.

    >>> from types import SimpleNamespace as Link
    >>> car = Link(span=(9, 22), match="exact")
    >>> _named_apart(Link(span=(38, 44), match="exact"), [car]), _named_apart(Link(span=(9, 14), match="exact"), [car])
    (True, False)
    """
    start, end = getattr(entity, "span", (0, 0))
    apart = all(end <= s or start >= e for s, e in (getattr(k, "span", (0, 0)) for k in kept))
    return getattr(entity, "match", "") == "exact" and end > start and apart


#: the words that ask for (or count) things of a class, then the three words after them
#: (*which large airports does*, *list the albums*, *how many airports can*)
_ASKS_FOR = re.compile(r"\b(?:which|what|list|give|name|show|how many)(?: all)?(?: of)?(?: the)?((?:\s+[\w-]+){1,3})")


def asked_words(question: str) -> set[str]:
    """The words, singular, just after what asks for things (*which pitchers had more* gives
    ``{"pitcher", "had", "more"}``).

    >>> sorted(asked_words("Which pitchers had more than 250 strikeouts?"))
    ['had', 'more', 'pitcher']

    A preposition ends them: *which contestants of Season 6* asks for contestants, not
    seasons; but *which type of car* names its kind.

    >>> sorted(asked_words("Which contestants of Season 6 won?")), sorted(asked_words("which type of car"))
    (['contestant'], ['car', 'of', 'type'])
    """
    found: set[str] = set()
    for match in _ASKS_FOR.finditer(question.lower()):
        found |= _before_modifier(match.group(1).split())
    for match in _WHO.finditer(question.lower()):
        found |= _before_modifier(match.group(1).split()) if match.group(1) else agent_nouns(match.group(2))
    return found


def asks_for(edge: str, words: Set[str]) -> bool:
    """Whether an edge's words (*pitcher*, *player*) are among those the question asks for
    (:func:`asked_words`).

    >>> asks_for("winner", asked_words("Who won Best actor in 1995?")), asks_for("ceremony", {"winner"})
    (True, False)

    A participle before the noun keeps its kind (a sitting president is a president; a vice
    president is not):

    >>> asks_for("sitting president", {"president", "sat"}), asks_for("vice president", {"president", "sat"})
    (True, False)
    """
    said = edge.split()
    kept = [w for w in said[:-1] if not _PARTICIPLE.fullmatch(w)] + said[-1:]
    return bool(edge) and {singular_word(w) for w in kept} <= words


#: a participle that modifies a noun (*sitting*, *winning*, *elected*)
_PARTICIPLE = re.compile(r"[a-z]{3,}(?:ing|ed)")


def _before_modifier(words: list[str]) -> set[str]:
    ends = [i for i, w in enumerate(words) if i and w in _MODIFIES and words[i - 1] not in _KINDS]
    return {singular_word(w) for w in words[: ends[0] if ends else len(words)]}


#: *who won* asks for the one who did it (the winner); *who was the oldest winner of* for a
#: winner: ``asked_words("Who directed Alien?")`` holds *director*
_WHO = re.compile(
    r"\bwho\s+(?:(?:is|was|are|were)\s+(?:the\s+)?((?:[\w-]+\s*){1,4})"
    r"|(?:(?:has|have|had)\s+)?(?!(?:is|was|are|were|has|have|had|did|does|do|can|could|will|would)\b)(\w+))"
)


#: prepositions that begin what qualifies the things asked for (*contestants of Season 6*)
_MODIFIES = frozenset({"of", "in", "from", "for", "on", "at", "by", "with"})
_KINDS = frozenset({"type", "types", "kind", "kinds", "sort", "sorts", "class", "classes", "category", "categories"})


def _asked(name: str, question: str) -> bool:
    """Whether the question asks for things of the class named ``name``, by its head noun
    (*Which airports can you fly to from Missoula Montana Airport?* asks for airports,
    whichever mention of *airport* the grounder matched).

    >>> _asked("airport", "Which airports can you fly to from Missoula Montana Airport?")
    True
    >>> _asked("airport", "How many routes leave Missoula Montana Airport?")
    False
    >>> _asked("product sub-category", "Which sub-category has the lowest total profit?")
    True
    """
    head = singular_word(name.lower().split()[-1]) if name.strip() else ""
    return head in asked_words(question)


def _class_asked(cls: Any, question: str) -> bool:
    """Whether the question asks for things of a grounded class, by its name's head noun or
    by the words it wrote for it (*in which midterm* asks for a *midterm election*)."""
    return _asked(cls.name, question) or _asked(getattr(cls, "mention", ""), question)


def _whole_first(classes: Sequence[Any]) -> list[Any]:
    """The class matches, less a partial or fuzzy one on words a whole match was found by
    (*product category* names the category, not the *product sub-category*).

    >>> from types import SimpleNamespace as Match
    >>> whole, part = Match(span=(37, 53), match="exact"), Match(span=(37, 53), match="partial")
    >>> _whole_first([whole, part]) == [whole], len(_whole_first([part, Match(span=(0, 5), match="exact")]))
    (True, 2)
    """
    whole = [c for c in classes if getattr(c, "match", "exact") in ("exact", "inflected")]
    return [c for c in classes if c in whole or not any(_overlaps(c.span, w.span) for w in whole)]


def _overlaps(one: tuple[int, int], other: tuple[int, int]) -> bool:
    return one[0] < other[1] and other[0] < one[1]


def _common_name(value: Any) -> bool:
    """A name the question writes as a common word: *money* is not the artist *Money*; but
    a category held by several nodes is a common word written so (*won*: the outcome *WIN*;
    *female*: the sex *Female* of 39 faculty members).

    >>> from nl2sparql.kg.grounding import ValueMatch
    >>> named = (("Money", "money", 1), ("Money", "Money", 1), ("WIN", "won", 190), ("PER", "per", 1))
    >>> [_common_name(ValueMatch(name, None, (), mention, 1.0, count=n)) for name, mention, n in named]
    [True, False, False, True]
    >>> _common_name(ValueMatch("Female", None, (), "female", 1.0, count=39))
    False
    """
    mention, name = value.mention.strip(), value.value
    holders = getattr(value, "count", 0)
    category = category_code(name, holders) or (name.lower() == mention.lower() and holders >= CATEGORY_HOLDERS)
    return " " not in mention and mention.islower() and name != name.lower() and not category


def _common_word(entity: Any) -> bool:
    """An entity found, in part or near enough, by one lower-case word (*film* is not
    *Film4*, *capital* not *Australian Capital Territory*); but a plural of its whole name
    names it (*droids*: the species *Droid*, a category the question names as a thing).

    >>> from types import SimpleNamespace as Link
    >>> _common_word(Link(match="fuzzy", mention="film", name="Film4"))
    True
    >>> _common_word(Link(match="fuzzy", mention="Filmz", name="Film4"))
    False
    >>> _common_word(Link(match="fuzzy", mention="droids", name="Droid"))
    False
    """
    mention = str(getattr(entity, "mention", "")).strip()
    if singular_word(mention.lower()) == str(getattr(entity, "name", "")).lower() != mention.lower():
        return False
    return getattr(entity, "match", "") in ("partial", "fuzzy") and " " not in mention and mention.islower()


#: words that name an aggregate when written in lower case (*the highest total profits*)
_AGGREGATE_WORDS = frozenset({"total", "sum", "average", "mean", "median", "maximum", "minimum"})


def _aggregate_word(entity: Any) -> bool:
    """An entity found by one lower-case word that names an aggregate the question asks for
    (*total* is not the company *Total* in *the highest total profits*).

    >>> from types import SimpleNamespace as Link
    >>> _aggregate_word(Link(mention="total")), _aggregate_word(Link(mention="Total"))
    (True, False)
    """
    mention = str(getattr(entity, "mention", "")).strip()
    return mention.islower() and mention in _AGGREGATE_WORDS


def naming(predicate: str) -> bool:
    """Whether a predicate names its subject (``name``, ``title``, ``label``, ``firstName``)."""
    local = re.split(r"[/#]", predicate)[-1].lower()
    return any(word in local for word in ("name", "title", "label"))


def identifying(name: str) -> bool:
    """Whether a predicate's name (its IRI or its words) says it identifies its subject
    (``recordId``, ``orderNumber``, *species code*): a value held once under it names one node.

    >>> identifying("http://x/s#recordId"), identifying("http://x/s#order_number"), identifying("http://x/coreCount")
    (True, True, False)
    >>> identifying("record number"), identifying("number of cores")
    (True, False)
    """
    made = local_name_words(name)
    return made is not None and made[0].lower().split()[-1] in ("id", "identifier", "number", "code", "no")


def _number(text: str) -> str:
    try:
        return f"{abs(float(text)):g}"
    except ValueError:
        return text


def _operands(cues: Cues) -> set[str]:
    """The numbers the question compares with or ranks by, as written (*150 billion*: 150 too)."""
    found = {_number(cues.compare[1])} if cues.compare else set()
    if cues.compare and cues.compare_scale > 1:
        found.add(_number(str(float(cues.compare[1]) / cues.compare_scale)))
    if cues.window:
        offset, keep = cues.window
        found |= {_number(str(n)) for n in (keep, offset + 1, offset + keep)}
    return found


def _as_asked(name: str, mention: str) -> str:
    """An entity named from its IRI keeps the question's words when the name only adds a type
    letter (``Radiohead B`` asked as *Radiohead*).

    >>> _as_asked("Radiohead B", "radiohead"), _as_asked("John Lennon", "lennon")
    ('Radiohead', 'John Lennon')
    """
    extra = name[len(mention) :].strip()
    if name.lower().startswith(mention.lower()) and len(extra) == 1 and extra.isupper():
        return name[: len(mention)]
    return name


def _iri_term(entity_id: str) -> str:
    return f"<{entity_id}>" if entity_id.startswith(("http://", "https://")) else f"<{FREEBASE_NS}{entity_id}>"
