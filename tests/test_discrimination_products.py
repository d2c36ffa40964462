"""The agent on a small catalogue of hardware products (issue 40): processors and drives as products of
manufacturers, microarchitectures, sockets and form factors as nodes, specifications as
numbers. Two values of one product named before their shared head are both read (*the read
and write speeds*), or subtracted (*how many more threads than cores*); a property named
with *of* is read whole (*number of threads*); *for each brand* groups the drives it counts;
*do not support NVMe* keeps the flag false; a near name around another's exact one is no
match (*Nova Disk make* is no *Nova Disk Black*); the class asked for keeps its place beside
two others; *which manufacturer makes the drive with the highest ...* reads the first
drive's manufacturer; the things counted are typed (*how many microarchitectures*); *in
2020* is a year dates hold, not a write speed of 2020; an average is taken over the things a
comparison keeps."""

from __future__ import annotations

import pytest
from test_discrimination import assert_first_candidate, graph_fixture

from nl2sparql.kg.store import Store
from nl2sparql.memory_bank.bank import MemoryBank

A = "http://example.org/catalogue/"
PROCESSORS = (  # name, maker, microarchitecture, socket, cores, threads, watts, released
    ("Ryzo 7", "Acme", "Zen", "AM4", 8, 16, 65, "2019-07-07"),
    ("Ryzo 5", "Acme", "Zen 2", "AM4", 6, 12, 65, "2021-03-01"),
    ("Ryzo 3U", "Acme", "Zen 2", "AM4", 4, 8, 15, "2020-01-06"),
    ("Corex 9", "Intex", "Lake", "LGA1200", 10, 20, 125, "2020-05-27"),
    ("Corex 3U", "Intex", "Lake", "LGA1200", 2, 4, 15, "2019-09-01"),
)
DRIVES = (  # name, maker, form factor, NVMe, read, write
    ("Nova Disk Black", "Nova Disk", "M.2", True, 3400, 2020),
    ("Nova Disk Blue", "Nova Disk", "2.5-inch", False, 550, 500),
    ("Nova Disk Green", "Nova Disk", "M.2", False, 560, 530),
    ("Bolt Rocket", "Bolt", "M.2", True, 5000, 4400),
    ("Bolt Classic", "Bolt", "2.5-inch", False, 540, 520),
    ("Intex 660", "Intex", "M.2", True, 1800, 1700),
)


def node(kind: str, name: str) -> str:
    return f"<{A}{kind}/{name.replace(' ', '_')}>"


def catalogue() -> str:
    """Five processors and six drives of four manufacturers, with an ontology."""
    lines = [
        "@prefix o: <http://example.org/catalogue/ontology#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        'o:Manufacturer rdfs:label "manufacturer" . o:Product rdfs:label "product" .',
        'o:Processor rdfs:label "processor" ; rdfs:subClassOf o:Product .',
        'o:Drive rdfs:label "solid-state drive" ; rdfs:subClassOf o:Product .',
        'o:Arch rdfs:label "microarchitecture" . o:Socket rdfs:label "CPU socket" .',
        'o:Form rdfs:label "form factor" .',
        'o:maker rdfs:label "manufacturer" ; rdfs:domain o:Product ; rdfs:range o:Manufacturer .',
        'o:arch rdfs:label "code name" ; rdfs:domain o:Processor ; rdfs:range o:Arch .',
        'o:socket rdfs:label "socket" ; rdfs:domain o:Processor ; rdfs:range o:Socket .',
        'o:cores rdfs:label "number of cores" ; rdfs:domain o:Processor ; rdfs:range xsd:integer .',
        'o:threads rdfs:label "number of threads" ; rdfs:domain o:Processor ; rdfs:range xsd:integer .',
        'o:tdp rdfs:label "thermal design power in watts" ; rdfs:domain o:Processor ; rdfs:range xsd:integer .',
        'o:released rdfs:label "release date" ; rdfs:domain o:Processor ; rdfs:range xsd:date .',
        'o:form rdfs:label "form factor" ; rdfs:domain o:Drive ; rdfs:range o:Form .',
        'o:nvme rdfs:label "NVMe" ; rdfs:domain o:Drive ; rdfs:range xsd:boolean .',
        'o:read rdfs:label "sequential read speed in MB/s" ; rdfs:domain o:Drive ; rdfs:range xsd:integer .',
        'o:write rdfs:label "sequential write speed in MB/s" ; rdfs:domain o:Drive ; rdfs:range xsd:integer .',
    ]
    named = {("manufacturer", "Manufacturer", m) for m in ("Acme", "Intex", "Nova Disk", "Bolt")}
    named |= {("arch", "Arch", p[2]) for p in PROCESSORS} | {("socket", "Socket", p[3]) for p in PROCESSORS}
    named |= {("form", "Form", d[2]) for d in DRIVES}
    lines += [f'{node(kind, name)} a o:{cls} ; rdfs:label "{name}" .' for kind, cls, name in sorted(named)]
    for name, maker, arch, socket, cores, threads, watts, released in PROCESSORS:
        lines.append(
            f'{node("processor", name)} a o:Processor ; rdfs:label "{name}" ; o:maker {node("manufacturer", maker)} ; '
            f"o:arch {node('arch', arch)} ; o:socket {node('socket', socket)} ; o:cores {cores} ; "
            f'o:threads {threads} ; o:tdp {watts} ; o:released "{released}"^^xsd:date .'
        )
    for name, maker, form, nvme, read, write in DRIVES:
        lines.append(
            f'{node("drive", name)} a o:Drive ; rdfs:label "{name}" ; o:maker {node("manufacturer", maker)} ; '
            f"o:form {node('form', form)} ; o:nvme {str(nvme).lower()} ; o:read {read} ; o:write {write} ."
        )
    return "\n".join(lines) + "\n"


def iri(kind: str, name: str) -> str:
    return node(kind, name).strip("<>")


#: questions whose first candidate must answer right
CATALOGUE_FIRST = [
    ("What are the read and write speeds of the Bolt Rocket?", {"5000", "4400"}),
    ("How many more threads than cores does the Corex 9 have?", {"10"}),
    ("What is the difference between the read and write speeds of the Nova Disk Blue?", {"50"}),
    (
        "For each brand, how many solid-state drives are there?",
        {iri("manufacturer", "Nova Disk"), "3", iri("manufacturer", "Bolt"), "2", iri("manufacturer", "Intex"), "1"},
    ),
    ("Which Bolt drives do not support NVMe?", {iri("drive", "Bolt Classic")}),
    ("Which M.2 drives does Nova Disk make?", {iri("drive", "Nova Disk Black"), iri("drive", "Nova Disk Green")}),
    ("Which sockets do the processors of the Lake microarchitecture use?", {iri("socket", "LGA1200")}),
    ("Which manufacturer makes the drive with the highest read speed?", {iri("manufacturer", "Bolt")}),
    ("How many microarchitectures does Acme have processors of?", {"2"}),
    ("Which processors released in 2020 have a thermal design power below 30 watts?", {iri("processor", "Ryzo 3U")}),
    ("What is the average thermal design power of processors with more than 7 cores?", {"95"}),
]
IDS = [
    "two-values", "difference-more-than", "difference-between", "for-each-brand", "not-flag", "near-name",
    "asked-class-kept", "ranked-then-read", "counted-typed", "year-said", "average-of-kept",
]  # fmt: skip


shelf = graph_fixture("shelf", "catalogue", catalogue)


@pytest.mark.parametrize(("question", "gold"), CATALOGUE_FIRST, ids=IDS)
def test_the_first_candidate_answers_right(shelf: tuple[Store, MemoryBank], question: str, gold: set[str]) -> None:
    assert_first_candidate(shelf, question, gold)
