"""Assembly, the first stage of reconstruction: tie a plan's words to entities and statements.

A plan names things in words (``Find the sibling of the person Justin Bieber``) and the
memory holds statements with slots (``?e1 ns:people.person.sibling_s ?cvt . ?cvt
ns:people.sibling_relationship.sibling ?e2 .``). Before any pattern can be lowered to a
query, three questions need an answer, and they are answered here, without a model:

* which of the question's entities each mention means (:func:`resolve_plan`), matched by
  name case- and punctuation-insensitively; a mention that matches none is an
  :class:`EntityMatchError` that lists the entities the question has;
* what text to search the memory with for each step (:attr:`ResolvedFind.recall_sentence`,
  written in the memory's own form: ``?e2 is the sibling of the person ?e1``);
* how a recalled statement's slots map onto the step's inputs and output
  (:func:`bind_statement`), in the order its description names them.

Recalled statements arrive as plain data (:class:`Recalled`): the compiler never imports
the memory bank or an embedder.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from nl2sparql.compiler.ast import IRI, XSD, Literal, Node, TriplePattern, Var
from nl2sparql.compiler.dialects import FREEBASE
from nl2sparql.compiler.errors import SparqlSyntaxError
from nl2sparql.compiler.parser import parse_expression, parse_pattern
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.plan.refs import find_readings, find_text, split_find
from nl2sparql.plan.steps import Absent, Find, MakeSure, Mention, Plan, Ref, step_lines
from nl2sparql.plan.steps import Literal as PlanLiteral
from nl2sparql.plan.steps import Var as PlanVar

__all__ = [
    "BindError",
    "Entities",
    "EntityMatchError",
    "Label",
    "Recalled",
    "ResolvedFind",
    "ResolvedPlan",
    "absent_target",
    "bind_statement",
    "compact_term",
    "normalise_name",
    "resolve_plan",
]

#: prefixes a statement's SPARQL may use without declaring them
STATEMENT_PREFIXES: dict[str, str] = {"ns": FREEBASE, "xsd": XSD}
_SLOT = re.compile(r"\?e([1-9][0-9]*)\b")
_VARIABLE = re.compile(r"\?([A-Za-z_][A-Za-z0-9_]*)")
#: a Freebase id written as it is: ``m.0abc``, ``g.11b6_n6p_h``, a type ``tv.tv_character``
_FREEBASE_ID = re.compile(r"^(?:ns:)?([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)$")
_PLACEHOLDER = "\x00"
#: How alike (rapidfuzz ratio, 0-100) a misspelt mention must be to an entity's name to stand
#: for it. Measured on WebQSP part A with the default planner: its misspellings ("george
#: clemenceau", "denise vanenen", "sex and city") score 80-97; other words of a step seldom
#: pass 70 against a name of the question.
FUZZY_CUTOFF = 80
#: The same for a question with one entity, whose name a step that names none can only mean:
#: the planner garbles long names more ("pivzavokoye light" for "Pivzavod AO Vena Nevskoye
#: Light", ratio 71) than short ones, and there is no other name to take it for.
LONE_NAME_CUTOFF = 65
#: A run of at least this many words that begins a name is that name cut short ("king a filmed
#: record" for "King: A Filmed Record... Montgomery to Memphis"), however long the name.
CUT_SHORT_WORDS = 3
_WORD = re.compile(r"\S+")
_NOT_IN_NAME = re.compile(r'[?{}"]')

Term = Var | IRI | Literal


class EntityMatchError(Nl2SparqlError):
    """A mention in a plan step that names none of the question's entities."""

    def __init__(self, mention: str, known: Sequence[str], line: int | None = None) -> None:
        self.mention = mention
        self.known = tuple(known)
        self.line = line
        where = f"line {line}: " if line is not None else ""
        listing = "; ".join(self.known) if self.known else "none (the question has no entities)"
        super().__init__(f"{where}{mention!r} matches none of the question's entities: {listing}")


class BindError(Nl2SparqlError):
    """A recalled statement does not fit the step it was recalled for (wrong arity or kind)."""


@dataclass(frozen=True, slots=True)
class Recalled:
    """One recalled memory entry, as the compiler needs it.

    ``sparql`` uses the memory's slots (``?e1``, ``?e2``, ``?cvt``) and ``ns:`` names;
    ``constants`` are ``(term, label)`` pairs in the memory's compact term form
    (``ns:m.05zppz``, ``"Country"``, ``"1971"^^xsd:dateTime``).
    """

    id: str
    kind: str
    sparql: str
    inputs: tuple[str, ...] = ()
    output: str | None = None
    description: str = ""
    score: float = 0.0
    constants: tuple[tuple[str, str], ...] = ()
    support: int = 0

    def input_order(self) -> tuple[str, ...]:
        """The input slots in the order the description names them (the plan writes them so)."""
        named = tuple(dict.fromkeys(f"?e{n}" for n in _SLOT.findall(self.description)))
        named = tuple(s for s in named if s in self.inputs)
        return named if sorted(named) == sorted(self.inputs) else self.inputs


# -- names -------------------------------------------------------------------------------------


def normalise_name(text: str) -> str:
    """``"Beyoncé  Knowles!"`` -> ``"beyonce knowles"``: the key names are matched by."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    return " ".join(re.sub(r"[^\w]+|_", " ", plain).split())


def _entity_iri(entity_id: str, namespace: str) -> str:
    if entity_id.startswith(("http://", "https://")):
        return entity_id
    return namespace + entity_id.removeprefix("ns:").lstrip("/").replace("/", ".")


class Entities:
    """The question's entities ``{id: name}`` and the ways a plan may name them."""

    def __init__(self, entities: Mapping[str, str] | None, namespace: str = FREEBASE) -> None:
        self.namespace = namespace
        self.names: dict[str, str] = {}  # iri -> name
        self._by_key: dict[str, str] = {}
        for entity_id, name in (entities or {}).items():
            iri = _entity_iri(str(entity_id), namespace)
            self.names[iri] = str(name or "")
            key = normalise_name(str(name or ""))
            if key:
                self._by_key.setdefault(key, iri)

    def known(self) -> list[str]:
        """``Justin Bieber (m.06w2sn5)`` for each entity, for error messages."""
        return [f"{name or '(no name)'} ({iri.removeprefix(self.namespace)})" for iri, name in self.names.items()]

    def match(self, text: str) -> IRI | None:
        """The entity named exactly ``text`` (up to case, accents and punctuation), or a raw id."""
        iri = self._by_key.get(normalise_name(text))
        if iri is not None:
            return IRI(iri)
        raw = _FREEBASE_ID.match(text.strip())
        if raw and self.namespace == FREEBASE:
            return IRI(FREEBASE + raw.group(1))
        return None

    def closest(self, text: str, cutoff: float = FUZZY_CUTOFF) -> tuple[int, int, IRI] | None:
        """The run of whole words in ``text`` most like one entity's name, for a name the planner
        misspelt or cut short (``george clemenceau``, ``the location galapagos``), or ``None``
        when no run is as close as ``cutoff`` (:data:`FUZZY_CUTOFF`). Only for what matched
        nothing exactly.

        >>> Entities({"m.0hff8": "Georges Clémenceau"}).closest("the person george clemenceau")
        (11, 28, IRI(value='http://rdf.freebase.com/ns/m.0hff8'))
        """
        from rapidfuzz.fuzz import ratio

        keys = {iri: normalise_name(name) for iri, name in self.names.items()}
        runs = _word_runs(text, max((len(key.split()) + 2 for key in keys.values()), default=0))
        best: tuple[float, int, int, int, IRI] | None = None
        for iri, key in keys.items():
            for begin, end, size, window in runs:
                if not key or size > len(key.split()) + 2 or _loose_ends(window, key):
                    continue
                if window == key and text[begin:end] != self.names[iri].strip():
                    continue  # "the country of": a word of the step, not the entity Country
                score = ratio(window, key)
                if score < cutoff and key.startswith(window + " ") and _cut_short(window, key):
                    score = cutoff  # the name's first words: a long name cut short
                candidate = (score, end - begin, begin, end, IRI(iri))
                if score >= cutoff and (best is None or candidate[:2] > best[:2]):
                    best = candidate
        return None if best is None else (best[2], best[3], best[4])

    def match_tail(self, text: str) -> tuple[IRI, int] | None:
        """The entity whose name ends ``text`` (``the person Justin Bieber``) and where it starts."""
        starts = [0] + [m.end() for m in re.finditer(r"\s+", text)]
        for start in starts:
            iri = self.match(text[start:])
            if iri is not None and normalise_name(text[start:]):
                return iri, start
        return None

    def spans(self, text: str, folded: bool = True) -> list[tuple[int, int, IRI]]:
        """Non-overlapping whole-word occurrences of entity names in ``text``, longest names first.

        Spellings that match exactly are preferred; only when none does, and ``folded`` is
        set, are case and accents ignored (so the word "marriage" in a description is not
        the entity Marriage unless nothing else in the step could be its input).
        """
        for exact in (True, False) if folded else (True,):
            found = self._spans(text, exact)
            if found:
                return found
        return []

    def _spans(self, text: str, exact: bool) -> list[tuple[int, int, IRI]]:
        found: list[tuple[int, int, IRI]] = []
        haystack = text if exact else _fold(text)
        for iri, name in sorted(self.names.items(), key=lambda item: -len(item[1])):
            needle = name.strip() if exact else _fold(name.strip())
            if not needle or len(needle) != len(name.strip()):
                continue
            for m in re.finditer(re.escape(needle), haystack):
                begin, end = m.start(), m.end()
                if (begin > 0 and text[begin - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
                    continue
                if all(end <= b or begin >= e for b, e, _ in found):
                    found.append((begin, end, IRI(iri)))
        return sorted(found, key=lambda span: span[0])


def _cut_short(window: str, name: str) -> bool:
    """Whether ``window``, the first words of ``name``, is enough of it to stand for it."""
    return 2 * len(window) >= len(name) or len(window.split()) >= CUT_SHORT_WORDS


def _word_runs(text: str, most: int) -> list[tuple[int, int, int, str]]:
    """``(begin, end, words, normalised)`` of every run of 1 to ``most`` whole words of ``text``
    (trailing ``.,;:`` left out) that could be a name: no ``? { } "`` in it."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    runs = []
    for i, (begin, _) in enumerate(words):
        for j in range(i, min(len(words), i + most)):
            end = words[j][1]
            while end > begin and text[end - 1] in ".,;:":
                end -= 1
            window = normalise_name(text[begin:end])
            if window and not _NOT_IN_NAME.search(text[begin:end]):
                runs.append((begin, end, j - i + 1, window))
    return runs


#: words that join a step's words and seldom begin or end a name
_JOINING_WORDS = frozenset(["a", "an", "and", "at", "by", "for", "in", "is", "of", "on", "that", "the", "to", "with"])


def _loose_ends(window: str, name: str) -> bool:
    """Whether ``window`` begins or ends with a joining word that ``name`` does not
    (``galapagos is`` is no spelling of ``galapagos islands``)."""
    words, name_words = window.split(), name.split()
    return (words[0] in _JOINING_WORDS and words[0] != name_words[0]) or (
        words[-1] in _JOINING_WORDS and words[-1] != name_words[-1]
    )


def _fold(text: str) -> str:
    """Lower case without accents, one character per character (so offsets stay valid)."""
    out = []
    for char in text:
        base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)).lower()
        out.append(base if len(base) == 1 else char)
    return "".join(out)


# -- terms -------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def compact_term(text: str) -> Term:
    """A term in the memory's compact form (``ns:m.0x``, ``"1971"^^xsd:dateTime``, ``?e1``) as an AST term."""
    try:
        node = parse_expression(text, "sparql11", prefixes=STATEMENT_PREFIXES)
    except SparqlSyntaxError as exc:
        raise BindError(f"not a term: {text!r} ({exc})") from None
    if not isinstance(node, Var | IRI | Literal):
        raise BindError(f"not a term: {text!r}")
    return node


@functools.lru_cache(maxsize=8192)
def statement_triples(sparql: str) -> tuple[TriplePattern, ...]:
    """The triple patterns of a statement's SPARQL (``?e1 ns:p ?cvt . ?cvt ns:q ?e2 .``)."""
    try:
        group = parse_pattern(sparql, "sparql11", prefixes=STATEMENT_PREFIXES)
    except SparqlSyntaxError as exc:
        raise BindError(f"statement SPARQL does not parse: {exc}") from None
    return tuple(t for t in group.find_all(TriplePattern))


def substitute(node: Node, mapping: Mapping[str, Node]) -> Node:
    """``node`` with every variable named in ``mapping`` replaced."""

    def swap(n: Node) -> Node:
        return mapping.get(n.name, n) if isinstance(n, Var) else n

    return node.transform(swap)


# -- resolution --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Label:
    """A ``Make sure`` value that names no entity of the question: looked up among the memory's constants."""

    text: str


@dataclass(frozen=True, slots=True)
class ResolvedFind:
    """A ``Find`` step with its inputs as terms, in the order the sentence names them.

    ``template`` is the sentence with each input replaced by its slot (``the sibling of
    the person ?e1``), the form the memory's descriptions are written in.
    """

    index: int
    step: Find
    inputs: tuple[Term, ...]
    template: str

    @property
    def target(self) -> str:
        return self.step.target.name

    @property
    def recall_sentence(self) -> str:
        return f"?e{len(self.inputs) + 1} is {self.template}"


@dataclass(frozen=True, slots=True)
class ResolvedPlan:
    """A plan whose mentions are entities: the input of recall and of lowering."""

    plan: Plan
    finds: Mapping[int, ResolvedFind]
    values: Mapping[int, Term | Label]
    entities: Entities = field(compare=False)
    lines: tuple[int, ...] = ()

    def line(self, index: int) -> int:
        return self.lines[index] if index < len(self.lines) else index + 1

    def recall_requests(self) -> list[tuple[int, str, str]]:
        """``(step index, section, sentence)`` for every step the memory is searched for."""
        out: list[tuple[int, str, str]] = []
        for index, step in enumerate(self.plan.steps):
            if index in self.finds:
                out.append((index, "graph", self.finds[index].recall_sentence))
            elif isinstance(step, MakeSure) and step.op != "contains":  # a text match needs no memory
                out.append((index, "constraint", constraint_sentence(step, self.values[index])))
        return out


def constraint_sentence(step: MakeSure, value: Term | Label) -> str:
    """The memory's form of a ``Make sure`` step: ``Make sure ?e1 is Male``, ``... is before ?e2``."""
    if step.op == "holds during":
        return "Make sure ?e1 holds during ?e2"
    negation = "not " if step.negated else ""
    if step.op == "is":
        shown = value.text if isinstance(value, Label) else _value_text(step.value)
        return f"Make sure ?e1 is {negation}{shown}"
    return f"Make sure ?e1 is {negation}{step.op} ?e2"


def _value_text(ref: Ref) -> str:
    if isinstance(ref, PlanVar):
        return "?e2"
    if isinstance(ref, Mention):
        return ref.text
    return ref.value


def resolve_plan(plan: Plan, entities: Entities | Mapping[str, str] | None, lines: Sequence[int] = ()) -> ResolvedPlan:
    """Match every mention of ``plan`` against the question's entities.

    ``Find`` steps must name entities of the question (or a raw id such as ``m.0abc``);
    ``Make sure ?v is <name>`` may also name a constant the memory knows (``Country``), so
    an unmatched name there stays a :class:`Label` for lowering to look up. ``Make sure
    nothing is <description>`` is resolved (and recalled) as the ``Find`` of that
    description, whose target (:func:`absent_target`) lowering keeps to itself.
    """
    table = entities if isinstance(entities, Entities) else Entities(entities)
    line_of = tuple(lines) if lines else tuple(step_lines(plan))
    finds: dict[int, ResolvedFind] = {}
    values: dict[int, Term | Label] = {}
    for index, step in enumerate(plan.steps):
        line = line_of[index] if index < len(line_of) else None
        if isinstance(step, Find):
            finds[index] = _resolve_find(index, step, table, line)
        elif isinstance(step, Absent):
            finds[index] = _resolve_find(index, Find(step.description, step.refs, absent_target(index)), table, line)
        elif isinstance(step, MakeSure):
            values[index] = _resolve_value(step.value, table)
    return ResolvedPlan(plan, finds, values, table, line_of)


def absent_target(index: int) -> PlanVar:
    """The variable standing for what ``Make sure nothing is ...`` (step ``index``) finds
    nothing of: lowering renames it apart from every plan variable.

    >>> absent_target(2)
    Var(name='absent_2')
    """
    return PlanVar(f"absent_{index}")


def _resolve_value(ref: Ref, table: Entities) -> Term | Label:
    if isinstance(ref, PlanVar):
        return Var(ref.name)
    if isinstance(ref, PlanLiteral):
        return Literal(ref.value)  # typed by lowering, which knows what it is compared with
    iri = table.match(ref.text)
    return iri if iri is not None else Label(ref.text)


def _resolve_find(index: int, step: Find, table: Entities, line: int | None, snap: bool = True) -> ResolvedFind:
    """Inputs of a ``Find``: variables and literals as written, mentions matched to entities.

    Tried in order: the parser's reading of ``<description> of <refs>`` and its
    alternatives (:func:`find_readings`); a mention that is no name as a whole but holds
    names (``the person Justin Bieber``); entity names inside the description (``the
    championships won by the sports team Dallas Cowboys``); and last, once, the step with
    a misspelt name written as the entity's (:meth:`Entities.closest`).
    """
    unmatched: str | None = None
    for description, refs in find_readings(step):
        spans: list[tuple[int, int, Term]] = []
        text = description + (" of " if refs else "")
        ok = True
        for position, ref in enumerate(refs):
            if position:
                text += " and "
            start = len(text)
            if isinstance(ref, Mention):
                iri = table.match(ref.text)
                if iri is not None:
                    text += ref.text
                    spans.append((start, len(text), iri))
                else:
                    inner = _inner_spans(ref.text, table)
                    if not inner:
                        unmatched = unmatched or ref.text
                        ok = False
                        break
                    text += ref.text
                    spans += [(start + b, start + e, iri) for b, e, iri in inner]
            elif isinstance(ref, PlanVar):
                text += f"?{ref.name}"
                spans.append((start, len(text), Var(ref.name)))
            else:
                text += ref.value if ref.kind != "string" else f'"{ref.value}"'
                spans.append((start, len(text), Literal(ref.value)))
        if not ok:
            continue
        have_entity = any(isinstance(span[2], IRI) for span in spans)
        spans += _description_spans(description, table, have_entity, bool(spans))
        if not spans or (unmatched is not None and not any(isinstance(s[2], IRI) for s in spans)):
            break  # nothing to start from, or the mention the parser saw named no entity
        return _resolved(index, step, text, spans)
    snapped = _snapped(step, table) if snap else None
    if snapped is not None:
        try:
            return _resolve_find(index, snapped, table, line, snap=False)
        except EntityMatchError:
            pass
    raise EntityMatchError(unmatched or find_text(step), table.known(), line)


def _snapped(step: Find, table: Entities) -> Find | None:
    """``step`` with the words most like an entity's name replaced by that name, if any are
    (more loosely alike when the question has one entity: :data:`LONE_NAME_CUTOFF`)."""
    text = find_text(step)
    found = table.closest(text)
    if found is None and len(table.names) == 1:
        found = table.closest(text, LONE_NAME_CUTOFF)
    if found is None:
        return None
    begin, end, iri = found
    if _NOT_IN_NAME.search(table.names[iri.value]):
        return None
    description, refs = split_find(text[:begin] + table.names[iri.value] + text[end:])
    return Find(description, refs, step.target)


def _inner_spans(mention: str, table: Entities) -> list[tuple[int, int, IRI]]:
    """Entities named inside a mention that is no entity's name as a whole.

    ``the person Justin Bieber`` (a type word before the name) and ``the performance with
    special performance type Voice and character Lola Bunny`` (roles and names) both read
    as one mention after ``of``; the names in them are the inputs. A name that ends the
    mention is preferred (``match_tail``); otherwise every name spelt as in the question.
    """
    tail = table.match_tail(mention)
    found = table.spans(mention, folded=False)
    if tail is not None and len(found) <= 1:
        iri, offset = tail
        return [(offset, len(mention), iri)]
    return found


def _description_spans(
    description: str, table: Entities, have_entity: bool, have_inputs: bool
) -> list[tuple[int, int, Term]]:
    """Variables written in the description, and entity names when no ref named an entity."""
    spans: list[tuple[int, int, Term]] = []
    for m in _VARIABLE.finditer(description):
        if not any(b <= m.start() < e for b, e, _ in spans):
            spans.append((m.start(), m.end(), Var(m.group(1))))
    if not have_entity:
        blanked = _blank(description, spans)
        spans += [(b, e, iri) for b, e, iri in table.spans(blanked, folded=not (spans or have_inputs))]
    return spans


def _blank(text: str, spans: Sequence[tuple[int, int, object]]) -> str:
    chars = list(text)
    for begin, end, _ in spans:
        chars[begin:end] = [_PLACEHOLDER] * (end - begin)
    return "".join(chars)


def _resolved(index: int, step: Find, text: str, spans: list[tuple[int, int, Term]]) -> ResolvedFind:
    spans.sort(key=lambda span: span[0])
    inputs: list[Term] = []
    template = ""
    cursor = 0
    for begin, end, term in spans:
        template += text[cursor:begin] + f"?e{len(inputs) + 1}"
        inputs.append(term)
        cursor = end
    template += text[cursor:]
    return ResolvedFind(index, step, tuple(inputs), " ".join(template.split()))


# -- binding -----------------------------------------------------------------------------------


def _roles(text: str, slots: Sequence[str]) -> list[str]:
    """The word before each of ``slots`` in ``text`` (``with actor ?e1`` -> ``actor``)."""
    words = []
    for slot in slots:
        m = re.search(re.escape(slot) + r"\b", text)
        before = text[: m.start()].split() if m else []
        words.append(before[-1].lower() if before else "")
    return words


def _aligned(find: ResolvedFind, recalled: Recalled) -> tuple[str, ...]:
    """The statement's input slot for each input of ``find``, in the step's order.

    Inputs are matched by the word that introduces them (``with character ?e1 and actor
    ?e2`` against a step written ``with actor ?x and character Darth Vader``) when those
    words tell them apart, else by the order the sentence and the description name them.
    """
    order = recalled.input_order()
    if len(order) < 2 or len(order) != len(find.inputs):
        return order
    mine = _roles(find.template, [f"?e{k}" for k in range(1, len(find.inputs) + 1)])
    theirs = _roles(recalled.description, order)
    if len(set(mine)) == len(mine) and sorted(mine) == sorted(theirs):
        return tuple(order[theirs.index(word)] for word in mine)
    return order


def bind_statement(find: ResolvedFind, recalled: Recalled, cvt: str) -> tuple[TriplePattern, ...]:
    """The triples of ``recalled`` with its slots filled from ``find`` (the CVT named ``cvt``)."""
    if recalled.kind != "graph":
        raise BindError(f"{recalled.id} is a {recalled.kind} constraint, not a graph statement")
    order = _aligned(find, recalled)
    if len(order) != len(find.inputs):
        raise BindError(
            f"statement {recalled.id} takes {len(order)} input(s); step {find.index + 1} gives {len(find.inputs)}"
        )
    if recalled.output is None:
        raise BindError(f"statement {recalled.id} has no output slot")
    mapping: dict[str, Node] = {slot[1:]: term for slot, term in zip(order, find.inputs, strict=True)}
    mapping[recalled.output[1:]] = Var(find.target)
    mapping["cvt"] = Var(cvt)
    triples = tuple(substitute(t, mapping) for t in statement_triples(recalled.sparql))
    for t in triples:
        for term in (t.subject, t.object):
            if isinstance(term, Var) and _SLOT.fullmatch("?" + term.name):
                raise BindError(f"statement {recalled.id} uses slot ?{term.name}, which is neither input nor output")
    return triples  # type: ignore[return-value]
