"""What the question's words make plausible: the operators a candidate may wear.

The agent builds a count only where the question asks *how many*, a ranking where it says
*most* or *cheapest*, a per-group aggregate where it says *for each*: the words are cues
that open a shape, never proof of it (the ranker chooses). Each cue is a small regular
expression over the lower-cased question; numbers written in words are read as well.

>>> read_cues("How many albums did Queen release?").count
True
>>> read_cues("How many more viewers did series 7 have than series 1?").count  # a difference
False
>>> read_cues("Which are the 6th to 10th largest cities?").window
(5, 5)
>>> read_cues("Is Berlin the capital of Germany?").yes_no
True
>>> read_cues("Which bands have more than 3 members?").compare
('greater than', '3')
>>> read_cues("Which country had the highest life expectancy?").things
True
>>> read_cues("In which year was the population the smallest?").things
False
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from nl2sparql.kg.grounding import singular
from nl2sparql.kg.verbs import agent_nouns, past_forms, present_of

_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10,
}  # fmt: skip
#: the scale words a number is written with (*150 billion*)
SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER = r"(-?\d[\d,]*(?:\.\d+)?(?:\s+(?:" + "|".join(SCALES) + r"))?|" + "|".join(_WORD_NUMBERS) + r")"
_ORDINAL = r"(\d+)(?:st|nd|rd|th)|(" + "|".join(_ORDINALS) + r")"

_YES_NO = re.compile(r"^\s*(is|are|was|were|does|do|did|has|have|had|can|could|will|would)\b")
#: *how much* asks an amount (*how much does it weigh*), not how many things:
#: ``read_cues("How much does the car weigh?").count`` is false
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b")
#: *how many more viewers did A have than B*, *how much more does it cost new than used*: a
#: difference of two values, no count and no ranking
_HOW_MANY_MORE = re.compile(r"\bhow (?:many|much) (?:more|fewer|less)\b.*\bthan\b")
_MOST = re.compile(
    r"\b(most|highest|largest|biggest|greatest|longest|latest|newest|most recent|last(?! name)|maximum|max|"
    r"heaviest|tallest|richest|youngest|best|expensive|costliest|more|northernmost|easternmost|"
    r"deepest|strongest|widest|hottest|warmest|fastest|quickest|loudest|brightest|busiest|"
    r"furthest north|farthest north|furthest east|farthest east)\b"
)
_LEAST = re.compile(
    r"\b(least|lowest|smallest|shortest|earliest|first(?! name)|oldest|minimum|min|cheapest|fewest|lightest|"
    r"poorest|worst|southernmost|westernmost|furthest south|farthest south|furthest west|farthest west|"
    r"shallowest|weakest|coldest|coolest|slowest|narrowest|thinnest|quietest)\b"
)
#: *more than 100*, *at least four* compare with a number; they rank nothing
_BOUND = re.compile(rf"\b(?:more|less|fewer)\s+than\s+{_NUMBER}|\bat\s+(?:least|most)\s+{_NUMBER}")
_TOP = re.compile(rf"\b(?:top|first|last|the|which|what)\s+{_NUMBER}\b(?!\s*(?:st|nd|rd|th)\b)")
#: an ordinal before a superlative (*the second busiest*, *3rd-largest*)
_RANKED = re.compile(rf"\b(?:{_ORDINAL})[\s-]+(most \w+|least \w+|\w+)")
#: a place a thing finished in (*finished second*, *placed 3rd*): a rank the graph keeps
_PLACED = re.compile(rf"\b(?:finished|placed|came|ended|ranked)\s+(?:up\s+)?(?:in\s+)?(?:the\s+)?(?:{_ORDINAL})\b")
_WINDOW = re.compile(rf"\b(?:{_ORDINAL})\s+(?:to|through|-|and)\s+(?:the\s+)?(?:{_ORDINAL})\b")
#: *how long*, *how many years*: a length of time asked
_HOW_LONG = re.compile(r"\bhow long\b|\bhow many (?:years|months|weeks|days|hours|minutes)\b")
#: the verbs that say a thing went on for that time (*last*, *serve*, *run*)
_LASTED = re.compile(
    r"\b(?:last|lasts|lasted|serve|serves|served|span|spans|spanned|run|runs|ran|reign|reigned|continue|continued|"
    r"go on|went on)\b"
)
#: comparatives that mean less of the measure they speak of
_LESSER = (
    "shorter", "lighter", "younger", "cheaper", "earlier", "slower", "narrower", "thinner", "closer", "nearer",
    "weaker", "poorer", "colder", "cooler", "shallower", "lesser",
)  # fmt: skip
_COMPARE = (
    (re.compile(rf"\b(?:more|greater|higher|larger|bigger|over|above)\s+(?:than\s+)?{_NUMBER}"), "greater than"),
    (re.compile(rf"\b(?:less|fewer|lower|smaller|under|below)\s+(?:than\s+)?{_NUMBER}"), "less than"),
    (re.compile(rf"\bat least\s+{_NUMBER}"), "at least"),
    (re.compile(rf"\bat most\s+{_NUMBER}"), "at most"),
    (re.compile(rf"\b(?:north|east) of (?:\w+\s+)?{_NUMBER}"), "greater than"),
    (re.compile(rf"\b(?:south|west) of (?:\w+\s+)?{_NUMBER}"), "less than"),
    (re.compile(r"\bafter\s+(\d{4}(?:-\d\d-\d\d)?)\b"), "after"),
    (re.compile(r"\bsince\s+(\d{4}(?:-\d\d-\d\d)?)\b"), "at least"),  # *since 2015*: 2015 too
    (re.compile(r"\bbefore\s+(\d{4}(?:-\d\d-\d\d)?)\b"), "before"),
    (re.compile(r"\b(1\d\d0|20\d0)s\b"), "in the decade from"),  # *in the 1970s*
    # any other comparative of degree (*longer than 80*, *lighter than 2000*)
    (re.compile(rf"\b(?:{'|'.join(_LESSER)})\s+than\s+{_NUMBER}"), "less than"),
    (re.compile(rf"\b\w{{2,}}er\s+than\s+{_NUMBER}"), "greater than"),
)  # fmt: skip
#: a value's sign, which compares it with zero
SIGN_WORDS = ("negative", "positive")
_SIGN = re.compile(rf"\b({'|'.join(SIGN_WORDS)})\b")
#: *made a loss*, *loss-making*, *unprofitable*: a profit below zero
_LOSS = re.compile(
    r"\b(?:made|make|makes|making|posted|posts|reported|reports|had|has|have|with|ran|runs)\s+(?:a\s+)?(?:net\s+)?"
    r"loss(?:es)?\b|\bloss-making\b|\bunprofitable\b|\blost money\b"
)
#: *did the party gain seats*, *did it lose members*: a yes or no on the sign of a change
_GAINED = re.compile(r"\b(gain|gains|gained|lose|loses|lost)\b")
#: *the biggest loss*, *the largest house seat losses* rank the least profit or change: the other way
_LOSS_RANKED = re.compile(
    r"\b(?:biggest|largest|greatest|highest|heaviest|worst|most)\s+((?:[a-z]+\s+){0,3}?)(?:net\s+)?loss(?:es)?\b"
)
_AGGREGATES = (
    (re.compile(r"\b(average|mean)\b"), "average"),
    # "a total above 20" names an attribute, not a sum: a total is summed when a noun or "of" follows
    (
        re.compile(
            r"\b(sum|combined|altogether|in total)\b"
            r"|\btotal (?!above|below|over|under|more|less|greater|higher|lower|than)\w+"
        ),
        "sum",
    ),
    (re.compile(r"\b(minimum|lowest|smallest|least)\b"), "minimum"),
    (re.compile(r"\b(maximum|highest|largest|biggest)\b|^what (?:is|was) the most\b"), "maximum"),
)
AGE_WORDS = re.compile(r"\b(?:old|older|oldest|young|younger|youngest)\b")
#: words of speed, which rank a time taken the other way (*the fastest time*: the least)
SPEED_WORDS = re.compile(r"\b(?:fast|faster|fastest|quick|quicker|quickest|slow|slower|slowest)\b")
_EXTREME = re.compile(r"\b(?:minimum|lowest|smallest|least|maximum|highest|largest|biggest)\b")
_GROUP = re.compile(r"\b(for each|for every|per|each|by each|grouped by|in each)\b")
#: what a question groups by, after the word that says so (*each census subdivision type*)
GROUPED_BY = re.compile(r"\b(?:for each|for every|per|each|in each|by each)\s+((?:[\w-]+\s*){1,4})")
_NEGATION = re.compile(r"\b(no|not|never|without|none|neither|nor|n't|lack|lacks|missing)\b|n't\b")
_BY_TOTAL = re.compile(r"\b(?:spent|spends|spend|earned|earns|sold|sells|bought|buys|paid|pays) the (?:most|least)\b")
_GROUP_RANK = re.compile(
    r"\b(?:most|fewest|least|more|fewer)\s+(?!\w+(?:ous|ive|ful|al|ic|able|est|er|ed|ing|ly)\b)(?:\w+\s+)?\w+s\b"
    r"|\bby (?:the )?number of\b|\b(?:most|least) (?:often|frequently)\b|" + _BY_TOTAL.pattern
)
_VALUE = re.compile(
    r"^(?:in |at |on )?(?:when|what year|which year|what date|which date|what time|how long|how old|how much|how big"
    r"|how tall|how deep|how heavy|how far|how strong|how wide|how high)\b"
)
_QUOTED = re.compile(
    r"['\"‘“]([^'\"’”]{2,40})['\"’”]|\bcontain(?:s|ing)? (?:the word )?(\w+)"
    r"|\b(?:with|have|has|having) (\w+) in (?:its|their|the) \w+"
    r"|\b(?:surname|last name|family name|first name|given name)(?: is)? ([A-Z][\w'-]*)"
)
_COLUMNS = re.compile(
    r"\b(and their|and its|with their|with its|together with|along with|as well as)\b"
    r"|\b\w+ and \w+ of (every|each|all)\b|^(list|give|show)\b.+\band\b"
    r"|^(?:(?:what|which) (?:is|are|was|were) )?(?:the )?\w+(?: \w+){0,2} and (?:the )?\w+(?: \w+){0,2} of\b"
    r"|^how (?:much|many) \w+ and \w+ (?:does|do|did|is|are|was|were|has|have|had)\b"  # *how much protein and fiber*
)


#: the measure an adjective of degree speaks of (*the lightest*: a weight), in English at large
MEASURES: dict[tuple[str, ...], tuple[str, ...]] = {
    ("heavy", "heavier", "heaviest", "light", "lighter", "lightest"): ("weight", "mass"),
    ("long", "longer", "longest", "short", "shorter", "shortest"): ("length", "duration", "running time"),
    ("tall", "taller", "tallest"): ("height",),
    ("old", "older", "oldest", "young", "younger", "youngest"): ("age", "birth date"),
    ("cheap", "cheaper", "cheapest", "expensive", "costliest", "pricier", "priciest"): ("price", "cost"),
    ("fast", "faster", "fastest", "slow", "slower", "slowest", "quickest"): ("speed",),
    ("rich", "richer", "richest", "poor", "poorer", "poorest"): ("wealth", "income"),
    ("big", "bigger", "biggest", "large", "larger", "largest", "small", "smaller", "smallest"): ("size", "area"),
    ("populous",): ("population",),
    ("deep", "deeper", "deepest", "shallow", "shallower", "shallowest"): ("depth",),
    ("wide", "wider", "widest", "narrow", "narrower", "narrowest"): ("width",),
    ("strong", "stronger", "strongest", "weak", "weaker", "weakest"): ("magnitude", "strength"),
    ("hot", "hotter", "hottest", "cold", "colder", "coldest", "warmest", "coolest"): ("temperature",),
}
#: *how long*, *how heavy*: a question that asks for the measure an adjective speaks of
HOW_MEASURED = re.compile(r"\bhow (" + "|".join(w for words in MEASURES for w in words) + r")\b")
MEASURED_BY: dict[str, tuple[str, ...]] = {word: nouns for words, nouns in MEASURES.items() for word in words}


@dataclass(frozen=True, slots=True)
class Cues:
    """The operators a question opens; ``window`` is ``(offset, keep)`` of a ranking."""

    yes_no: bool = False
    count: bool = False
    most: bool = False
    least: bool = False
    window: tuple[int, int] | None = None
    placed: int = 0  # the place a thing finished in (*finished second*: 2)
    compare: tuple[str, str] | None = None
    compare_unit: str = ""  # the word after the compared number (*80 minutes*), a unit or not
    compare_scale: int = 1  # the scale word the compared number is written with (*150 billion*: 10**9)
    aggregates: tuple[str, ...] = ()
    per_group: bool = False
    negation: bool = False
    columns: bool = False
    value: bool = False  # the question asks for a value (when, what year, how long)
    group_rank: bool = False  # a ranking by a number of things (*the most albums*, *by number of tracks*)
    by_total: bool = False  # ... or by a total of an amount (*spent the most*)
    counted: str = ""  # the words naming what is counted (*albums* in *how many albums*, *the most albums*)
    same: bool = False  # others that share something with a named item (*the same currency as Ecuador*)
    contains: str | None = None  # a word the answer's name must contain
    starts: bool = False  # ... begin with (*an abbreviation starting with N*)
    #: the question asks for things, not a number (*which country had the highest ...*)
    things: bool = False
    #: the question asks *who* (a person or a thing; never a number or a date)
    person: bool = False
    #: a difference of one value at two named items: "later" (the second named minus the
    #: first: *how much did it grow between 1952 and 2007*) or "first" (*how much more ... than*)
    difference: str | None = None
    #: a share of things the question asks for: "percentage" (*what percentage of the order
    #: lines ...*) or "fraction" (*what fraction*, *what share*, *what proportion*)
    share: str | None = None
    #: how long a thing went on (*how many years did the term last*): an end less a start
    span: bool = False
    #: things that hold two roles (*which vice presidents also became president*)
    both: bool = False
    #: a yes/no question that compares one value at two named items (*did A have more
    #: passengers than B*): "greater than" or "less than"
    outranks: str | None = None
    #: the compared number counts things of a class the question names (*more than 3 films*);
    #: set by the agent, which knows the classes
    counts_compared: bool = False
    #: a comparison with *than* and no number, outside a yes/no question: of two values of one
    #: thing (*the states where Clinton got a higher percentage than Trump*)
    against: str | None = None
    text: str = ""  # the question's words, lower-cased, punctuation dropped

    @property
    def ranking(self) -> bool:
        return self.most or self.least or self.window is not None

    @property
    def aged_extremes(self) -> tuple[str, ...]:
        """The maximum and minimum an age word names either way (*the youngest age* is the
        least age and the latest birth date), unless a word names one (*the lowest age*)."""
        if not AGE_WORDS.search(self.text) or _EXTREME.search(self.text):
            return ()
        return tuple(f for f in self.aggregates if f in ("maximum", "minimum"))

    @property
    def named_functions(self) -> tuple[str, ...]:
        """The aggregates the question names beyond a ranking's direction: *the highest
        average* names an average, *the highest* alone names no maximum."""
        return tuple(f for f in self.aggregates if f not in ("maximum", "minimum"))

    def names(self) -> tuple[str, ...]:
        """The cues present, by name (for the trace and the ranker's features)."""
        flags = ("yes_no", "count", "most", "least", "per_group", "negation", "columns", "value", "same")
        found = [name for name in flags if getattr(self, name)]
        found += ["window"] if self.window else []
        found += ["compare"] if self.compare else []
        found += ["contains"] if self.contains else []
        found += ["difference"] if self.difference else []
        found += ["share"] if self.share else []
        found += ["span"] if self.span else []
        return tuple(found + [f"aggregate:{a}" for a in self.aggregates])


def number_value(text: str) -> str:
    """A number the question writes, as digits.

    >>> [number_value(t) for t in ("1,200", "three", "10 million", "2.5 thousand")]
    ['1200', '3', '10000000', '2500']
    """
    if text in _WORD_NUMBERS:
        return str(_WORD_NUMBERS[text])
    digits, _, scale = text.replace(",", "").partition(" ")
    if scale in SCALES:
        value = float(digits) * SCALES[scale]
        return str(int(value)) if value.is_integer() else str(value)
    return digits


def _ordinal(digits: str | None, word: str | None) -> int:
    return int(digits) if digits else _ORDINALS[word or "first"]


def _window(text: str) -> tuple[int, int] | None:
    """The ranks a ranking keeps, as (offset, how many): *the 6th to 10th largest*, *the top
    5*, *the second busiest* (one, after the first).

    >>> [_window(t) for t in ("the 6th to 10th largest", "the top 5 cities", "the second busiest station",
    ...  "the third most populous city", "the second episode")]
    [(5, 5), (0, 5), (1, 1), (2, 1), None]
    """
    match = _WINDOW.search(text)
    if match:
        first, last = _ordinal(match.group(1), match.group(2)), _ordinal(match.group(3), match.group(4))
        if 1 <= first <= last:
            return first - 1, last - first + 1
    for ranked in _RANKED.finditer(text):
        rank = _ordinal(ranked.group(1), ranked.group(2))
        word = ranked.group(3)
        if rank > 1 and (word.startswith(("most ", "least ")) or _MOST.fullmatch(word) or _LEAST.fullmatch(word)):
            return rank - 1, 1
    top = _TOP.search(text)
    if top:
        keep = int(float(number_value(top.group(1))))
        return (0, keep) if 1 <= keep <= 100 else None
    return None


def _amount_asked(text: str) -> bool:
    """Whether *how many* asks an amount in a unit (*how many hours does a cow sleep*), which
    the graph keeps as a value, not a number of things.

    >>> _amount_asked("how many hours does a cow sleep"), _amount_asked("how many cows sleep")
    (True, False)
    """
    from nl2sparql.candidates.units import unit  # units reads cues' words

    match = _HOW_MANY_WHAT.search(text)
    return bool(match) and unit(match.group(1)) is not None


_HOW_MANY_WHAT = re.compile(r"\bhow many (\w+)")
#: *how many years older is A than B*, *how many inches taller*: a difference in a unit
_HOW_MANY_APART = re.compile(r"\bhow many (\w+) (?:more|less|fewer|\w{3,}er)\b(?: \S+)* than\b")
_TIME_UNITS = frozenset({"years", "months", "weeks", "days", "hours", "minutes", "seconds"})


def _amount_apart(text: str) -> bool:
    """Whether *how many* asks how far apart two amounts in a unit are (*how many years older
    is A than B*), not how many things compare so (*how many players taller than B*).

    >>> _amount_apart("how many years older is a than b"), _amount_apart("how many players taller than b are there")
    (True, False)
    """
    from nl2sparql.candidates.units import unit  # units reads cues' words

    match = _HOW_MANY_APART.search(text)
    return bool(match) and (match.group(1) in _TIME_UNITS or unit(match.group(1)) is not None)


def _placed(text: str) -> int:
    """The place a thing finished in, as a number (0: none written).

    >>> _placed("who finished second in season 7"), _placed("who placed 3rd"), _placed("who finished the race")
    (2, 3, 0)
    """
    match = _PLACED.search(text)
    return _ordinal(match.group(1), match.group(2)) if match else 0


def _comparison(text: str) -> tuple[tuple[str, str] | None, str, int]:
    """The comparison the question makes with a number, the word right after that number
    (*longer than 80 minutes*: a unit, or any other word), and the scale word it is written
    with (*above 150 billion dollars*: 10**9, which a graph keeping *billions of dollars* divides by).

    >>> _comparison("which tracks are longer than 80 minutes"), _comparison("which tracks are long")
    ((('greater than', '80'), 'minutes', 1), (None, '', 1))
    >>> _comparison("how many order lines made a negative profit"), _comparison("how many companies made a loss")
    ((('less than', '0'), '', 1), (('less than', '0'), '', 1))
    >>> _comparison("did the party gain house seats in 1995")[0], _comparison("which party gained seats")[0]
    (('greater than', '0'), None)
    >>> _comparison("which companies have sales above 150 billion dollars")
    (('greater than', '150000000000'), 'dollars', 1000000000)
    """
    for pattern, op in _COMPARE:
        match = pattern.search(text)
        if match:
            after = re.match(r"\s+([a-z]+)", text[match.end() :])
            scale = SCALES.get(match.group(1).rpartition(" ")[2], 1)
            return (op, number_value(match.group(1))), after.group(1) if after else "", scale
    sign = _SIGN.search(text)  # *a negative profit*: below zero
    if sign:
        return ("less than" if sign.group(1) == "negative" else "greater than", "0"), "", 1
    if _LOSS.search(text):
        return ("less than", "0"), "", 1
    if _YES_NO.search(text) and (changed := _GAINED.search(text)):  # *did the party gain seats*: a change above 0
        return ("greater than" if changed.group(1).startswith("gain") else "less than", "0"), "", 1
    return None, "", 1


def singular_word(word: str) -> str:
    """A word in the singular as the grounder reads plurals (*countries*: *country*).

    >>> singular_word("countries"), singular_word("status")
    ('country', 'status')
    """
    return singular(word) or word


def base_word(word: str) -> str:
    """A word as a name or a value may write it: singular, an irregular past as its verb.

    >>> base_word("episodes"), base_word("won")
    ('episode', 'win')
    """
    return present_of(word) or singular_word(word)


def pasts(word: str) -> tuple[str, ...]:
    """The pasts a question may write of a verb a graph's name holds as a word (the *order* of
    *order item*: *ordered*), for the ranker, which reads no ``kg`` module itself.

    >>> "ordered" in pasts("order"), pasts("win")
    (True, ('won',))
    """
    return past_forms(word)


def doers(word: str) -> set[str]:
    """Who does what a verb says (*survived*: *survivor*), for the ranker as :func:`pasts`.

    >>> "survivor" in doers("survived")
    True
    """
    return agent_nouns(word)


def read_cues(question: str, names: Sequence[tuple[int, int]] = ()) -> Cues:
    """The cues of ``question`` (any case). The words at ``names`` (character spans of the
    names of things the question names) open no operator: *the Best actor award* ranks
    nothing, *the 1st Academy Awards* is no first place; ``text`` keeps them.

    >>> question = "Who won the Best actor award?"
    >>> read_cues(question).most, read_cues(question, [(12, 22)]).most
    (True, False)
    >>> read_cues(question, [(12, 22)]).text
    'who won the best actor award'

    *How many more ... than* asks for a difference; it ranks nothing:

    >>> cues = read_cues("How many more threads than cores does the Ryzen 9 3950X have?")
    >>> cues.difference, cues.most, cues.group_rank, cues.against
    ('first', False, False, None)
    """
    if names:
        return replace(read_cues(_masked(question, names)), text=_words(question))
    text = " ".join(question.lower().split())
    compare, compare_unit, compare_scale = _comparison(text)
    amount = _amount_asked(text)  # *how many hours*: a value, not a count
    apart = _amount_apart(text)  # *how many years older*: two values apart, nothing counted
    contained, started = _contained(question), _started(question)
    bare = _BOUND.sub(" ", text)  # *at least 4*, *more than 100* rank nothing and name no minimum
    bare = _LOSS_RANKED.sub(r"lowest \1profit", bare)
    span = _span_asked(text)
    bare = re.sub(r"\blast\W*$", " ", bare) if span else bare  # *how long did it last*: a verb, no ranking
    difference = _difference(text)
    if difference:  # *how many more threads than cores*: a difference, no ranking, nothing compared
        bare = _HOW_MANY_MORE.sub(" ", bare)
    each_extreme = _each_extreme(bare)  # *with their highest wind speed*: each one's, no ranking
    ranked = bare[: each_extreme.start(1)] + bare[each_extreme.end(1) :] if each_extreme else bare
    return Cues(
        yes_no=bool(_YES_NO.search(text)),
        count=bool(_COUNT.search(text)) and not _HOW_MANY_MORE.search(text) and not amount and not apart,
        most=bool(_MOST.search(ranked)),
        least=bool(_LEAST.search(ranked)),
        window=_window(text),
        placed=_placed(text),
        compare=compare,
        compare_unit=compare_unit,
        compare_scale=compare_scale,
        aggregates=_aggregates(bare),
        per_group=bool(_GROUP.search(text)) or each_extreme is not None,
        negation=bool(_NEGATION.search(text)),
        columns=bool(_COLUMNS.search(text)),
        value=bool(_VALUE.search(text)) or amount,
        group_rank=bool(_GROUP_RANK.search(bare)),
        by_total=bool(_BY_TOTAL.search(text)),
        counted="" if apart else _counted(text),
        same=bool(_SAME.search(text)),
        contains=contained or started,
        starts=not contained and bool(started),
        things=bool(_THINGS.search(text)) and not _VALUE.search(text),
        person=bool(_WHO_ASKED.search(text)),
        difference=difference,
        share=_share(text),
        span=span,
        both=bool(re.search(r"\b(?:also|both)\b", text)),
        outranks=_outranks(text) if _YES_NO.search(text) and not compare else None,
        against=_outranks(text) if not _YES_NO.search(text) and not compare and not difference else None,
        text=_words(question),
    )


def _span_asked(text: str) -> bool:
    """Whether the question asks how long a thing went on.

    >>> _span_asked("how many years did the term of ronald reagan last"), _span_asked("how long is the nile")
    (True, False)
    """
    return bool(_HOW_LONG.search(text) and _LASTED.search(text))


def _each_extreme(text: str) -> re.Match[str] | None:
    """Where a list asks for each thing's greatest or least value (*the storms with their
    highest wind speed*): a maximum per thing, not a ranking of the things.

    >>> _each_extreme("list the storms with their highest wind speed").group(1)
    'highest'
    >>> _each_extreme("list the storms with the highest wind speed") is None
    True
    """
    match = WITH_THEIR.search(text)
    word = match.group(1) if match else None
    return match if word and (_MOST.fullmatch(word) or _LEAST.fullmatch(word)) else None


#: a list of things with values of theirs (the things are a column too), and the word after
WITH_THEIR = re.compile(r"\b(?:with|and|together with|along with) (?:their|its)\b(?: (\w+))?")


def _words(question: str) -> str:
    """The question's words, lower-cased, punctuation dropped (:attr:`Cues.text`)."""
    return " ".join(re.findall(r"\w+", question.lower()))


def _masked(question: str, spans: Sequence[tuple[int, int]]) -> str:
    """``question`` with each span (overlapping ones as one) written as one letter (*who won
    the X award*)."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        elif end > start:
            merged.append([start, end])
    for start, end in reversed(merged):
        question = question[:start] + "X" + question[end:]
    return question


_SHARE = re.compile(r"\b(?:what|which)\s+(percentage|percent|share|proportion|fraction)\s+of\b|\bhow many (percent)\b")
_HOW_MUCH = re.compile(r"\b(?:how much|difference between|how many more|how many fewer)\b")
_GROWTH = re.compile(
    r"\b(?:grow|grew|grown|increased?|rise|rose|risen|gain(?:ed)?|change[sd]?)\b.*\b(?:between|from)\b"
)
_DECLINE = re.compile(r"\b(?:fall|fell|fallen|drop(?:ped)?|decreased?|declined?|shrink|shrank)\b.*\b(?:between|from)\b")
_THINGS = re.compile(
    r"(?:^|, )(?:(?:in|of|from|to|at|on|for|by|with) )?(?:which|who|whom)\b(?! (?:year|date|number|amount)s?\b)"
    r"|^(?:list|name|show|give)(?: me)?(?: all)?(?: of)?(?: the)? (?!(?:year|date|number|amount|name|title)s\b)\w+s\b"
)
_WHO_ASKED = re.compile(r"^(?:(?:to|by|with|for|from|of) )?(?:who|whom)\b")
_SAME = re.compile(r"\b(?:same|shares?|sharing|in common with|like)\b.*\b(?:as|with)\b|\bother than\b|\bbesides\b")
#: *what is the shortest air time of any flight*: a superlative of an attribute named before *of*
#: *what is the shortest X of*, *... X ever recorded*: a value, not a thing that holds it
_VALUE_SUPERLATIVE = re.compile(
    r"^what (?:is|was|are|were) the (\w+(?: north| east| south| west)?)(?: \w+){1,3}"
    r" (?:of\b|(?:ever )?(?:recorded|measured|observed|reported|seen)\b)"
)
#: what is counted: one or two words, not a verb that asks (*how many wins does each country have*)
_COUNTED = re.compile(
    r"\b(?:how many|number of|the most|the fewest|most|fewest)\s+"
    r"((?:[\w-]+\s+(?!(?:do|does|did|is|are|was|were|has|have|had)\b))?[\w-]+)"
)


#: comparatives of more (any other word in *-er* right before *than* is one too)
_GREATER = (
    "more", "higher", "larger", "bigger", "greater", "taller", "older", "heavier", "longer", "wider", "deeper",
    "faster", "richer", "stronger", "later", "warmer", "hotter", "busier",
)  # fmt: skip
_FEWER = ("less", "fewer", "lower", "smaller", *_LESSER)
_THAN = re.compile(rf"\b({'|'.join(_GREATER + _FEWER)})\b(?: \S+){{0,8}} than\b|\b(\w{{2,}}er) than\b")


def _outranks(text: str) -> str | None:
    """The comparison a question makes between two things with *than* and no number.

    >>> [_outranks(t) for t in ("did a have more passengers than b", "is a younger than b", "is a taller than b",
    ...  "is a other than b", "was the winner younger than b", "how much higher was the population of a than b")]
    ['greater than', 'less than', 'greater than', None, 'less than', 'greater than']
    """
    match = _THAN.search(text)
    word = match and (match.group(1) or match.group(2))
    if not word or word in ("other", "rather", "either", "neither", "whether"):
        return None
    return "less than" if word in _FEWER else "greater than"


def _share(text: str) -> str | None:
    """Whether the question asks what share of some things another reading keeps.

    >>> [_share(t) for t in ("what percentage of order lines were shipped first class",
    ...  "what share of the tracks are rock", "which tracks are rock")]
    ['percentage', 'fraction', None]
    """
    match = _SHARE.search(text)
    return None if match is None else "percentage" if match.group(1).startswith("percent") else "fraction"


def _difference(text: str) -> str | None:
    """Which way a difference the question asks for goes, or ``None`` (see :attr:`Cues.difference`).

    >>> [_difference(t) for t in ("by how much did it grow between 1952 and 2007",
    ...  "how much did it fall from 1990 to 2000", "what is the difference between a and b",
    ...  "how much did it cost", "how much taller is a than b", "how many fewer goals did a score than b",
    ...  "how much more horsepower does the amc ambassador brougham have than the datsun 310",
    ...  "how many years older is a than b", "how many players taller than 80 inches are there")]
    ['later', 'first', 'first', None, 'first', 'later', 'first', 'first', None]
    """
    if not (_HOW_MUCH.search(text) or _amount_apart(text)):
        return None
    if _GROWTH.search(text):
        return "later"
    if _DECLINE.search(text) or "difference between" in text:
        return "first"
    compared = _outranks(text)  # *how much taller is A than B*: A minus B; *how many fewer*: B minus A
    return None if compared is None else "later" if compared == "less than" else "first"


def _aggregates(text: str) -> tuple[str, ...]:
    """The aggregates the question names; *what is the shortest X of* asks for the least value
    as *what is the lowest X of* does (*what is the longest track* asks for a track); a window
    (*the five airports with the highest ...*) keeps things, so it names no maximum or minimum.

    >>> _aggregates("what is the shortest air time of any flight"), _aggregates("what is the longest track")
    (('minimum',), ())
    >>> _aggregates("what is the longest hindfoot length recorded")
    ('maximum',)
    >>> _aggregates("the five airports with the highest altitude")
    ()
    """
    found = [name for pattern, name in _AGGREGATES if pattern.search(text)]
    value = _VALUE_SUPERLATIVE.match(text)
    word = value.group(1) if value and value.group(1) not in ("first", "last", "more") else ""
    if _MOST.fullmatch(word):
        found.append("maximum")
    elif _LEAST.fullmatch(word):
        found.append("minimum")
    if _window(text) or _HELD_EXTREME.search(text):  # *the member with the highest salary*: a ranking
        found = [name for name in found if name not in ("maximum", "minimum")]
    return tuple(dict.fromkeys(found))


#: a superlative a thing holds (*the faculty member with the highest salary*): it ranks the
#: things, no maximum of the value is asked
_HELD_EXTREME = re.compile(
    r"\b(?:with|has|have|had|whose) the (?:maximum|highest|largest|biggest|minimum|lowest|smallest|least)\b"
)


def _counted(text: str) -> str:
    """The one or two words after *how many*, *number of*, *the most* (what is counted).

    >>> _counted("how many wins does each country have"), _counted("how many home runs did harper hit")
    ('wins', 'home runs')
    """
    match = _COUNTED.search(text)
    return match.group(1) if match else ""


def _started(question: str) -> str | None:
    """The letters a name (or another text) must begin with (*starting with N*).

    >>> _started("Which states have an abbreviation starting with N?"), _started("Which states start here?")
    ('n', None)
    """
    match = _STARTS.search(question)
    return match.group(1).lower() if match else None


_STARTS = re.compile(r"\b(?:start(?:s|ing)?|begin(?:s|ning)?) with (?:the letters? |an? )?['\"]?([A-Za-z0-9]+)")


def _contained(question: str) -> str | None:
    """The word a name (or another text) must contain: quoted (``'night'``), or *contains X*,
    *with X in their name*, *have X in their place*.

    >>> _contained("How many stations have Porte in their name?"), _contained("Which tracks contain love")
    ('porte', 'love')
    >>> _contained("Which winners have the surname Fonda?"), _contained("What is the last name of Bob?")
    ('fonda', None)
    """
    match = _QUOTED.search(question)
    if match is None:
        return None
    word = next(group for group in match.groups() if group)
    return word.strip().lower() or None
