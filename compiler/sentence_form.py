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
(:mod:`~nl2sparql.compiler.value_fit`, which weighs more); when none reads it the same
way, the order stays as recall gave it. Only the order of the statements a step tries
changes, not which ones (``reconstruct``): a statement recall ranked below them does not
come in, since on a graph of one's own execution-guided repair would accept whatever a
newcomer answers (the albums of a band, asked for as a person's birthplace).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from nl2sparql.compiler.assemble import Recalled

__all__ = ["DEMOTION", "agreeing_first", "reads_whose"]

#: how far a statement read the other way falls: less than a statement whose value cannot
#: be what the plan compares it with (:data:`~nl2sparql.compiler.value_fit.DEMOTION`, 1.0)
DEMOTION = 0.5

_WHOSE = re.compile(r"\bwhose\b", re.IGNORECASE)


def reads_whose(text: str) -> bool:
    """Whether ``text`` asks for the holder of a relation (``the river whose origin is ...``).

    >>> reads_whose("?e2 is the river whose origin is the location ?e1"), reads_whose("the origin of the river ?e1")
    (True, False)
    """
    return bool(_WHOSE.search(text))


def agreeing_first(template: str, candidates: Sequence[Recalled]) -> list[Recalled]:
    """``candidates`` of a ``Find`` step whose sentence is ``template``, those that read it
    the other way moved after the rest with their scores lowered by :data:`DEMOTION`
    (combinations are ranked by total score), when at least one reads it the same way; the
    rest keep recall's order, which weighs the query log's support too.

    >>> def statement(ident, description, score):
    ...     return Recalled(ident, "graph", "?e1 ns:r.origin ?e2 .", ("?e1",), "?e2", description, score)
    >>> of = statement("a", "?e2 is the origin of the river ?e1", 0.95)
    >>> whose = statement("b", "?e2 is the river whose origin is ?e1", 0.94)
    >>> [c.id for c in agreeing_first("the river whose origin is ?e1", [of, whose])]
    ['b', 'a']
    >>> [c.id for c in agreeing_first("the origin of the river ?e1", [of, whose])]
    ['a', 'b']
    """
    wanted = reads_whose(template)
    kept = [c for c in candidates if reads_whose(c.description) == wanted]
    if not kept or len(kept) == len(candidates):
        return list(candidates)
    return kept + [replace(c, score=c.score - DEMOTION) for c in candidates if reads_whose(c.description) != wanted]
