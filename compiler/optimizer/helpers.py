"""Small tree utilities the optimiser passes share (not passes themselves)."""

from __future__ import annotations

from collections.abc import Iterable

from nl2sparql.compiler.ast import BGP, BinaryOp, Filter, GroupPattern, Node


def merge_adjacent_bgps(patterns: Iterable[Node]) -> tuple[Node, ...]:
    """Join BGPs that follow each other (the reader never makes two in a row) and drop empty ones."""
    out: list[Node] = []
    for pattern in patterns:
        if isinstance(pattern, BGP):
            if not pattern.triples:
                continue
            if out and isinstance(out[-1], BGP):
                out[-1] = BGP(out[-1].triples + pattern.triples)
                continue
        out.append(pattern)
    return tuple(out)


def rebuild_group(group: GroupPattern, patterns: Iterable[Node]) -> GroupPattern:
    """``group`` with new elements, adjacent BGPs merged; the same object when nothing changed."""
    merged = merge_adjacent_bgps(patterns)
    return group if merged == group.patterns else GroupPattern(merged)


def conjuncts(expr: Node) -> list[Node]:
    """``a && b && c`` -> ``[a, b, c]``."""
    if isinstance(expr, BinaryOp) and expr.op == "&&":
        return conjuncts(expr.left) + conjuncts(expr.right)
    return [expr]


def conjunction(exprs: list[Node]) -> Node | None:
    """The inverse of :func:`conjuncts` (left-nested); ``None`` for no expressions."""
    if not exprs:
        return None
    result = exprs[0]
    for expr in exprs[1:]:
        result = BinaryOp("&&", result, expr)
    return result


def filters_of(group: GroupPattern) -> list[Filter]:
    """The group's own filters (not those of nested groups)."""
    return [p for p in group.patterns if isinstance(p, Filter)]
