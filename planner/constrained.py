"""Grammar-constrained greedy decoding: every token the model picks keeps the plan parseable.

The planner's tokenizer is WordPiece on an encoder-decoder (MiniLM): it lower-cases, drops
line breaks and spaces ``? x``, so grammar libraries that map a grammar onto a byte-level
vocabulary (transformers-cfg, outlines, xgrammar) do not fit its output, which only
becomes plan text after :func:`~nl2sparql.planner.target_text.decode_output`. Instead, at
each step the best-scoring token is checked: the output so far plus that token, turned
into plan text, must be a prefix of a sentence of ``plan/plan.lark`` (lark's
interactive LALR parser lexes and parses what is complete; the text left over must be the
beginning of a terminal the parser accepts there, by ``regex``'s partial matching), and an
end-of-sequence token must close a plan that :func:`parse_plan` reads. A token that fails
(special tokens other than the end of sequence, tokens that add no text and tokens that
leave half a character, U+FFFD, in a byte-level output fail too) is masked and the next
best is checked, up to ``top_k`` of them; a trained model's greedy decoding nearly always
needs one check a step. A token that completes a step must also leave
steps that :func:`parse_plan` reads (a variable used before it is assigned is refused there),
and a step ends with its ``assign it to ?v.`` (:func:`runs_on`).
When none of the ``top_k`` fits, the step is left unconstrained (counted in
:attr:`GrammarLogitsProcessor.unconstrained`), and the pipeline's usual fallback (beams,
then sampling) takes over.

A model that wanders (free text runs to the length limit) would end without a plan, so
the last ``reserve`` tokens of the budget close the plan: the shortest of a few fixed
endings (:data:`CLOSERS` then :data:`ENDINGS`) that makes the output a plan that parses is
forced, token by token. A trained planner ends its plans long before that; an untrained
one is still given a plan that parses.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import regex
from lark import Lark
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedToken

from nl2sparql.plan.reader import parse_plan
from nl2sparql.plan.steps import PlanError
from nl2sparql.planner.target_text import STEP_SEPARATOR, Codec, decode_output

#: the most candidates checked for one step before the step is left unconstrained (the best
#: token nearly always fits; a random model's may not, hence the wide bound)
DEFAULT_TOP_K = 256
#: the last tokens of the length budget, kept for closing a plan
DEFAULT_RESERVE = 48
#: what may end the sentence being written, shortest first; the last ones finish a header or a
#: step number that a model (an untrained one, most often) left open
CLOSERS = (
    "",
    ".",
    "x.",
    "?x.",
    " ?x.",
    " ?v9.",  # when ?x is taken (the step reads it), a variable no plan uses
    ", assign it to ?x.",
    ", assign it to ?v9.",
    " of it, assign it to ?x.",
    ": composition",
    ": Find it, assign it to ?x.",
    " 1: Find it, assign it to ?x.",
)
#: what may follow it to make a whole plan
ENDINGS = ("", "\nThe answer is ?x.", "\nFind the answer of it, assign it to ?x.\nThe answer is ?x.")


@functools.lru_cache(maxsize=1)
def _grammar() -> tuple[Lark, dict[str, Any]]:
    """The plan grammar without its transformer (a prefix is parsed, never turned into steps),
    and each terminal's pattern compiled for partial matching."""
    parser = Lark.open_from_package("nl2sparql.plan", "plan.lark", parser="lalr", lexer="contextual")
    patterns = {}
    for terminal in parser.terminals:
        flags = regex.IGNORECASE if "i" in terminal.pattern.flags else 0
        patterns[terminal.name] = regex.compile(terminal.pattern.to_regexp(), flags)
    return parser, patterns


def viable_prefix(text: str) -> bool:
    """Whether some text continues ``text`` into sentences of the plan grammar.

    >>> viable_prefix("Type: composition\\nFind the siblings of Justin Bieber, assign it to ?")
    True
    >>> viable_prefix("Type: composition\\nFind the siblings of Justin Bieber.\\n")
    False
    """
    parser, patterns = _grammar()
    interactive = parser.parse_interactive(text)
    try:
        for _ in interactive.iter_parse():
            pass
    except UnexpectedCharacters as exc:  # nothing lexes here: the rest may be a terminal's beginning
        return _begins_terminal(text[exc.pos_in_stream :], exc.allowed or interactive.accepts(), patterns)
    except UnexpectedToken as exc:  # lexed as a terminal this state does not take (the fallback lexer)
        start = exc.token.start_pos if exc.token.start_pos is not None else len(text)
        return _begins_terminal(text[start:], exc.expected or interactive.accepts(), patterns)
    except LarkError:
        return False
    return True


def _begins_terminal(rest: str, allowed: Iterable[str], patterns: dict[str, Any]) -> bool:
    """Whether ``rest`` (what is left after the last complete token) could begin one of ``allowed``."""
    rest = rest.lstrip(" \t")
    if not rest:
        return True
    return any(name in patterns and patterns[name].fullmatch(rest, partial=True) is not None for name in allowed)


def plan_prefix(output: str, codec: Codec, names: Sequence[str]) -> str:
    """The plan text a model's partial output stands for: complete steps on their lines, and
    the step being written without a closing line break."""
    if codec == "plain":
        return output
    *done, current = output.split(STEP_SEPARATOR.strip())
    complete = decode_output(STEP_SEPARATOR.join(done), codec, names) if done else ""
    return complete + decode_output(current, codec, names).rstrip("\n")


@functools.lru_cache(maxsize=4096)
def closing(prefix: str) -> str | None:
    """The shortest fixed ending (a closer, then an ending) that makes plan text ``prefix`` a plan
    that parses, or ``None``. Remembered: every token of a step asks it of the same complete
    lines, and trying the endings parses the plan up to 36 times."""
    for ending in ENDINGS:
        for closer in CLOSERS:
            tail = closer + ending
            if not prefix.strip() and not ending:
                continue
            try:
                parse_plan(prefix + tail + "\n")
            except PlanError:
                continue
            return tail
    return None


def steps_read(prefix: str) -> bool:
    """Whether the complete lines of plan text ``prefix`` can still end in a plan that parses (a
    variable used before it is assigned, say, cannot), and the line being written neither opens
    a step that reads a variable before any is assigned (``Count``, ``The answer is``) nor reads
    one that no step assigned: no ending could close those.

    >>> steps_read("Type: conjunction\\nCo"), steps_read("Type: conjunction\\nFi")
    (False, True)
    >>> done = "Type: comparative\\nFind the date of X, assign it to ?v1.\\nFind the end of X, assign it to ?v2.\\n"
    >>> steps_read(done + "Make sure ?v1 is greater than ?v1"), steps_read(done + "Make sure ?v1 is greater than ?v")
    (False, True)
    """
    cut = prefix.rfind("\n") + 1
    complete, current = prefix[:cut], prefix[cut:]
    if not _ASSIGN.search(complete) and _OPENS_WITHOUT_VARIABLE.fullmatch(current, partial=True) is None:
        return False
    assigned = set(_ASSIGNED.findall(complete))
    reads = _ASSIGN.split(current)[0]
    if any(variable not in assigned for variable in _READ.findall(reads)):
        return False  # the line reads a variable no step has assigned: nothing can close it
    partial = _READING.search(reads)
    if partial and not any(variable.startswith(partial.group()) for variable in assigned):
        return False
    compared = _COMPARES_VARIABLE.fullmatch(current)
    if compared and {v for v in assigned if v.startswith(compared.group(2))} <= {compared.group(1)}:
        return False  # the variable compared with itself: no plan reads that
    return not complete.strip() or closing(complete) is not None


_ASSIGN_TO = r"assign[ \t]+it[ \t]+to"
#: a variable, as the plan grammar's ``VAR`` spells it
_VARIABLE = r"\?[A-Za-z_][A-Za-z0-9_]*"
_ASSIGN = regex.compile(_ASSIGN_TO, regex.IGNORECASE)
_ASSIGNED = regex.compile(rf"{_ASSIGN_TO}[ \t]*({_VARIABLE})", regex.IGNORECASE)
#: a variable written out in full (a character that cannot continue its name follows it)
_READ = regex.compile(rf"{_VARIABLE}(?=[^A-Za-z0-9_])")
#: a variable still being written, at the end of the output
_READING = regex.compile(r"\?[A-Za-z0-9_]*$")
#: a comparison whose other side is a variable being written (``Make sure ?v1 is greater than ?v``)
_COMPARES_VARIABLE = regex.compile(
    rf"[ \t]*make[ \t]+sure[ \t]+({_VARIABLE})[ \t]+is\b[^?]*(\?[A-Za-z0-9_]*)", regex.IGNORECASE
)
#: what a line may begin with while no variable is assigned: the header, a step number, Find
_OPENS_WITHOUT_VARIABLE = regex.compile(
    r"[ \t]*(?:step[ \t]*\d+[ \t]*[:.)][ \t]*)?(?:type|find)\b.*", regex.IGNORECASE
)

#: a step that assigns its result, or a ranking that keeps its first, is over: nothing but the
#: line's end may follow
_RUNS_ON = regex.compile(
    rf"(?:{_ASSIGN_TO}[ \t]*{_VARIABLE}|keep[ \t]+the[ \t]+first(?:[ \t]+\d+)?)\.\s*\S", regex.IGNORECASE
)
_ASSIGN_END = regex.compile(rf"{_ASSIGN_TO}[ \t]*{_VARIABLE}\.\s*$", regex.IGNORECASE)


def runs_on(prefix: str) -> bool:
    """Whether the line being written goes on after the ``, assign it to ?v.`` (or a ranking's
    ``keep the first.``) that ends it (the grammar's free-text phrases would take it, and a
    wandering model fills the budget there).

    >>> runs_on("Type: simple\\nFind the film of the actor X, assign it to ?x. carrier war")
    True
    >>> runs_on("Type: simple\\nFind the film of the actor X, assign it to ?x.")
    False
    """
    return _RUNS_ON.search(prefix[prefix.rfind("\n") + 1 :]) is not None


def checked_lines(prefix: str) -> str:
    """``prefix`` with its last line counted as complete when it has written its ``assign it
    to ?v.``: the step is over, so :func:`steps_read` judges it before its line break (a
    step that assigns a variable already assigned is refused at its ``.``, not after it,
    where nothing could follow it)."""
    return prefix + "\n" if _ASSIGN_END.search(prefix[prefix.rfind("\n") + 1 :]) else prefix


def allowed_prefix(prefix: str) -> bool:
    """Whether plan text ``prefix`` may be written: a prefix of the grammar's sentences, no
    text after a step's end, and complete steps that can still make a plan."""
    return viable_prefix(prefix) and not runs_on(prefix) and steps_read(checked_lines(prefix))


def complete_plan(output: str, codec: Codec, names: Sequence[str]) -> bool:
    """Whether ``output`` ends a plan that parses."""
    try:
        parse_plan(decode_output(output, codec, names))
    except PlanError:
        return False
    return True


class GrammarLogitsProcessor:
    """A ``transformers`` logits processor for greedy decoding that keeps every output a
    prefix of a plan (see the module docstring). Row ``i`` of the batch has ``names[i]``."""

    def __init__(
        self,
        tokenizer: Any,
        codec: Codec,
        names: Sequence[Sequence[str]],
        prompt_length: int,
        max_new_tokens: int,
        top_k: int = DEFAULT_TOP_K,
        reserve: int = DEFAULT_RESERVE,
        eos: Sequence[int] | None = None,
    ) -> None:
        self.tokenizer = tokenizer
        self.codec = codec
        self.names = [tuple(n) for n in names]
        self.prompt_length = prompt_length
        self.top_k = top_k
        self.close_from = max(1, max_new_tokens - reserve)
        if eos is None:  # an encoder-decoder's tokenizer ends with [SEP]; a causal model passes its own
            eos = [_single(tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id)]
        self.eos_ids = frozenset(eos)
        self.eos = next(iter(eos))
        self.special = _special_ids(tokenizer) - self.eos_ids
        self.forced: dict[int, list[int]] = {}
        self.unconstrained = 0
        self.checks = 0

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        """``scores`` (batch, vocabulary), torch or numpy, with the tokens that do not fit masked."""
        for row in range(scores.shape[0]):
            written = input_ids[row, self.prompt_length :].tolist()
            if written and (written[-1] in self.eos_ids or written[-1] == self.tokenizer.pad_token_id):
                continue  # this row has finished; generate pads it
            if (row in self.forced or len(written) >= self.close_from) and self._force(row, written, scores[row]):
                continue
            self._constrain(row, written, scores[row])
        return scores

    def _constrain(self, row: int, written: list[int], scores: Any) -> None:
        before = self.tokenizer.decode(written, skip_special_tokens=True)
        for token in _best(scores, self.top_k):
            self.checks += 1
            if self._fits(row, written, token, before):
                return
            scores[token] = -float("inf")
        self.unconstrained += 1

    def _fits(self, row: int, written: list[int], token: int, before: str) -> bool:
        if token in self.eos_ids:
            return complete_plan(before, self.codec, self._names(row))
        if token in self.special:
            return False
        text = self.tokenizer.decode(written + [token], skip_special_tokens=True)
        # A token must add text, and never half a character: a byte-level or byte-fallback
        # vocabulary spells a rare character in several byte tokens, the first of which
        # decodes to U+FFFD on its own.
        if text == before or text.count("\ufffd") > before.count("\ufffd"):
            return False
        prefix = plan_prefix(text, self.codec, self._names(row))
        return allowed_prefix(prefix)

    def _force(self, row: int, written: list[int], scores: Any) -> bool:
        """Write the plan's closing, one token a step (worked out on the first step of it); when no
        fixed ending closes the output yet (a word half written), say so: the step stays constrained."""
        if row not in self.forced:
            text = self.tokenizer.decode(written, skip_special_tokens=True)
            tail = closing(plan_prefix(text, self.codec, self._names(row)))
            if tail is None:
                return False
            if self.codec == "flat":
                tail = tail.replace("\n", " " + STEP_SEPARATOR.strip() + " ")
            self.forced[row] = self.tokenizer.encode(tail, add_special_tokens=False) + [self.eos]
        queue = self.forced[row]
        token = queue.pop(0) if queue else self.eos
        scores[:] = -float("inf")
        scores[token] = 0.0
        return True

    def _names(self, row: int) -> tuple[str, ...]:
        return self.names[row] if row < len(self.names) else ()


def _best(scores: Any, k: int) -> Iterator[int]:
    """The ``k`` best-scoring tokens of one row of torch or numpy scores, best first. The best
    nearly always fits, so the rest are ranked only when it did not (ranking the vocabulary
    at every step cost as much as a decoder layer)."""
    first = int(scores.argmax())
    yield first
    if isinstance(scores, np.ndarray):
        k = min(k, scores.shape[-1])
        top = np.argpartition(-scores, k - 1)[:k]
        ranked = [int(t) for t in top[np.argsort(-scores[top], kind="stable")]]
    else:
        ranked = [int(t) for t in scores.topk(min(k, scores.shape[-1])).indices.tolist()]
    yield from (token for token in ranked[: k - 1] if token != first)


def _single(token: int | list[int] | None) -> int | None:
    return token[0] if isinstance(token, list) else token


def _special_ids(tokenizer: Any) -> frozenset[int]:
    """The tokens that write no plan text: the tokenizer's special tokens, and the added ones
    marked special (Gemma's 6,000-odd control tokens, ``<unusedN>`` and the like)."""
    added = getattr(tokenizer, "added_tokens_decoder", {}) or {}
    return frozenset(tokenizer.all_special_ids) | {index for index, token in added.items() if token.special}
