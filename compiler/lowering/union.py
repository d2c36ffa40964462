"""``Combine ?a and ?b, assign it to ?v``: which steps belong to each side of the UNION.

A plan is a flat list, a UNION is two groups: the steps that only serve ``?a`` (the
steps that assign it, those that assign their inputs, the ``Make sure`` steps on them)
form the first branch, those that only serve ``?b`` the second. Steps both sides need,
or that something outside the union reads, stay outside it and join both branches.
"""

from __future__ import annotations

from nl2sparql.compiler.lowering.options import LoweringError
from nl2sparql.plan.steps import Combine, Compute, Count, Find, MakeSure, Plan, Rank, Var


def _cone(plan: Plan, var: Var, before: int) -> set[int]:
    """Steps before ``before`` that ``var`` depends on, with the checks made on those variables."""
    steps = plan.steps
    wanted = {var}
    cone: set[int] = set()
    changed = True
    while changed:
        changed = False
        for index in range(before):
            step = steps[index]
            if index in cone:
                continue
            target = getattr(step, "target", None)
            if (target is not None and target in wanted) or (isinstance(step, MakeSure) and step.var in wanted):
                cone.add(index)
                wanted.update(step.inputs)
                changed = True
    return cone


def branches(plan: Plan) -> dict[int, tuple[int, int]]:
    """``{step index: (Combine step index, 0 or 1)}`` for the steps inside a union branch."""
    out: dict[int, tuple[int, int]] = {}
    steps = plan.steps
    for index, step in enumerate(steps):
        if not isinstance(step, Combine):
            continue
        cones = [_cone(plan, step.a, index), _cone(plan, step.b, index)]
        shared = cones[0] & cones[1]
        for side, cone in enumerate(cones):
            own = cone - shared
            outside = set(range(len(steps))) - own - {index}
            for member in sorted(own):
                target = getattr(steps[member], "target", None)
                if target is None or target in (step.a, step.b):
                    continue
                if any(target in steps[other].inputs for other in outside):
                    shared.add(member)
            for member in sorted(own - shared):
                if member in out:
                    raise LoweringError(f"step {member + 1} belongs to two Combine steps")
                if isinstance(steps[member], Rank | Count | Compute):
                    raise LoweringError(
                        f"step {member + 1}: Rank, Count and Compute inside a Combine branch are not supported"
                    )
                out[member] = (index, side)
        if not any(isinstance(steps[m], Find) for m, (c, s) in out.items() if c == index and s == 0) or not any(
            isinstance(steps[m], Find) for m, (c, s) in out.items() if c == index and s == 1
        ):
            raise LoweringError(f"step {index + 1}: each side of a Combine needs a Find of its own")
    return out
