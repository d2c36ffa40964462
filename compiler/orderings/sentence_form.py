"""Statements that read a relation the way the plan's sentence reads it come first.

``the river whose origin is the location ?e1`` and ``the origin of the river ?e1`` name
the same relation in opposite directions: the first finds rivers that start at ?e1, the
second the place where the river ?e1 starts. Recall scores descriptions by meaning, and
when a planner leaves out a type word (``Find the river whose origin is Lake Itasca``)
the description of the other direction can score higher (0.952 against 0.942) and the
query turns round. The sentence's own grammar says which way it reads: a ``whose``
sentence asks for the holder of a relation, an ``of`` sentence for its value. A
statement whose description reads the other way is tried after the ones that read it the
same way and can give the kind of value the plan compares it with
(:mod:`~nl2sparql.compiler.orderings.value_fit`, which comes before it in
:data:`~nl2sparql.compiler.orderings.ORDERINGS` and so weighs more); when none reads it the
same way, the order stays as recall gave it. Only the order of the statements a step tries
changes, not which ones: a statement recall ranked below them does not
come in, since on a graph of one's own execution-guided repair would accept whatever a
newcomer answers (the albums of a band, asked for as a person's birthplace).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nl2sparql.compiler.assemble import Recalled, ResolvedPlan
from nl2sparql.compiler.lowering.options import LoweringOptions

__all__ = ["reads_whose", "sentence_form"]

_WHOSE = re.compile(r"\bwhose\b", re.IGNORECASE)


def reads_whose(text: str) -> bool:
    """Whether ``text`` asks for the holder of a relation (``the river whose origin is ...``).

    >>> reads_whose("?e2 is the river whose origin is the location ?e1"), reads_whose("the origin of the river ?e1")
    (True, False)
    """
    return bool(_WHOSE.search(text))


def sentence_form(
    resolved: ResolvedPlan, index: int, candidates: Sequence[Recalled], options: LoweringOptions | None = None
) -> list[bool]:
    """For each of ``candidates`` of ``Find`` step ``index``, whether it is demoted: its
    description reads the relation the other way from the step's sentence. Nothing is
    demoted when none of them reads it the same way (or all do); recall's order, which
    weighs the query log's support too, then stands. ``options`` are not read.

    >>> from nl2sparql.compiler.assemble import resolve_plan
    >>> from nl2sparql.plan.reader import parse_plan
    >>> def statement(ident, description):
    ...     return Recalled(ident, "graph", "?e1 ns:r.origin ?e2 .", ("?e1",), "?e2", description)
    >>> of = statement("a", "?e2 is the origin of the river ?e1")
    >>> whose = statement("b", "?e2 is the river whose origin is ?e1")
    >>> def find(sentence):
    ...     return resolve_plan(parse_plan(f"Find {sentence}, assign it to ?x.\\nThe answer is ?x."), {"m.i": "Itasca"})
    >>> sentence_form(find("the river whose origin is Itasca"), 0, [of, whose])
    [True, False]
    >>> sentence_form(find("the origin of the river Itasca"), 0, [of, whose])
    [False, True]
    >>> sentence_form(find("the origin of the river Itasca"), 0, [of])
    [False]
    """
    wanted = reads_whose(resolved.finds[index].template)
    against = [reads_whose(c.description) != wanted for c in candidates]
    return against if not all(against) else [False] * len(candidates)
