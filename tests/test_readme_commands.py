"""The README's commands run as written and print what the README says they print.

The bring-your-own-KG walk-through (the ```bash block whose first line is ``# byo-kg``) runs
in a temporary folder holding the files it names, with a fresh home: it must work on a
machine where ``nl2sparql setup`` never ran. Its ``ask`` runs the shipped default planner,
so what that prints beyond its layout (a count plan, the answer 5) is a trained model's and
is checked by a test marked ``model``.

The quick start (the block marked ``# quick-start``) installs, builds the full Freebase
default (5 minutes or more) into ``$NL2SPARQL_HOME`` and asks; it is marked ``slow`` (and
``model``: the answers are the shipped planner's).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CLI = ".venv/bin/nl2sparql"

# What the README's walk-through says each command prints, by its subcommand.
BYO_KG_PRINTS = {
    ("kg", "load"): ["352 triples added, 352 in total"],
    ("bank", "build"): ["wrote records.nl2sq: 21 statements, 0 constraints"],
    ("kg", "link"): ["99 entities named: 99 by IRI local names", "QueenB 'Queen B' (exact match of 'queen')"],
    ("compile",): ["SELECT (COUNT(DISTINCT ?x) AS ?n)", "recordedBy", "# 1 answer(s)\n5\n"],
    ("planner", "exemplars"): ["wrote records-exemplars: 20 exemplars of 20 example questions"],
    ("ask",): ["Count ?x, assign it to ?n.", "SELECT (COUNT(DISTINCT ?x) AS ?n)", "recordedBy"],
}


def readme_block(marker: str) -> list[str]:
    """The commands of the README's bash block whose first line is ``# <marker>``.

    A line ending in a backslash continues on the next; comment lines are left out.
    """
    blocks = re.findall(r"^```bash\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.M | re.S)
    marked = [b for b in blocks if b.splitlines()[0].strip() == f"# {marker}"]
    assert len(marked) == 1, f"the README has {len(marked)} bash blocks marked '# {marker}'"
    text = marked[0].replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def subcommand(line: str) -> tuple[str, ...]:
    """The ``nl2sparql`` subcommand a command line runs: ``("kg", "load")``, ``("ask",)``."""
    words = shlex.split(line)
    rest = words[words.index(CLI) + 1 :]
    return tuple(rest[:2]) if rest[0] in ("kg", "bank", "planner") else (rest[0],)


def squeezed(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


def test_the_byo_kg_block_is_what_the_walk_through_describes() -> None:
    lines = readme_block("byo-kg")
    assert all(CLI in shlex.split(line) for line in lines), "every line runs the venv's nl2sparql"
    assert [subcommand(line) for line in lines] == list(BYO_KG_PRINTS)


@pytest.fixture(scope="module")
def byo_kg_runs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, subprocess.CompletedProcess[str]]]:
    """The walk-through's command lines, run once in order as written (by bash, from a folder
    holding the files they name, the venv's ``nl2sparql`` being this Python's), each with what
    it printed; a line that fails stops the walk."""
    folder = tmp_path_factory.mktemp("byo-kg")
    lines = readme_block("byo-kg")
    for line in lines:  # the files the block names, at the same paths under the folder
        for word in shlex.split(line):
            if word.startswith("tests/") and (ROOT / word).is_file():
                (folder / word).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / word, folder / word)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("NL2SPARQL_")},  # no caller settings
        "NL2SPARQL_HOME": str(folder / "home"),  # a fresh machine: no setup ran
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    cli = f"{shlex.quote(sys.executable)} -m nl2sparql"
    runs = []
    for line in lines:
        script = "set -o pipefail\n" + line.replace(CLI, cli)
        run = subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True, timeout=900)
        runs.append((line, run))
        if run.returncode:
            break
    return runs


def shown(line: str, run: subprocess.CompletedProcess[str]) -> str:
    return f"{line}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr}"


def test_the_byo_kg_commands_run_as_written(byo_kg_runs: list) -> None:
    assert len(byo_kg_runs) == len(BYO_KG_PRINTS)
    for (line, run), (key, expected) in zip(byo_kg_runs, BYO_KG_PRINTS.items(), strict=True):
        assert run.returncode == 0, shown(line, run)
        if key == ("ask",):  # what it prints, whatever the model planned
            for part in ("question:", "entities: Queen", "plan:", "sparql:", "answers:", "timings:"):
                assert part in run.stdout, shown(line, run)
            continue
        for text in expected:
            assert text in (run.stdout if "\n" in text else squeezed(run.stdout)), shown(line, run)


@pytest.mark.model(floor="a count plan over recordedBy answering 5", measured="the same (the shipped default)")
def test_the_byo_kg_ask_answers_what_the_readme_says(byo_kg_runs: list) -> None:
    line, run = byo_kg_runs[-1]
    assert subcommand(line) == ("ask",) and run.returncode == 0, shown(line, run)
    for text in BYO_KG_PRINTS[("ask",)]:
        assert text in run.stdout, shown(line, run)
    answers = run.stdout.split("answers:", 1)[1].split("timings:", 1)[0].split()
    assert answers == ["5"], shown(line, run)  # Queen recorded 5 albums in records.ttl


@pytest.mark.slow
@pytest.mark.model(
    floor="Morgan Freeman linked (m.055c8), a film plan, Million Dollar Baby and The Dark Knight among the answers",
    measured="the same, 18 films (the shipped default)",
)
def test_the_quick_start_runs_as_written() -> None:
    (command,) = readme_block("quick-start")
    assert command == (
        "bash scripts/install.sh && .venv/bin/nl2sparql setup && "
        '.venv/bin/nl2sparql ask "what movies did morgan freeman star in?"'
    )
    run = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=3600,
    )
    printed = f"stdout:\n{run.stdout[-4000:]}\nstderr:\n{run.stderr[-4000:]}"
    assert run.returncode == 0, printed
    answer = run.stdout.rsplit("question:", 1)[-1]
    for text in ("m.055c8", "Find the film of the actor Morgan Freeman", "Million Dollar Baby", "The Dark Knight"):
        assert text in answer, printed
