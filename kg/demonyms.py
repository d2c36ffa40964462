"""Country adjectives to the names of their countries: *French* -> *France*.

A question says *the French company with the highest market value* where the graph labels
the country *France*. The linker's suffix rules derive the regular adjectives (*Japanese* ->
*Japan*, *Canadian* -> *Canada*); the irregular ones (*French*, *Dutch*, *Swiss*, *British*,
*American*) need a table, which the registry package ``countryinfo`` (MIT) keeps for 250
countries and territories.
"""

from __future__ import annotations

import re
from functools import cache

from nl2sparql.kg.label_index import normalize

#: alternative spellings that are codes (*US*, *GBR*), which would match ordinary words
_CODE = re.compile(r"[A-Z]{2,3}")


@cache
def country_names() -> dict[str, tuple[str, ...]]:
    """Each adjective, normalised (*french*), to the normalised names of its countries
    (*france*, *french republic*, ...), the country's own name first.

    >>> country_names()["dutch"][:2], "united states" in country_names()["american"]
    (('netherlands', 'holland'), True)
    """
    from countryinfo import CountryInfo

    table: dict[str, list[str]] = {}
    for info in CountryInfo.all().values():
        demonym = info.get("demonym") or ""
        if not demonym:
            continue
        spellings = [s for s in info.get("altSpellings") or () if not _CODE.fullmatch(s)]
        names = table.setdefault(normalize(demonym), [])
        names += [n for n in map(normalize, (info.get("name") or "", *spellings)) if n and n not in names]
    return {adjective: tuple(names) for adjective, names in table.items()}
