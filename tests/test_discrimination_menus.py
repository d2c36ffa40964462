"""The agent on a small nutrition table of three bakeries (issue 40): products labelled by name
(one name at two shops; one name with a mark, *Croissant®*) with their shop and their
calories, sugar, sodium, fat and calories from fat. *How many calories* asks the number kept, not a count;
*products* names the class *bakery product* by its head noun; a name is met without the
mark it ends with; a share of a shop's products passing a number is of that shop's
products; shops are kept, or left out, by any one product past a number (*sell a product
with more than 40 grams of sugar*, *have no product with more than 500 calories*); *how
much sugar and fat* asks two columns."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/bakery/"
SHOPS = {"crumbs": "Crumbs", "loaf": "Daily Loaf", "plum": "Sugarplum"}
PRODUCTS = (  # shop, name, calories, sugar in grams, sodium in milligrams, fat in grams
    ("crumbs", "Croissant®", 300, 6, 320, 17),
    ("crumbs", "Scone", 420, 18, 510, 20),
    ("crumbs", "Cinnamon Roll", 560, 32, 400, 24),
    ("crumbs", "Rye Bread", 160, 2, 380, 1),
    ("loaf", "Bagel", 280, 5, 450, 2),
    ("loaf", "Scone", 380, 15, 480, 18),
    ("loaf", "Baguette", 240, 1, 550, 1),
    ("plum", "Eclair", 262, 24, 210, 16),
    ("plum", "Cheesecake", 610, 45, 430, 43),
    ("plum", "Macaron", 90, 12, 20, 4),
)


def bakery_menus() -> str:
    """Ten products of three shops."""
    lines = [
        "@prefix s: <http://example.org/bakery/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Shop rdfs:label "shop" . s:BakeryProduct rdfs:label "bakery product" .',
        's:shop rdfs:label "shop" ; rdfs:domain s:BakeryProduct ; rdfs:range s:Shop .',
        's:calories rdfs:label "calories" ; rdfs:domain s:BakeryProduct ; rdfs:range xsd:integer .',
        's:sugar rdfs:label "sugar in grams" ; rdfs:domain s:BakeryProduct ; rdfs:range xsd:integer .',
        's:sodium rdfs:label "sodium in milligrams" ; rdfs:domain s:BakeryProduct ; rdfs:range xsd:integer .',
        's:fat rdfs:label "fat in grams" ; rdfs:domain s:BakeryProduct ; rdfs:range xsd:integer .',
        's:fatCalories rdfs:label "calories from fat" ; rdfs:domain s:BakeryProduct ; rdfs:range xsd:integer .',
    ]
    lines += [f'<{A}shop/{code}> a s:Shop ; rdfs:label "{name}" .' for code, name in SHOPS.items()]
    for number, (shop, name, calories, sugar, sodium, fat) in enumerate(PRODUCTS, 1):
        lines.append(
            f'<{A}product/{number}> a s:BakeryProduct ; rdfs:label "{name}" ; s:shop <{A}shop/{shop}> ; '
            f"s:calories {calories} ; s:sugar {sugar} ; s:sodium {sodium} ; s:fat {fat} ; s:fatCalories {fat * 9} ."
        )
    return "\n".join(lines) + "\n"


def _shops(*codes: str) -> set[str]:
    return {f"{A}shop/{code}" for code in codes}


#: questions whose first candidate must answer right
MENUS_FIRST = [
    ("How many calories does the Cinnamon Roll have?", {"560"}),
    ("How many products does each shop have?", _shops("crumbs", "loaf", "plum") | {"4", "3"}),
    ("How many more calories does the Croissant have than the Bagel?", {"20"}),
    ("What percentage of Crumbs products have more than 300 calories?", {"50"}),
    ("Which shops have no product with more than 500 calories?", _shops("loaf")),
    ("Which shops sell a product with more than 40 grams of sugar?", _shops("plum")),
    ("How much sugar and fat does the Cinnamon Roll have?", {"32", "24"}),
]
IDS = ["how-many-of-a-kept-number", "class-by-its-head-noun", "name-without-its-mark", "share-of-a-narrowed-whole",
       "none-past-a-number", "any-one-past-a-number", "how-much-two-columns"]  # fmt: skip

menus = graph_fixture("menus", "menus", bakery_menus)


@pytest.mark.parametrize(("question", "gold"), MENUS_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(menus: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(menus, question, gold)
