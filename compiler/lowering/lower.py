"""Plan + chosen statements -> one SELECT query: the patterns of MemQ's reconstruction.

Steps are lowered in plan order into one group:

* chain / conjunction: each ``Find`` adds its statement's triples; shared variables join
  them and two ``Find`` steps that assign one variable intersect (:mod:`.graph`);
* ``Make sure ?v is <entity>``: the constant replaces ``?v`` in its triple when nothing
  else reads ``?v`` (how WebQSP writes ``?x ns:people.person.gender ns:m.05zppz``), a
  FILTER otherwise; a name that is no entity of the question is looked up among the
  recalled ``equals`` constraints (``Country`` -> ``str(?v) = "Country"``);
* comparisons -> typed FILTERs (:mod:`.filters`); ``holds during`` -> time windows on
  the CVT behind the variable (:mod:`.time_window`);
* ``Combine`` -> UNION of the steps that serve each side (:mod:`.union`);
* ``Rank`` -> ``ORDER BY`` + ``LIMIT`` when it is the last step; a sub-select when steps
  follow (so their joins cannot change which row comes first); with ``keep_ties`` a
  ``MAX``/``MIN`` sub-select keeps every row tied for first;
* ``Count`` -> ``COUNT(DISTINCT ?v)``, ``Compute the average of ?v`` -> ``AVG(?v)`` (and
  ``SUM``/``MIN``/``MAX``), in a sub-select when steps follow; a later count or
  computation over its own triples is a sibling sub-select (``{ SELECT (COUNT(..) AS ?n1)
  .. } { SELECT (COUNT(..) AS ?n2) .. }``, as QALD and CWQ write two counts compared
  by ``Make sure ?n1 is greater than ?n2``; a count of nothing is then 0, not no row),
  and one over values computed before it keeps them (grouped by them);
* ``Make sure ?v contains "word"`` -> ``FILTER(CONTAINS(LCASE(STR(?v)), "word"))``;
* ``The answer is ?x`` -> ``SELECT DISTINCT ?x`` and, for Freebase, WebQSP's answer
  language filter; ``The answer is whether ?x exists`` -> ``ASK``; ``The answer is ?x and
  ?v1`` -> ``SELECT DISTINCT ?x ?v1``;
* the analytic shapes (:mod:`.analytic`): ``Count ?x for each ?g`` -> ``GROUP BY ?g`` (a
  ``Make sure`` on the count -> ``HAVING``), ``... if any`` -> ``OPTIONAL``, ``Make sure
  nothing is ...`` -> ``FILTER NOT EXISTS``, ``keep results 6 to 10`` -> ``LIMIT 5 OFFSET
  5``, ``Compute ?a minus ?b`` -> ``BIND``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from nl2sparql.compiler.assemble import (
    Label,
    Recalled,
    ResolvedPlan,
    bind_statement,
    compact_term,
    normalise_name,
    substitute,
)
from nl2sparql.compiler.ast import (
    BGP,
    IRI,
    Aggregate,
    Alias,
    AskQuery,
    BinaryOp,
    BuiltinCall,
    Expression,
    Filter,
    GroupPattern,
    Literal,
    Node,
    OrderCondition,
    Query,
    SelectQuery,
    SubSelect,
    TriplePattern,
    UnaryOp,
    Union,
    Var,
)
from nl2sparql.compiler.lowering import analytic, filters, graph, time_window
from nl2sparql.compiler.lowering.options import LoweringError, LoweringOptions
from nl2sparql.compiler.lowering.union import branches
from nl2sparql.plan.steps import Absent, Answer, Calculate, Combine, Compute, Count, Find, MakeSure, Rank, Step
from nl2sparql.plan.steps import Literal as PlanLiteral
from nl2sparql.plan.steps import Var as PlanVar


@dataclass(slots=True)
class _Scope:
    """A group being written: its elements, the triples already in it, its pending windows."""

    elements: list[Node] = field(default_factory=list)
    seen: set[TriplePattern] = field(default_factory=set)
    windows: dict[str, tuple[time_window.Window, bool]] = field(default_factory=dict)


class _Final(NamedTuple):
    """Aggregates the outer ``SELECT`` computes: ``(aggregate, name)`` pairs, the group
    variables and the ``HAVING`` conditions."""

    aliases: tuple[tuple[Aggregate, str], ...]
    per: tuple[str, ...] = ()
    having: tuple[Expression, ...] = ()


class _Window(NamedTuple):
    """How the outer ``SELECT`` is ordered and cut: ``ORDER BY``, ``LIMIT``, ``OFFSET``."""

    order: tuple[OrderCondition, ...] = ()
    limit: int | None = None
    offset: int | None = None


class _Names:
    """Fresh variable names that no plan variable uses."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = set(taken)

    def fresh(self, stem: str) -> str:
        number = 0
        while f"{stem}{number}" in self.taken:
            number += 1
        name = f"{stem}{number}"
        self.taken.add(name)
        return name

    def take(self, count: int, stem: str) -> list[str]:
        return [self.fresh(stem) for _ in range(count)]


def lower(
    resolved: ResolvedPlan,
    chosen: Mapping[int, Recalled],
    constraints: Mapping[int, Sequence[Recalled]] | None = None,
    options: LoweringOptions | None = None,
) -> Query:
    """The query (``SELECT``; ``ASK`` for a yes/no plan) for ``resolved`` with the statement
    ``chosen[i]`` for each ``Find`` step ``i``.

    ``constraints[i]``: the constraint statements recalled for ``Make sure`` step ``i``
    (time-window predicates, constants that are no entity of the question).
    """
    return _Lowering(resolved, chosen, constraints or {}, options or LoweringOptions()).run()


class _Lowering:
    def __init__(
        self,
        resolved: ResolvedPlan,
        chosen: Mapping[int, Recalled],
        constraints: Mapping[int, Sequence[Recalled]],
        options: LoweringOptions,
    ) -> None:
        self.resolved = resolved
        self.plan = resolved.plan
        self.steps: tuple[Step, ...] = resolved.plan.steps
        self.constraints = constraints
        self.options = options
        answer = self.plan.answer
        if answer is None:
            raise LoweringError("the plan has no answer line")
        self.answer = answer.name
        answer_step = next(s for s in self.steps if isinstance(s, Answer))
        self.columns = tuple(v.name for v in answer_step.columns)
        self.exists = any(isinstance(s, Answer) and s.exists for s in self.steps)
        plan_vars = {v.name for step in self.steps for v in (*step.inputs, getattr(step, "target", None)) if v}
        self.names = _Names(plan_vars)
        self.parts: dict[int, list[TriplePattern]] = {}
        self.absent: dict[int, list[TriplePattern]] = {}
        self.cvt_of: dict[str, Var] = {}
        self._bind(chosen)

    # -- graph statements ------------------------------------------------------------------

    def _bind(self, chosen: Mapping[int, Recalled]) -> None:
        cvt_names: list[str] = []
        step_cvt: dict[int, str] = {}
        for index, find in self.resolved.finds.items():
            recalled = chosen.get(index)
            if recalled is None:
                raise LoweringError(f"step {index + 1}: no statement was chosen")
            name = self.names.fresh("cvt")
            triples = list(bind_statement(find, recalled, name))
            if isinstance(self.steps[index], Absent):  # its own variables, joined with nothing else
                nothing = {find.target: Var(self.names.fresh("none"))}
                self.absent[index] = [substitute(t, nothing) for t in triples]  # type: ignore[misc]
                continue
            if any(Var(name) in (t.subject, t.object) for t in triples):
                cvt_names.append(name)
                step_cvt[index] = name
            self.parts[index] = triples
        merged = graph.merge_cvts(self.parts, cvt_names)
        mapping = {name: Var(rep) for name, rep in merged.items() if name != rep}
        if mapping:
            self.parts = {i: [substitute(t, mapping) for t in ts] for i, ts in self.parts.items()}  # type: ignore[misc]
        for index in sorted(step_cvt):
            target = self.resolved.finds[index].target
            self.cvt_of.setdefault(target, Var(merged[step_cvt[index]]))
        self.cvts = {merged[name] for name in cvt_names}

    def all_triples(self) -> Iterator[TriplePattern]:
        for triples in self.parts.values():
            yield from triples

    def datatype(self, var: str) -> str | None:
        return graph.value_datatype(var, self.all_triples(), self.options.value_type)

    # -- the walk ------------------------------------------------------------------------

    def run(self) -> Query:
        self.inline: dict[str, Node] = {}
        made: dict[int, list[Node]] = {}
        for index, step in enumerate(self.steps):
            if isinstance(step, MakeSure) and step.op != "holds during":
                made[index] = self._make_sure(index, step)
        if self.inline:
            self.parts = {
                i: [substitute(t, self.inline) for t in ts]  # type: ignore[misc]
                for i, ts in self.parts.items()
            }
        branch_of = branches(self.plan)
        main = _Scope()
        sides: dict[tuple[int, int], _Scope] = {}
        window = _Window()
        final: _Final | None = None
        done: set[int] = set()  # steps lowered with an earlier one (a run of aggregates, HAVING)
        for index, step in enumerate(self.steps):
            if index in done:
                continue
            scope = sides.setdefault(branch_of[index], _Scope()) if index in branch_of else main
            later = any(not isinstance(s, Answer) for i, s in enumerate(self.steps) if i > index and i not in done)
            if isinstance(step, Find):
                triples = graph.dedupe(self.parts[index], scope.seen)
                if triples:
                    scope.elements.append(analytic.optional(triples) if step.optional else BGP(triples))
            elif isinstance(step, Absent):
                scope.elements.append(analytic.absent(self.absent[index]))
            elif isinstance(step, Calculate):
                scope.elements.append(analytic.arithmetic(step))
            elif isinstance(step, MakeSure) and step.op == "holds during":
                self._window(index, step, scope)
            elif isinstance(step, MakeSure):
                scope.elements.extend(made[index])
            elif isinstance(step, Rank):
                self._flush(main)
                window = self._rank(index, step, main, later) or window
            elif isinstance(step, Count | Compute):
                self._flush(main)
                final = self._aggregates(index, main, done)
            elif isinstance(step, Combine):
                main.elements.append(self._union(index, step, sides))
        self._flush(main)
        return self._select(main, window, final)

    def _aggregates(self, index: int, main: _Scope, done: set[int]) -> _Final | None:
        """The run of aggregates at step ``index`` (with its ``HAVING`` tests) as a sub-select when
        later steps read them; else what the outer ``SELECT`` computes."""
        run = analytic.aggregate_run(self.steps, index)
        tests = analytic.having_steps(self.steps, run)
        done.update(run, tests)
        steps = [self.steps[i] for i in run]
        aliases = tuple((aggregate_of(s), s.target.name) for s in steps)  # type: ignore[union-attr]
        by_name = {name: aggregate for aggregate, name in aliases}
        having = tuple(
            analytic.having_condition(t, by_name[t.var.name])  # type: ignore[union-attr]
            for t in (self.steps[i] for i in tests)
        )
        per = tuple(v.name for v in steps[0].per)  # type: ignore[union-attr]
        final = _Final(aliases, per, having)
        if any(not isinstance(s, Answer) for i, s in enumerate(self.steps) if i > index and i not in done):
            self._aggregate_subquery(index, final, main)
            return None
        return final

    # -- constraints ---------------------------------------------------------------------

    def _make_sure(self, index: int, step: MakeSure) -> list[Node]:
        value = self.resolved.values[index]
        var = step.var.name
        candidates = self.constraints.get(index, ())
        if step.op == "contains":
            assert isinstance(step.value, PlanLiteral)
            return [filters.text_match(var, step.value.value, step.negated)]
        if step.op == "is":
            as_string = False
            text_value = (
                isinstance(step.value, PlanLiteral)
                and step.value.kind == "string"
                and not filters.quoted_date(step.value.value, self.datatype(var))
            )
            if isinstance(value, Label) or text_value:
                text = value.text if isinstance(value, Label) else step.value.value  # type: ignore[union-attr]
                found = _constant(text, candidates, literal=not isinstance(value, Label))
                if found is None and isinstance(value, Label):
                    near = self.resolved.entities.closest(text)  # a misspelt name of the question's entities
                    if near is None:
                        known = "; ".join(self.resolved.entities.known()) or "none"
                        raise LoweringError(
                            f"line {self.resolved.line(index)}: {text!r} matches none of the question's entities "
                            f"({known}) and no constant of the memory"
                        )
                    found = (near[2], False)
                if found is None:
                    found = (Literal(text), not self.options.style.inline_strings)
                term, as_string = found
            elif isinstance(value, Literal):
                term = filters.typed_literal(value.lexical, step.value.kind, self.datatype(var))  # type: ignore[union-attr]
            else:
                term = value
            if not step.negated and not as_string and self._inlinable(index, var, term):
                self.inline[var] = term
                return []
            plain_text = isinstance(term, Literal) and term.datatype is None and term.lang is None
            return [filters.equality(var, term, as_string=as_string or plain_text, negated=step.negated)]
        symbol = filters.sparql_operator(step.op, step.negated)
        if isinstance(value, Label):
            raise LoweringError(
                f"line {self.resolved.line(index)}: {step.op!r} compares with a number, a date or "
                f"a variable, not {value.text!r}"
            )
        datatype = self.datatype(var)
        if isinstance(value, Literal):
            kind = step.value.kind if isinstance(step.value, PlanLiteral) else "string"
            value = filters.typed_literal(value.lexical, kind, datatype)
            datatype = datatype or value.datatype
        cast_to = self.options.style.compare_cast_for(datatype)
        return [filters.comparison(var, symbol, value, cast_to)]

    def _inlinable(self, index: int, var: str, term: Expression) -> bool:
        """Whether ``?var`` can be replaced by ``term`` in its triples (nothing else reads it)."""
        if (var in self.columns and not self.exists) or var in self.inline:
            return False
        assigners = [s for s in self.steps if getattr(s, "target", None) == PlanVar(var)]
        if not assigners or not all(isinstance(s, Find) and not s.optional for s in assigners):
            return False
        for other, step in enumerate(self.steps):
            if other != index and PlanVar(var) in step.inputs and not (isinstance(step, Answer) and step.exists):
                return False
        where = graph.positions(var, self.all_triples())
        if not where or "predicate" in where:
            return False
        return not (isinstance(term, Literal) and "subject" in where)

    def _window(self, index: int, step: MakeSure, scope: _Scope) -> None:
        var = step.var.name
        nodes = [self.cvt_of[var], Var(var)] if var in self.cvt_of else [Var(var)]
        node, start, end = time_window.choose_window(
            nodes, self.constraints.get(index, ()), list(self.all_triples()), self.options.range_of
        )
        value = self.resolved.values[index]
        if isinstance(value, Label | IRI):
            raise LoweringError(f"line {self.resolved.line(index)}: 'holds during' needs a date, a year or a variable")
        kind = step.value.kind if isinstance(step.value, PlanLiteral) else "date"
        start_bound, end_bound = time_window.bounds(value, kind)
        window = time_window.Window(node, start, end, start_bound, end_bound)
        if step.negated:
            scope.elements.extend(time_window.window_filters(window, self.names.take(4, "sk"), negated=True))
            return
        key = node.name
        if key in scope.windows:
            window = time_window.merge(scope.windows[key][0], window)
        scope.windows[key] = (window, False)

    def _flush(self, scope: _Scope) -> None:
        for window, negated in scope.windows.values():
            scope.elements.extend(time_window.window_filters(window, self.names.take(4, "sk"), negated))
        scope.windows.clear()

    # -- shapes ----------------------------------------------------------------------------

    def _key(self, key: str) -> Expression:
        return filters.cast(Var(key), self.options.style.order_cast_for(self.datatype(key)))

    def _needed_after(self, index: int, also: Sequence[str]) -> tuple[Var, ...]:
        bound = {s.target.name for s in self.steps[: index + 1] if getattr(s, "target", None) is not None}
        wanted = list(also)
        for step in self.steps[index + 1 :]:
            wanted += [v.name for v in step.inputs]
        return tuple(Var(name) for name in dict.fromkeys(wanted) if name in bound)

    def _rank(self, index: int, step: Rank, main: _Scope, later: bool) -> _Window | None:
        key = self._key(step.key.name)
        ranked = [step.var.name] if step.var is not None else []
        if self.options.keep_ties and step.keep == 1 and not step.skip:
            best = Var(self.names.fresh("best"))
            inner = SelectQuery(
                projection=(Alias(Aggregate("MAX" if step.descending else "MIN", key), best),),
                where=GroupPattern(tuple(main.elements)),
            )
            main.elements.append(GroupPattern((SubSelect(inner),)))
            main.elements.append(Filter(BinaryOp("=", key, best)))
            return None
        window = _Window((OrderCondition(key, step.descending),), step.keep, step.skip or None)
        if not later:
            return window
        projection = self._needed_after(index, [*ranked, *self.columns])
        if not projection:
            raise LoweringError(f"step {index + 1}: nothing the later steps use comes out of the ranking")
        inner = SelectQuery(
            projection=projection,
            where=GroupPattern(tuple(main.elements)),
            distinct=True,
            order_by=window.order,
            limit=window.limit,
            offset=window.offset,
        )
        main.elements[:] = [GroupPattern((SubSelect(inner),))]
        main.seen.clear()
        return None

    def _aggregate_subquery(self, index: int, final: _Final, main: _Scope) -> None:
        """``{ SELECT ?n1 (COUNT(DISTINCT ?y) AS ?n2) WHERE { ... } GROUP BY ?n1 }``: the count or
        computation as one value the later steps read, keeping the values computed before it
        (and its groups, with their ``HAVING``)."""
        computed = self._computed(index)
        aliases = tuple(Alias(aggregate, Var(name)) for aggregate, name in final.aliases)
        per = tuple(Var(name) for name in final.per)
        done: list[Node] = []
        own: list[Node] = []
        for element in main.elements:
            (done if _exposed(element) <= computed else own).append(element)
        if done and own and not computed & set(_vars_in(own)):
            inner = SelectQuery(
                projection=(*per, *aliases), where=GroupPattern(tuple(own)), group_by=per, having=final.having
            )
            main.elements[:] = [*done, GroupPattern((SubSelect(inner),))]
            main.seen.clear()
            return
        kept = tuple(v for v in self._needed_after(index, []) if v.name in computed and v not in per)
        inner = SelectQuery(
            projection=(*kept, *per, *aliases),
            where=GroupPattern(tuple(main.elements)),
            group_by=(*kept, *per),
            having=final.having,
        )
        main.elements[:] = [GroupPattern((SubSelect(inner),))]
        main.seen.clear()

    def _computed(self, index: int) -> set[str]:
        """Variables that counts and computations before step ``index`` assign (one value each)."""
        return {s.target.name for s in self.steps[:index] if isinstance(s, Count | Compute)}

    def _union(self, index: int, step: Combine, sides: dict[tuple[int, int], _Scope]) -> Union:
        groups = []
        for side, var in enumerate((step.a, step.b)):
            scope = sides.get((index, side), _Scope())
            self._flush(scope)
            rename: dict[str, Node] = {var.name: Var(step.target.name)}
            local = [n for n in _vars_in(scope.elements) if n in self.cvts]
            rename.update({name: Var(f"u{number}") for number, name in enumerate(dict.fromkeys(local))})
            groups.append(GroupPattern(tuple(substitute(e, rename) for e in scope.elements)))
        return Union(tuple(groups))

    def _select(self, main: _Scope, window: _Window, final: _Final | None) -> Query:
        if final is not None:
            return self._aggregate_select(main, window, final)
        if self.exists:
            return AskQuery(where=GroupPattern(tuple(main.elements)))
        elements = list(main.elements)
        if self.options.language:
            elements.append(language_filter(self.answer, self.options.language))
        return SelectQuery(
            projection=tuple(Var(name) for name in self.columns),
            where=GroupPattern(tuple(elements)),
            distinct=True,
            order_by=window.order,
            limit=window.limit,
            offset=window.offset,
        )

    def _aggregate_select(self, main: _Scope, window: _Window, final: _Final) -> Query:
        """The outer ``SELECT`` computing ``final``'s aggregates: one value, or a row per group
        (``SELECT ?g (COUNT(DISTINCT ?x) AS ?n) ... GROUP BY ?g HAVING ...``); an ``ASK``
        whether any group passes its ``HAVING`` (``ASK { { SELECT ?g ... HAVING ... } }``)."""
        where = GroupPattern(tuple(main.elements))
        names = dict((name, aggregate) for aggregate, name in final.aliases)
        first = final.aliases[0][1]
        if self.exists and final.per and final.having:  # a sub-select: Oxigraph reads no HAVING after ASK
            per = tuple(Var(v) for v in final.per)
            groups = SelectQuery(projection=per, where=where, group_by=per, having=final.having)
            return AskQuery(where=GroupPattern((GroupPattern((SubSelect(groups),)),)))
        if self.exists:
            raise LoweringError(
                f"?{first} always exists; a yes/no answer on it needs a comparison first "
                f"(Make sure ?{first} is greater than 0.)"
            )
        projection: list[Var | Alias] = []
        for column in self.columns:
            if column in names:
                projection.append(Alias(names[column], Var(column)))
            elif column in final.per:
                projection.append(Var(column))
            elif not final.per:
                raise LoweringError(f"?{first} is computed but the answer is ?{column}")
            else:
                raise LoweringError(f"?{column} is neither computed nor a group ('for each ?{column}') of ?{first}")
        return SelectQuery(
            projection=tuple(projection),
            where=where,
            distinct=bool(final.per),
            group_by=tuple(Var(v) for v in final.per),
            having=final.having,
            order_by=window.order,
            limit=window.limit,
            offset=window.offset,
        )


#: ``Compute`` functions -> SPARQL aggregates
AGGREGATES = {"average": "AVG", "sum": "SUM", "minimum": "MIN", "maximum": "MAX"}


def aggregate_of(step: Count | Compute) -> Aggregate:
    """``COUNT(DISTINCT ?v)`` for a ``Count``; ``AVG(?v)``, ``SUM(?v)``, ... for a ``Compute``.

    >>> from nl2sparql.plan.steps import Var as V
    >>> print(aggregate_of(Compute("average", V("y"), V("a"))))
    AVG(?y)
    """
    if isinstance(step, Count):
        return Aggregate("COUNT", Var(step.var.name), distinct=True)
    return Aggregate(AGGREGATES[step.function], Var(step.var.name))


def language_filter(var: str, language: str) -> Filter:
    """``FILTER(!isLiteral(?x) || lang(?x) = "" || langMatches(lang(?x), "en"))``: WebQSP's answer test."""
    x = Var(var)
    not_literal = UnaryOp("!", BuiltinCall("ISLITERAL", (x,)))
    untagged = BinaryOp("=", BuiltinCall("LANG", (x,)), Literal(""))
    matches = BuiltinCall("LANGMATCHES", (BuiltinCall("LANG", (x,)), Literal(language)))
    return Filter(BinaryOp("||", BinaryOp("||", not_literal, untagged), matches))


def _exposed(element: Node) -> set[str]:
    """The variables an element shows the group around it: a sub-select only its projection."""
    if isinstance(element, GroupPattern) and len(element.patterns) == 1 and isinstance(element.patterns[0], SubSelect):
        return {(p.var if isinstance(p, Alias) else p).name for p in element.patterns[0].query.projection}
    return set(_vars_in([element]))


def _vars_in(elements: Sequence[Node]) -> list[str]:
    return [n.name for element in elements for n in element.walk() if isinstance(n, Var)]


def _literal_text(term: str) -> str:
    if term.startswith('"'):
        return term[1:].rsplit('"', 1)[0]
    return term


def _constant(text: str, candidates: Sequence[Recalled], literal: bool) -> tuple[Expression, bool] | None:
    """The memory's constant named ``text`` in recalled ``equals`` constraints, and whether it is
    compared as a string (``str(?v) = "Country"``) rather than put in the triple.

    A quoted value in the plan (``"Country"``) is a literal, a bare name an entity: the
    constant must be of that kind.
    """
    key = normalise_name(text)
    ranked = sorted((c for c in candidates if c.kind == "equals"), key=lambda c: (-c.score, -c.support, c.id))
    for recalled in ranked:
        for term, label in recalled.constants:
            if term.startswith('"') != literal:
                continue
            if key and key in (normalise_name(_literal_text(label)), normalise_name(_literal_text(term))):
                return compact_term(term), "str(" in recalled.sparql.lower()
    return None
