"""The Freebase schema (GrailQA's ontology files) as fast look-ups for CVT-aware decomposition.

The memory bank cuts a query into statements that start and end at named (topic) nodes and
pass through CVT (compound value type, "mediator") nodes. Whether a node is a CVT follows
from its type, and its type from the predicates around it: the domain of a predicate
it is the subject of, the range of one it is the object of. Freebase marks named types as
subclasses of ``common.topic``; a CVT type is one that is not (measured on ``fb_types``:
``people.marriage``, ``film.performance``, ``government.government_position_held``,
``people.sibling_relationship`` are not subclasses; ``people.person``, ``film.film`` are).

The files are read once per folder (``load_schema`` is cached). Two lines of ``fb_types``
and two of ``fb_roles`` lost their newline in the release and are glued to the next line;
the reader splits them again from the known type names instead of dropping them.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from nl2sparql.errors import Nl2SparqlError

NS = "http://rdf.freebase.com/ns/"
TOPIC = "common.topic"
SUBCLASS = "meta.subclassOf"
# Value types (literals) and Freebase's own system types: never a CVT, never a topic.
VALUE_TYPE_PREFIX = "type."
# ``location.mailing_address`` is a mediator in Freebase (an address has no name of its own)
# but ``fb_types`` lists it under common.topic; the data README records the exception.
CVT_OVERRIDES: frozenset[str] = frozenset({"location.mailing_address"})


class SchemaError(Nl2SparqlError):
    """The Freebase ontology folder or one of its files is missing or unreadable."""


@dataclass(frozen=True, slots=True)
class Role:
    """Domain and range of one Freebase property (``fb_roles``: ``domain relation range``)."""

    domain: str
    range: str


def local_name(term: str) -> str:
    """``ns:people.person.gender``, ``<http://rdf.freebase.com/ns/people.person.gender>`` or the
    full IRI -> ``people.person.gender``; anything else comes back unchanged."""
    term = term.strip()
    if term.startswith("<") and term.endswith(">"):
        term = term[1:-1]
    if term.startswith(NS):
        return term[len(NS) :]
    if term.startswith("ns:"):
        return term[3:]
    return term


class FreebaseSchema:
    """Domain / range / reverse of predicates and the CVT judgement of types."""

    def __init__(
        self,
        roles: dict[str, Role],
        parents: dict[str, frozenset[str]],
        reverse: dict[str, str],
    ) -> None:
        self._roles = roles
        self._parents = parents
        self._reverse = reverse
        self._incoming: Counter[str] | None = None
        self._pairs: Counter[tuple[str, str]] | None = None
        self._types: frozenset[str] = frozenset(
            {r.domain for r in roles.values()} | {r.range for r in roles.values()} | set(parents)
        )

    # -- loading -------------------------------------------------------------------------------

    @classmethod
    def from_folder(cls, folder: Path) -> FreebaseSchema:
        folder = Path(folder)
        files = {name: folder / name for name in ("fb_roles", "fb_types", "reverse_properties")}
        for name, path in files.items():
            if not path.is_file():
                raise SchemaError(f"missing Freebase ontology file {path} ({name}; GrailQA release)")
        roles = _read_roles(files["fb_roles"])
        known = {r.domain for r in roles.values()} | {r.range for r in roles.values()}
        parents = _read_types(files["fb_types"], known)
        reverse = _read_reverse(files["reverse_properties"])
        extra = folder / "full_reverse_properties.json"
        if extra.is_file():
            try:
                full = json.loads(extra.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise SchemaError(f"{extra}: not readable JSON ({exc})") from exc
            for key, value in full.items():
                reverse.setdefault(key, value)
                reverse.setdefault(value, key)
        return cls(roles, parents, reverse)

    # -- predicates ----------------------------------------------------------------------------

    def role(self, predicate: str) -> Role | None:
        return self._roles.get(local_name(predicate))

    def domain(self, predicate: str) -> str | None:
        """The type of a predicate's subject (``fb_roles``), or ``None`` when the schema lacks it."""
        role = self._roles.get(local_name(predicate))
        return role.domain if role else None

    def range(self, predicate: str) -> str | None:
        """The type of a predicate's object, or ``None`` when the schema lacks it."""
        role = self._roles.get(local_name(predicate))
        return role.range if role else None

    def reverse(self, predicate: str) -> str | None:
        """The property that states the same fact from the other end (``reverse_properties``)."""
        return self._reverse.get(local_name(predicate))

    def has_predicate(self, predicate: str) -> bool:
        return local_name(predicate) in self._roles

    def leads_into_cvt(self, predicate: str) -> bool:
        """True when the predicate's object is a CVT (``people.person.sibling_s``)."""
        rng = self.range(predicate)
        return rng is not None and self.is_cvt_type(rng) is True

    def leads_out_of_cvt(self, predicate: str) -> bool:
        """True when the predicate's subject is a CVT (``people.sibling_relationship.sibling``)."""
        dom = self.domain(predicate)
        return dom is not None and self.is_cvt_type(dom) is True

    # -- types ---------------------------------------------------------------------------------

    def knows_type(self, type_id: str) -> bool:
        return local_name(type_id) in self._types

    def parents(self, type_id: str) -> frozenset[str]:
        return self._parents.get(local_name(type_id), frozenset())

    def is_value_type(self, type_id: str) -> bool:
        """Literal and system types (``type.int``, ``type.datetime``, ``type.text``...)."""
        return local_name(type_id).startswith(VALUE_TYPE_PREFIX)

    def is_topic_type(self, type_id: str) -> bool:
        type_id = local_name(type_id)
        return type_id == TOPIC or (TOPIC in self.parents(type_id) and type_id not in CVT_OVERRIDES)

    def is_cvt_type(self, type_id: str) -> bool | None:
        """True for a mediator type, False for a named or value type, None for a type the schema lacks."""
        type_id = local_name(type_id)
        if type_id in CVT_OVERRIDES:
            return True
        if not self.knows_type(type_id):
            return None
        if self.is_value_type(type_id) or type_id == TOPIC:
            return False
        return TOPIC not in self.parents(type_id)

    def incoming(self, type_id: str) -> int:
        """How many relations lead into a type (their range): a CVT type that hundreds lead
        into (``measurement_unit.dated_integer``) is a hub, named by the relation, not the type."""
        if self._incoming is None:
            self._incoming = Counter(role.range for role in self._roles.values())
        return self._incoming.get(local_name(type_id), 0)

    def parallel(self, predicate: str) -> int:
        """How many relations share this one's domain and range (``co2_emissions_total``,
        ``co2_emissions_commercial``...: statistical region -> CO2 emission); 0 when unknown."""
        if self._pairs is None:
            self._pairs = Counter((role.domain, role.range) for role in self._roles.values())
        role = self.role(predicate)
        return self._pairs.get((role.domain, role.range), 0) if role else 0

    def cvt_types(self) -> frozenset[str]:
        return frozenset(t for t in self._types if self.is_cvt_type(t))

    def predicates(self) -> Iterator[tuple[str, Role]]:
        return iter(self._roles.items())

    def __len__(self) -> int:
        return len(self._roles)


@functools.lru_cache(maxsize=4)
def _load(folder: str) -> FreebaseSchema:
    return FreebaseSchema.from_folder(Path(folder))


def load_schema(folder: Path | str | None = None) -> FreebaseSchema:
    """The schema from ``folder`` (default: ``<data>/freebase-ontology``), read once per folder."""
    if folder is None:
        from nl2sparql.config import data_file

        folder = data_file("freebase-ontology/fb_roles").parent
    return _load(str(Path(folder).resolve()))


# -- readers -------------------------------------------------------------------------------------


def _lines(path: Path) -> Iterator[tuple[int, list[str]]]:
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                tokens = [t for t in line.split() if t != "."]
                if tokens:
                    yield number, tokens
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemaError(f"{path}: cannot read ({exc})") from exc


def _split_glued(token: str, known: Iterable[str], tail: str | None = None) -> tuple[str, str] | None:
    """Split ``common.topicbase.x.y`` (two names that lost the newline between them)."""
    token = token.lstrip(".")
    if tail and token.endswith(tail) and len(token) > len(tail):
        return token[: -len(tail)], tail
    known_set = known if isinstance(known, (set, frozenset)) else set(known)
    for cut in range(len(token) - 1, 0, -1):
        head, rest = token[:cut], token[cut:].lstrip(".")
        if head in known_set and rest:
            return head, rest
    return None


def _read_roles(path: Path) -> dict[str, Role]:
    records: list[list[str]] = []
    glued: list[list[str]] = []
    for _, tokens in _lines(path):
        (records if len(tokens) == 3 else glued).append(tokens)
    roles = {rel: Role(dom, rng) for dom, rel, rng in records}
    known = {r.domain for r in roles.values()} | {r.range for r in roles.values()}
    for tokens in glued:
        if len(tokens) != 5:
            continue
        d1, r1, middle, r2, rng2 = tokens
        split = _split_glued(middle, known, tail=r2.rsplit(".", 1)[0])
        if split:
            roles.setdefault(r1, Role(d1, split[0]))
            roles.setdefault(r2, Role(split[1], rng2))
    return roles


def _read_types(path: Path, known: set[str]) -> dict[str, frozenset[str]]:
    pairs: list[tuple[str, str]] = []
    glued: list[list[str]] = []
    for _, tokens in _lines(path):
        if len(tokens) == 3 and tokens[1] == SUBCLASS:
            pairs.append((tokens[0].lstrip("."), tokens[2].lstrip(".")))
        else:
            glued.append(tokens)
    names = known | {c for c, _ in pairs} | {p for _, p in pairs}
    for tokens in glued:
        marks = [i for i, t in enumerate(tokens) if t == SUBCLASS]
        if len(marks) != 2 or marks[0] != 1 or marks[1] != len(tokens) - 2:
            continue
        middle = tokens[2 : marks[1]]
        if len(middle) == 2:
            parent, child = middle[0], middle[1].lstrip(".")
        elif len(middle) == 1 and (split := _split_glued(middle[0], names)):
            parent, child = split
        else:
            continue
        pairs += [(tokens[0], parent), (child, tokens[-1])]
    parents: dict[str, set[str]] = {}
    for child, parent in pairs:
        parents.setdefault(child, set()).add(parent)
    return {child: frozenset(ps) for child, ps in parents.items()}


def _read_reverse(path: Path) -> dict[str, str]:
    reverse: dict[str, str] = {}
    for _, tokens in _lines(path):
        if len(tokens) == 2:
            reverse.setdefault(tokens[0], tokens[1])
            reverse.setdefault(tokens[1], tokens[0])
    return reverse
