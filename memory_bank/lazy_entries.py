"""Bank entries read from their ``statements.jsonl`` lines when first used.

A fresh ``nl2sparql ask`` loads the default bank (77,000 statements) to recall a few
dozen of them; parsing every line and making every
:class:`~nl2sparql.memory_bank.statement.Statement` on load cost it 0.9 s of its start-up.
The archive's checksums are still verified on load; a line is parsed and checked when its
entry is first read, and a line that is not JSON, or not an entry of its section, raises a
:class:`BankFormatError` naming the line then.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar, overload

from nl2sparql.memory_bank.errors import BankFormatError
from nl2sparql.memory_bank.statement import entry_section

E = TypeVar("E")


class LazyEntries(Sequence[E], Generic[E]):
    """The entries of numbered lines of one section, each made by ``make(record, spot)`` when first read."""

    __slots__ = ("_lines", "_where", "_section", "_make", "_made")

    def __init__(
        self, lines: list[tuple[int, str]], where: str, section: str, make: Callable[[Mapping[str, Any], str], E]
    ) -> None:
        self._lines, self._where, self._section, self._make = lines, where, section, make
        self._made: list[E | None] = [None] * len(lines)

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, index: int) -> E: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[E, ...]: ...
    def __getitem__(self, index: int | slice) -> E | tuple[E, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        entry = self._made[index]
        if entry is None:  # two threads may both make it: the same value, either is kept
            entry = self._made[index] = self._entry(*self._lines[index])
        return entry

    def _entry(self, number: int, line: str) -> E:
        spot = f"{self._where} line {number}"
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise BankFormatError(f"{spot}: not JSON ({exc.args[0]})") from exc
        if entry_section(record, spot) != self._section:
            raise BankFormatError(f"{spot}: a {self._section} entry was expected here")
        return self._make(record, spot)

    def __iter__(self) -> Iterator[E]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or len(self) != len(other):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyEntries({len(self)} {self._section} entries)"
