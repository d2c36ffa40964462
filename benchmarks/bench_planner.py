"""Planner speed on this machine: planning with the old and the new decoding, decoding latency
and throughput, and the cost of a training step.

    python benchmarks/bench_planner.py --only plan           # old vs new decoding of the default planner
    python benchmarks/bench_planner.py                       # everything, untrained minilm-ed
    python benchmarks/bench_planner.py --model DIR           # decode with a trained planner
    python benchmarks/bench_planner.py --only decode --questions 50
    python benchmarks/bench_planner.py --only decode --base minilm-ed --base smollm2 --beams 1 --questions 8
    python benchmarks/bench_planner.py --only train --base smollm2 --methods lora --gradient-checkpointing

``--only plan`` plans the questions with the default planner (``--planner`` names another)
three times in the same run: the old decoding (beam 4 for every question, the first beam
that parses wins) and the new one (greedy, constrained by the plan grammar; beams only for a
plan that does not parse), both on torch, and the new one on the numpy runtime. It prints
planning p50 and p95 at batch 1 (exemplar retrieval included), throughput at batch 16, and
how many greedy outputs needed another try.

Decoding runs on real questions (WebQSP test part A with their topic entities), with the
exemplars a planner trained on them reads (their retrieval counted in the batch-1 times). An
untrained model writes noise of arbitrary length, so without ``--model`` every output is
forced to ``--tokens`` new tokens (the length of a typical plan), which makes the figures
the cost of writing one plan of that length. Training steps run at batch 16 on the same
questions with the few-shot plans of the ``openai:`` prompt as targets (46 tokens on
average; gold plans synthesised from WebQSP train average 52), or on the first 16 pairs
of ``--data``, for full fine-tuning and for LoRA; the estimate for a training run is steps x step time.
``--base`` (repeatable) names the untrained bases to decode and train with, in one run so
their ratios compare (``smollm2``, ``gemma3-270m``, ``gguf:PATH`` need ``nl2sparql[bases]``);
``--methods``, ``--batch`` and ``--gradient-checkpointing`` choose the training steps timed.
Peak memory is the process's peak resident size after each measurement (the model's load
included), so measure one base and method a run for a step's memory.
Figures only, never assertions: the machine is shared, so compare ratios.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import sys
import time
from pathlib import Path

import torch

from nl2sparql.config import data_file
from nl2sparql.planner.backends.local import exemplars_for, hints_for
from nl2sparql.planner.backends.openai_chat import EXAMPLES
from nl2sparql.planner.exemplars import ExemplarMemory, exemplar_count, planner_inputs
from nl2sparql.planner.input_format import format_input
from nl2sparql.planner.model import DEFAULT_BASE, LoraSettings, PlannerModel, add_lora, build_base, parse_base
from nl2sparql.planner.pairs import read_pairs
from nl2sparql.training.train import enable_gradient_checkpointing


def questions(limit: int) -> list[tuple[str, dict[str, str]]]:
    records = json.loads(data_file("webqsp/WebQSP.test.part-A.json").read_text())["Questions"]
    found = []
    for record in records:
        parse = record["Parses"][0]
        entities = {parse["TopicEntityMid"]: parse["TopicEntityName"]} if parse.get("TopicEntityName") else {}
        found.append((record["ProcessedQuestion"], entities))
    return found[:limit]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def untrained(base: str = DEFAULT_BASE) -> PlannerModel:
    model, tokenizer, architecture = build_base(parse_base(base))
    return PlannerModel(model, tokenizer, architecture)


def peak_memory() -> str:
    """The process's peak resident size so far (Linux reports KiB)."""
    return f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GiB"


Items = list[tuple[str, dict[str, str]]]


def bench_decode(
    model: PlannerModel,
    items: Items,
    tokens: int,
    forced: bool,
    memory: ExemplarMemory | None,
    beam_sizes: tuple[int, ...] = (1, 4),
    label: str = "",
) -> dict[int, float]:
    """Decoding p50/p95 at batch 1 and throughput at batch 16; returns the batch-1 p50 (ms) per beam size."""
    k = exemplar_count(model.meta)
    hints = hints_for(model.meta, None)  # a planner trained on relation hints reads the home bank's
    inputs = planner_inputs([q for q, _ in items], [e for _, e in items], memory, k, hints)
    names = [tuple(e.values()) for _, e in items]
    fixed = {"max_new_tokens": tokens, "min_new_tokens": tokens if forced else 0}
    model.generate(inputs[:2], names[:2], **fixed)  # warm-up
    if memory is not None and k:
        times = []
        for item in items:
            began = time.perf_counter()
            planner_inputs([item[0]], [item[1]], memory, k, hints)
            times.append((time.perf_counter() - began) * 1000)
        median = statistics.median(times)
        print(f"input retrieval ({k} exemplars of {len(memory.ids)}): p50 {median:7.1f} ms (counted in batch-1 times)")
    medians = {}
    for beams in beam_sizes:
        times = []
        for item, name in zip(items, names, strict=True):
            began = time.perf_counter()
            model.generate(planner_inputs([item[0]], [item[1]], memory, k, hints), [name], num_beams=beams, **fixed)
            times.append((time.perf_counter() - began) * 1000)
        kind = "greedy" if beams == 1 else f"beam {beams}"
        medians[beams] = statistics.median(times)
        print(
            f"{label}decode batch 1, {kind:7s}: p50 {medians[beams]:7.1f} ms   "
            f"p95 {percentile(times, 0.95):7.1f} ms   ({len(times)} questions, {tokens} tokens)"
        )
    for beams in beam_sizes:
        began = time.perf_counter()
        for start in range(0, len(inputs), 16):
            model.generate(inputs[start : start + 16], names[start : start + 16], num_beams=beams, **fixed)
        seconds = time.perf_counter() - began
        kind = "greedy" if beams == 1 else f"beam {beams}"
        print(f"{label}decode batch 16, {kind:7s}: {len(inputs) / seconds:7.1f} questions/s   ({peak_memory()})")
    return medians


#: what ``--only plan`` compares: the decoding options and the runtime (planner/numpy_model.py)
DECODINGS = {
    "old (beam 4, torch)": ({"lazy_beams": False}, "torch"),
    "greedy, grammar, torch": ({}, "torch"),
    "greedy, grammar, numpy": ({}, "numpy"),
}


def bench_plan(spec: str, items: Items) -> None:
    """Planning with the old and the new decoding, on torch and on numpy, through the planner
    backend (what the pipeline calls)."""
    from nl2sparql.planner.backends import open_planner

    requests = [{"question": q, "entities": e} for q, e in items]
    figures = {}
    for label, (options, runtime) in DECODINGS.items():
        os.environ["NL2SPARQL_PLANNER_RUNTIME"] = runtime
        planner = open_planner(spec, **options)
        planner.plan_batch(requests[:2], batch_size=1)  # warm-up
        times, retried = [], 0
        for request in requests:
            began = time.perf_counter()
            output = planner.plan_batch([request], batch_size=1, errors="return")[0]
            times.append((time.perf_counter() - began) * 1000)
            retried += getattr(output, "attempts", 2) > 1
        began = time.perf_counter()
        planner.plan_batch(requests, batch_size=16, errors="return")
        rate = len(requests) / (time.perf_counter() - began)
        figures[label] = statistics.median(times), rate
        print(
            f"plan {label:24s} batch 1: p50 {statistics.median(times):7.1f} ms  p95 {percentile(times, 0.95):7.1f} ms"
            f"   batch 16: {rate:6.2f} questions/s   needed another try: {retried}/{len(requests)}"
        )
        planner.close()
    old_p50, old_rate = next(iter(figures.values()))
    for label, (p50, rate) in list(figures.items())[1:]:
        print(f"{label} / old: batch-1 p50 x{p50 / old_p50:.2f}, batch-16 throughput x{rate / old_rate:.2f}")


def bench_train_step(
    items: Items,
    steps: int,
    pairs: int,
    epochs: int,
    data: Path | None,
    base_spec: str = DEFAULT_BASE,
    methods: tuple[str, ...] = ("full", "lora"),
    batch_size: int = 16,
    checkpointing: bool = False,
) -> None:
    if data is not None:  # real training pairs: their inputs and plans
        chosen = read_pairs(data)[:batch_size]
        inputs, plans = [p.input for p in chosen], [p.output for p in chosen]
    else:
        inputs, plans = [format_input(q, e) for q, e in items[:batch_size]], [plan for _, plan in EXAMPLES]
    estimates = {}
    for method in methods:
        base = parse_base(base_spec)
        model, tokenizer, architecture = build_base(base)
        if checkpointing:
            enable_gradient_checkpointing(model)
        if method == "lora":
            model = add_lora(model, base, architecture, LoraSettings())
        planner = PlannerModel(model, tokenizer, architecture)
        targets = [planner.target_ids(plans[i % len(plans)]) for i in range(batch_size)]
        parameters = [p for p in model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(parameters, lr=1e-4)
        batch = planner.batch([inputs[i % len(inputs)] for i in range(batch_size)], targets)
        model.train()
        times = []
        for step in range(steps + 1):
            began = time.perf_counter()
            loss, _ = planner.loss(batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            if step:  # the first step allocates the optimiser state
                times.append(time.perf_counter() - began)
        step_time = statistics.median(times)
        trainable = sum(p.numel() for p in parameters)
        total_steps = math.ceil(pairs / batch_size) * epochs
        estimates[method] = step_time * total_steps
        mean_target = statistics.mean(len(t) for t in targets)
        width = batch["input_ids"].shape[1]
        print(
            f"train step {base_spec}, batch {batch_size} x {width} tokens, {method:4s}"
            f"{' (gradient checkpointing)' if checkpointing else ''}: {step_time:6.2f} s/step (median of {steps}; "
            f"{trainable / 1e6:.1f}M trainable; targets {mean_target:.0f} tokens; {peak_memory()}) -> "
            f"{epochs} epochs x {pairs} pairs = {total_steps} steps ~ {estimates[method] / 60:.1f} min"
        )
        del model, planner, optimizer
    if {"lora", "full"} <= estimates.keys():
        print(f"LoRA / full step time: {estimates['lora'] / estimates['full']:.2f}")


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--model", type=Path, help="a trained planner folder (default: untrained minilm-ed)")
    parser.add_argument("--questions", type=int, default=48)
    parser.add_argument("--tokens", type=int, default=64, help="new tokens per plan (forced when untrained)")
    parser.add_argument("--steps", type=int, default=5, help="timed training steps per method")
    parser.add_argument("--pairs", type=int, default=3000, help="training pairs for the estimate")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--data", type=Path, help="a pairs .jsonl whose first 16 pairs make the training batch")
    parser.add_argument("--only", choices=("plan", "decode", "train"))
    parser.add_argument("--planner", default="default", help="planner spec for --only plan (default: default)")
    parser.add_argument("--threads", type=int, help="torch threads (default: one per core)")
    parser.add_argument(
        "--base", action="append", help=f"untrained base to decode and train with, repeatable (default {DEFAULT_BASE})"
    )
    parser.add_argument("--beams", default="1,4", help="beam sizes to decode with, comma-separated (default 1,4)")
    parser.add_argument("--methods", default="full,lora", help="training methods to time (default full,lora)")
    parser.add_argument("--batch", type=int, default=16, help="training batch size (default 16)")
    parser.add_argument("--gradient-checkpointing", action="store_true", help="time training steps with it on")
    args = parser.parse_args()
    bases = args.base or [DEFAULT_BASE]
    beam_sizes = tuple(int(b) for b in args.beams.split(","))
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  (each figure as it is measured)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    load = os.getloadavg()[0]
    threads = torch.get_num_threads()
    print(f"torch {torch.__version__}, {threads} threads, cuda: {torch.cuda.is_available()}, load {load:.1f}")
    items = questions(max(args.questions, 16))
    if args.only in (None, "plan"):
        bench_plan(args.planner, items[: args.questions])
    if args.only in (None, "decode") and args.model:
        model = PlannerModel.load(args.model)
        memory = exemplars_for(args.model, model.meta)
        bench_decode(model, items[: args.questions], args.tokens, False, memory, beam_sizes)
    elif args.only in (None, "decode"):
        first: dict[int, float] = {}
        for spec in bases:
            began = time.perf_counter()
            model = untrained(spec)
            print(f"{spec}: loaded in {time.perf_counter() - began:.1f} s ({model.architecture}, {model.codec} codec)")
            medians = bench_decode(model, items[: args.questions], args.tokens, True, None, beam_sizes, f"{spec}: ")
            first = first or medians
            if medians is not first:
                ratios = ", ".join(
                    f"{'greedy' if b == 1 else f'beam {b}'} x{medians[b] / first[b]:.2f}" for b in medians
                )
                print(f"{spec} / {bases[0]} batch-1 p50: {ratios}")
            del model
    if args.only in (None, "train"):
        for spec in bases:
            methods = tuple(args.methods.split(","))
            bench_train_step(
                items,
                args.steps,
                args.pairs,
                args.epochs,
                args.data,
                spec,
                methods,
                args.batch,
                args.gradient_checkpointing,
            )


if __name__ == "__main__":
    main()
