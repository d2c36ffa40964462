#!/usr/bin/env python3
"""Draw the training-pair sets of the shipped planners' runs from the sets ``planner data`` writes.

Each subcommand reads one or two folders written by ``nl2sparql planner data`` (``train.jsonl``,
``dev.jsonl``, ``exemplars/``) and writes a new folder: the drawn ``train.jsonl``, and the source's
``dev.jsonl`` and ``exemplars/`` copied. ``scripts/rebuild_planner.sh`` runs them; docs/planner.md
says which run trained on which set.

The draws of pairs-k, pairs-q and pairs-all are the inline scripts the README recorded when those
runs were made, line for line (the same seeds, the same order of calls), so the same input gives
the same file. pairs-l, pairs-r, pairs-s and pairs-t were recorded as counts and seeds only; they
are drawn here by those counts and seeds, group by group in the order listed.

Pair ids say where a pair comes from: ``WebQTrn-N`` a WebQSP gold pair, ``WebQTrn-N_...`` a CWQ
gold pair, ``lpkg-...`` a KG-pattern pair, ``<source>-<kind>[turn]`` a generated pair of that kind
(composition ... superlative, yes-no ... nested, value, during; a later turn of the same source
ends in its number, ``-during2``).

    python scripts/planner_pairs.py count pairs-m
    python scripts/planner_pairs.py pairs-k pairs-j pairs-k
    python scripts/planner_pairs.py pairs-all --m pairs-m --c3 pairs-c3 pairs-all
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

Pair = dict[str, Any]

COMPLEX = ("composition", "conjunction", "comparative", "superlative")
SHAPES = ("yes-no", "contains", "aggregate", "top-k", "more", "nested")
CONSTRAINTS = ("value", "during")


def kind(pair_id: str) -> str:
    """What a pair is, from its id: wq, cwq, pattern, or the generated kind (turn dropped).

    >>> [kind(i) for i in ("WebQTrn-12", "WebQTrn-60_9c3e", "lpkg-2p-17", "WebQTrn-5-top-k", "WebQTrn-5-during3")]
    ['wq', 'cwq', 'pattern', 'top-k', 'during']
    >>> kind("WebQTrn-60_9c3e#2"), kind("WebQTrn-5-during~3")
    ('cwq', 'during')
    """
    pair_id = re.sub(r"[#~][0-9]+$", "", pair_id)  # a copy drawn twice (#2) or a repeated id (~2)
    if pair_id.startswith("lpkg"):
        return "pattern"
    if pair_id.startswith("WebQ") and "_" in pair_id:
        return "cwq"
    if pair_id.startswith("WebQ") and pair_id.count("-") == 1:
        return "wq"
    stem = pair_id.rstrip("0123456789")
    for name in COMPLEX + SHAPES + CONSTRAINTS:
        if stem.endswith("-" + name):
            return name
    return "other"


def later_turn(pair_id: str) -> bool:
    """A second or third draw of a generated pair (``-during2``): ``planner data`` made one
    event a source when pairs-m was first built, so the draws from pairs-m leave these out.

    >>> later_turn("WebQTrn-5-during2"), later_turn("WebQTrn-5-during"), later_turn("WebQTrn-12")
    (True, False, False)
    """
    return kind(pair_id) not in ("wq", "cwq", "pattern", "other") and re.sub(r"[#~][0-9]+$", "", pair_id)[-1].isdigit()


def read_pairs(folder: Path) -> list[Pair]:
    path = folder / "train.jsonl"
    if not path.is_file():
        raise SystemExit(f"planner_pairs: {path} is missing (a folder written by 'nl2sparql planner data')")
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def one_event(rows: list[Pair]) -> list[Pair]:
    return [r for r in rows if not later_turn(r["id"])]


def by_kind(rows: list[Pair]) -> dict[str, list[Pair]]:
    groups: dict[str, list[Pair]] = defaultdict(list)
    for r in rows:
        groups[kind(r["id"])].append(r)
    return groups


def again(rows: list[Pair], times: int) -> list[Pair]:
    """``rows`` ``times`` over, the copies' ids marked ``#2``, ``#3``, ... (ids stay unique)."""
    return rows + [dict(r, id=f"{r['id']}#{n}") for n in range(2, times + 1) for r in rows]


def draw(groups: dict[str, list[Pair]], name: str, n: int) -> list[Pair]:
    rows = groups.get(name, [])
    if n > len(rows):
        raise SystemExit(f"planner_pairs: {n} {name} pairs asked for, the set has {len(rows)}")
    return random.sample(rows, n)


def write(out: Path, pairs: list[Pair], dev_from: Path) -> None:
    """``train.jsonl`` of ``pairs``, with ``dev.jsonl`` and ``exemplars/`` of ``dev_from``."""
    out.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in pairs)
    (out / "train.jsonl").write_text(text, encoding="utf-8")
    if (dev_from / "dev.jsonl").is_file():
        shutil.copy(dev_from / "dev.jsonl", out / "dev.jsonl")
    if (dev_from / "exemplars").is_dir():
        shutil.rmtree(out / "exemplars", ignore_errors=True)
        shutil.copytree(dev_from / "exemplars", out / "exemplars")
    counts = Counter(kind(r["id"]) for r in pairs)
    print(f"wrote {out}: {len(pairs):,} pairs ({', '.join(f'{k} {v:,}' for k, v in sorted(counts.items()))})")


def pairs_k(j: Path, out: Path) -> None:
    """run-k: pairs-j's CWQ pairs twice and as many of its other pairs, drawn with seed 0."""
    rows = read_pairs(j)
    cwq = [r for r in rows if r["id"].startswith("WebQ") and "_" in r["id"]]
    rest = [r for r in rows if not (r["id"].startswith("WebQ") and "_" in r["id"])]
    random.seed(0)
    other = random.sample(rest, len(cwq))
    pairs = cwq + [dict(r, id=r["id"] + "#2") for r in cwq] + other
    random.shuffle(pairs)
    write(out, pairs, j)


def pairs_l(m: Path, out: Path) -> None:
    """run-l: pairs-m's CWQ gold pairs, its value pairs, its during pairs three times and
    2,000 of the rest, drawn with seed 0."""
    rows = one_event(read_pairs(m))
    groups = by_kind(rows)
    random.seed(0)
    chosen = groups["cwq"] + groups["value"] + again(groups["during"], 3)
    rest = [r for r in rows if kind(r["id"]) not in ("cwq", "value", "during")]
    pairs = chosen + random.sample(rest, 2000)
    random.shuffle(pairs)
    write(out, pairs, m)


def pairs_q(m: Path, out: Path) -> None:
    """run-q: every gold pair, the constraint pairs (during twice), 1,000 others, seed 1."""
    rows = one_event(read_pairs(m))

    def gold(r: Pair) -> bool:
        return r["id"].startswith("WebQ") and ("_" in r["id"] or r["id"].count("-") == 1)

    def form(r: Pair) -> bool:
        return r["id"].endswith(("-value", "-during"))

    random.seed(1)
    pairs = [r for r in rows if gold(r) or form(r)]
    pairs += [dict(r, id=r["id"] + "#2") for r in rows if r["id"].endswith("-during")]
    pairs += random.sample([r for r in rows if not (gold(r) or form(r))], 1000)
    random.shuffle(pairs)
    write(out, pairs, m)


def pairs_r(m: Path, out: Path) -> None:
    """run-r: the KG-pattern pairs, 200 of each question shape, 400 value and every during
    pair, 600 CWQ and 600 WebQSP gold pairs, seed 2."""
    groups = by_kind(one_event(read_pairs(m)))
    random.seed(2)
    pairs = list(groups["pattern"])
    for shape in SHAPES:
        pairs += draw(groups, shape, 200)
    pairs += draw(groups, "value", 400) + list(groups["during"])
    pairs += draw(groups, "cwq", 600) + draw(groups, "wq", 600)
    random.shuffle(pairs)
    write(out, pairs, m)


def pairs_s(c3: Path, m: Path, out: Path) -> None:
    """run-s: pairs-c3's during pairs twice, 300 value, 700 CWQ and 900 WebQSP gold pairs;
    400 KG-pattern pairs and 100 of each question shape of pairs-m; seed 3."""
    c = by_kind(read_pairs(c3))
    g = by_kind(one_event(read_pairs(m)))
    random.seed(3)
    pairs = again(c["during"], 2) + draw(c, "value", 300) + draw(c, "cwq", 700) + draw(c, "wq", 900)
    pairs += draw(g, "pattern", 400)
    for shape in SHAPES:
        pairs += draw(g, shape, 100)
    random.shuffle(pairs)
    write(out, pairs, m)


def pairs_t(c3: Path, m: Path, out: Path) -> None:
    """run-t: pairs-c3's 1,000 WebQSP and 300 CWQ gold pairs, every during pair and 100 value
    pairs; 200 KG-pattern pairs and 50 of each question shape of pairs-m; seed 4."""
    c = by_kind(read_pairs(c3))
    g = by_kind(one_event(read_pairs(m)))
    random.seed(4)
    pairs = draw(c, "wq", 1000) + draw(c, "cwq", 300) + list(c["during"]) + draw(c, "value", 100)
    pairs += draw(g, "pattern", 200)
    for shape in SHAPES:
        pairs += draw(g, shape, 50)
    random.shuffle(pairs)
    write(out, pairs, m)


def pairs_all(m: Path, c3: Path, out: Path) -> None:
    """run-u: every pair of pairs-m (CWQ gold twice) but its value and during pairs, and
    pairs-c3's value pairs and during pairs three times; seed 7."""

    def group(i: str) -> str:
        if i.startswith("lpkg"):
            return "lpkg"
        if i.startswith("WebQ") and "_" in i:
            return "cwq"
        if i.startswith("WebQ") and i.count("-") == 1:
            return "wq"
        return i.rsplit("-", 1)[1].rstrip("0123456789")

    def groups(path: Path) -> dict[str, list[Pair]]:
        g: dict[str, list[Pair]] = defaultdict(list)
        for r in read_pairs(path):
            g[group(r["id"])].append(r)
        return g

    c, g = groups(c3), groups(m)
    pairs = [
        r for name, rows in g.items() if name not in ("value", "during") for r in rows * (2 if name == "cwq" else 1)
    ]
    pairs += c["value"] + c["during"] * 3
    seen: dict[str, int] = {}
    for i, r in enumerate(pairs):
        n = seen[r["id"]] = seen.get(r["id"], 0) + 1
        if n > 1:
            pairs[i] = {**r, "id": f"{r['id']}~{n}"}
    random.seed(7)
    random.shuffle(pairs)
    write(out, pairs, m)


def count(folder: Path) -> None:
    rows = read_pairs(folder)
    counts = Counter(kind(r["id"]) for r in rows)
    later = sum(later_turn(r["id"]) for r in rows)
    print(f"{folder}: {len(rows):,} pairs, {later:,} of them later turns")
    for name, n in sorted(counts.items()):
        print(f"  {name:12} {n:,}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="planner_pairs.py",
        description="Draw the shipped planners' training-pair sets from 'nl2sparql planner data' folders.",
        epilog="docs/planner.md says which run trained on which set; scripts/rebuild_planner.sh runs them.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("count", help="pairs of a folder by kind")
    p.add_argument("folder", type=Path)
    for name, source, help_text in (
        ("pairs-k", "j", "run-k's: pairs-j's CWQ gold pairs twice, as many others (seed 0)"),
        ("pairs-l", "m", "run-l's: pairs-m's CWQ gold, value, during x3, 2,000 others (seed 0)"),
        ("pairs-q", "m", "run-q's: pairs-m's gold and constraint pairs, during x2, 1,000 others (seed 1)"),
        ("pairs-r", "m", "run-r's: patterns, 200 a shape, 400 value, during, 600 CWQ, 600 WebQSP (seed 2)"),
    ):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("source", type=Path, help=f"the pairs-{source} folder")
        p.add_argument("out", type=Path, help="the folder to write")
    for name, help_text in (
        (
            "pairs-s",
            "run-s's: pairs-c3's"
            " during x2, 300 value, 700 CWQ, 900 WebQSP; pairs-m's 400 patterns, 100 a shape (seed 3)",
        ),
        (
            "pairs-t",
            "run-t's: pairs-c3's 1,000 WebQSP, 300 CWQ, during, 100 value; pairs-m's 200 patterns, 50 a shape (seed 4)",
        ),
        (
            "pairs-all",
            "run-u's: every pair of pairs-m (CWQ x2) but value and during; pairs-c3's value, during x3 (seed 7)",
        ),
    ):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--m", type=Path, required=True, help="the pairs-m folder")
        p.add_argument("--c3", type=Path, required=True, help="the pairs-c3 folder")
        p.add_argument("out", type=Path, help="the folder to write")
    args = parser.parse_args(argv)
    if args.command == "count":
        count(args.folder)
    elif args.command in ("pairs-k", "pairs-l", "pairs-q", "pairs-r"):
        {"pairs-k": pairs_k, "pairs-l": pairs_l, "pairs-q": pairs_q, "pairs-r": pairs_r}[args.command](
            args.source, args.out
        )
    elif args.command == "pairs-s":
        pairs_s(args.c3, args.m, args.out)
    elif args.command == "pairs-t":
        pairs_t(args.c3, args.m, args.out)
    else:
        pairs_all(args.m, args.c3, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
