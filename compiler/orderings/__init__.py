"""Candidate orderings: one ordered list of rules that decides which recalled statements a
``Find`` step tries, and in what order.

Recall ranks a step's statements by their descriptions (and the query log's support), and
the best-scored one is not always the one the plan means. Each rule is a module named like
its function, ``rule(resolved, index, candidates, options) -> [demoted, ...]``, with a
doctest, as the optimiser's passes are (``compiler/optimizer``): for each candidate of step
``index``, in recall's order, whether the rule demotes it. :data:`ORDERINGS` is their
priority, weightiest first, and the order is decided here, in one place, by one
lexicographic key rather than by score arithmetic:

* a step's statements (:func:`ranked`): by their demotions in list order, then recall's
  order. An ordering that ``chooses`` also decides which ``per_step`` statements the step
  tries; the others only reorder those (a statement recall ranked below them never comes in);
* combinations over the steps (:func:`combination_key`): fewest demotions by the first
  ordering, summed over the steps, first; then fewest by the second; then the highest
  total recall score.

>>> from nl2sparql.compiler.assemble import resolve_plan
>>> from nl2sparql.plan.reader import parse_plan
>>> plan = parse_plan("Find the river whose origin is Itasca, assign it to ?x.\\nThe answer is ?x.")
>>> resolved = resolve_plan(plan, {"m.i": "Itasca"})
>>> def statement(ident, description, score):
...     return Recalled(ident, "graph", "?e1 ns:r.origin ?e2 .", ("?e1",), "?e2", description, score)
>>> of = statement("of", "?e2 is the origin of the river ?e1", 0.95)
>>> whose = statement("whose", "?e2 is the river whose origin is ?e1", 0.94)
>>> [(r.statement.id, r.demotions) for r in ranked(resolved, 0, [of, whose], None, per_step=5)]
[('whose', (False, False)), ('of', (False, True))]
>>> [ordering.name for ordering in ORDERINGS]
['value_fit', 'sentence_form']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nl2sparql.compiler.assemble import Recalled, ResolvedPlan
from nl2sparql.compiler.lowering.options import LoweringOptions
from nl2sparql.compiler.orderings.sentence_form import sentence_form
from nl2sparql.compiler.orderings.value_fit import value_fit

__all__ = ["ORDERINGS", "Ordering", "Ranked", "Rule", "combination_key", "ranked"]

Rule = Callable[[ResolvedPlan, int, Sequence[Recalled], LoweringOptions | None], Sequence[bool]]


@dataclass(frozen=True, slots=True)
class Ordering:
    """A rule and what it decides: the order of a step's statements and, when ``chooses``,
    which of them the step tries at all."""

    rule: Rule
    chooses: bool = False

    @property
    def name(self) -> str:
        return self.rule.__name__


#: the orderings, weightiest first: a statement whose value cannot be what the plan compares
#: it with goes after every one that can, whichever way its description reads the relation
ORDERINGS: tuple[Ordering, ...] = (
    Ordering(value_fit, chooses=True),
    Ordering(sentence_form),
)


@dataclass(frozen=True, slots=True)
class Ranked:
    """A statement a step tries, with whether each ordering demoted it (in list order)."""

    statement: Recalled
    demotions: tuple[bool, ...] = ()


def ranked(
    resolved: ResolvedPlan,
    index: int,
    found: Sequence[Recalled],
    options: LoweringOptions | None,
    per_step: int,
    orderings: Sequence[Ordering] = ORDERINGS,
) -> list[Ranked]:
    """The ``per_step`` statements of ``found`` (recall's order) that ``Find`` step ``index``
    tries, in the order it tries them: the first ``per_step`` by the orderings that choose
    (then recall's order); those ordered by every ordering's demotions, then recall's order.
    """
    choosing = [ordering.rule(resolved, index, found, options) for ordering in orderings if ordering.chooses]
    by_choice = sorted(range(len(found)), key=lambda i: (tuple(flags[i] for flags in choosing), i))
    window = [found[i] for i in sorted(by_choice[:per_step])]
    flags = [ordering.rule(resolved, index, window, options) for ordering in orderings]
    demotions = [tuple(bool(f[i]) for f in flags) for i in range(len(window))]
    order = sorted(range(len(window)), key=lambda i: (demotions[i], i))
    return [Ranked(window[i], demotions[i]) for i in order]


def combination_key(chosen: Sequence[Ranked]) -> tuple[tuple[int, ...], float]:
    """The priority of a combination of statements, one per step (lower is tried first): how
    many of them each ordering demoted, in list order, then the total recall score, highest
    first. One demotion by an ordering outweighs any number by the orderings after it.

    >>> a, b = Recalled("a", "graph", "", score=0.5), Recalled("b", "graph", "", score=0.99)
    >>> two_read_the_other_way = combination_key([Ranked(a, (False, True)), Ranked(a, (False, True))])
    >>> one_misfit = combination_key([Ranked(b, (True, False)), Ranked(b, (False, False))])
    >>> two_read_the_other_way, one_misfit, two_read_the_other_way < one_misfit
    (((0, 2), -1.0), ((1, 0), -1.98), True)
    """
    counts = tuple(sum(column) for column in zip(*(r.demotions for r in chosen), strict=True))
    return counts, -sum(r.statement.score for r in chosen)
