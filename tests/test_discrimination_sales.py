"""The agent on a small sales database (issue 40): orders known only by a number, a date and
a time, each pizza sold an unlabelled order item of a menu item (a pizza in a size, with a
price). *The three cheapest* ranks up from the least alone; *the date and time of order N*
reads the order date and the order time (columns named after their table) and finds no
year inside the order number; *ordered most often* counts the order items two edges away,
the regular past *ordered* written by the *order item*; *at what time* asks for a value,
and times of a day rank as dates do (*placed last on 2015-01-02*)."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/sales/"
MENU = (  # menu item, pizza, size, price
    ("margherita_S", "Margherita", "S", 9.5), ("margherita_L", "Margherita", "L", 14.0),
    ("funghi_S", "Funghi", "S", 10.0), ("funghi_M", "Funghi", "M", 12.5), ("funghi_L", "Funghi", "L", 15.5),
    ("diavola_L", "Diavola", "L", 17.0),
)  # fmt: skip
ORDERS = (  # number, date, time, menu items sold
    ("2015-000001", "2015-01-01", "11:38:36", ("margherita_S", "margherita_S")),
    ("2015-000002", "2015-01-01", "12:05:10", ("margherita_S", "funghi_S", "diavola_L")),
    ("2015-000003", "2015-01-02", "19:45:30", ("margherita_S", "margherita_S", "funghi_M")),
    ("2015-000004", "2015-01-02", "18:20:00", ("funghi_L", "margherita_L")),
)


def sales() -> str:
    """Four orders of nine pizzas sold, three pizzas in six menu items."""
    lines = [
        "@prefix s: <http://example.org/sales/schema#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        's:Order rdfs:label "order" . s:OrderItem rdfs:label "order item" .',
        's:MenuItem rdfs:label "menu item" . s:Pizza rdfs:label "pizza" .',
        's:inOrder rdfs:label "order" ; rdfs:domain s:OrderItem ; rdfs:range s:Order .',
        's:menuItem rdfs:label "menu item" ; rdfs:domain s:OrderItem ; rdfs:range s:MenuItem .',
        's:pizza rdfs:label "pizza" ; rdfs:domain s:MenuItem ; rdfs:range s:Pizza .',
        's:price rdfs:label "price in dollars" ; rdfs:domain s:MenuItem ; rdfs:range xsd:decimal .',
        's:size rdfs:label "size" ; rdfs:domain s:MenuItem ; rdfs:range xsd:string .',
        's:orderNumber rdfs:label "order number" ; rdfs:domain s:Order ; rdfs:range xsd:string .',
        's:orderDate rdfs:label "order date" ; rdfs:domain s:Order ; rdfs:range xsd:date .',
        's:orderTime rdfs:label "order time" ; rdfs:domain s:Order ; rdfs:range xsd:time .',
    ]
    for pizza in sorted({m[1] for m in MENU}):
        lines.append(f'<{A}pizza/{pizza}> a s:Pizza ; rdfs:label "The {pizza} Pizza" .')
    for item, pizza, size, price in MENU:
        lines.append(
            f'<{A}menu/{item}> a s:MenuItem ; rdfs:label "The {pizza} Pizza ({size})" ; s:pizza <{A}pizza/{pizza}> ; '
            f's:size "{size}" ; s:price "{price}"^^xsd:decimal .'
        )
    sold = 0
    for number, date, time, items in ORDERS:
        lines.append(
            f'<{A}order/{number}> a s:Order ; s:orderNumber "{number}" ; s:orderDate "{date}"^^xsd:date ; '
            f's:orderTime "{time}"^^xsd:time .'
        )
        for item in items:
            sold += 1
            order, menu = f"<{A}order/{number}>", f"<{A}menu/{item}>"
            lines.append(f"<{A}item/{sold}> a s:OrderItem ; s:inOrder {order} ; s:menuItem {menu} .")
    return "\n".join(lines) + "\n"


#: questions whose first candidate must answer right
SALES_FIRST = [
    ("What are the three cheapest menu items?", {f"{A}menu/margherita_S", f"{A}menu/funghi_S", f"{A}menu/funghi_M"}),
    ("What are the date and time of order 2015-000002?", {"2015-01-01", "12:05:10"}),
    # six margheritas sold from two menu items; funghi has three menu items, sold three times
    ("Which pizza was ordered most often?", {f"{A}pizza/Margherita"}),
    ("At what time was order 2015-000004 placed?", {"18:20:00"}),  # a value asked: the time, not the order
    # times of a day rank (the later order has the smaller number)
    ("Which order was placed last on 2015-01-02?", {f"{A}order/2015-000003"}),
]
IDS = ["cheapest-window", "table-named-columns", "ordered-most-often", "what-time", "last-by-time"]

till = graph_fixture("till", "sales", sales)


@pytest.mark.parametrize(("question", "gold"), SALES_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(till: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(till, question, gold)
