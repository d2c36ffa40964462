"""scripts/rebuild_planner.sh: stages in order, --data-only, --resume after a cut.

The real chain trains for hours, so ``nl2sparql`` and the pair draws are replaced by stand-ins
(``NL2SPARQL`` and ``PYTHON``) that make each stage's output and log their arguments; what is
tested is the script's own logic: which stages run, in which order, which are skipped, and
that a cut-off training run is continued with ``--resume``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "rebuild_planner.sh"

STAND_IN = r"""#!/usr/bin/env bash
# a stand-in for nl2sparql: logs its arguments, makes each command's output folder
echo "$*" >> "$CALLS"
out() { local prev=""; for a in "$@"; do [ "$prev" = --out ] && echo "$a"; prev=$a; done; }
case "$1 $2" in
  "setup --quiet") ;;
  "planner data") d=$(out "$@"); mkdir -p "$d"; echo '{}' > "$d/train.jsonl" ;;
  "planner train")
    d=$(out "$@"); mkdir -p "$d"
    if [ "$d" = "${FAIL_ON:-}" ] && [[ " $* " != *" --resume "* ]]; then echo cut >&2; exit 1; fi
    echo '{}' > "$d/planner.json" ;;
  "planner export")
    [ -f "$3/planner.json" ] || { echo "no $3" >&2; exit 1; }
    mkdir -p "$4"; echo '{}' > "$4/planner.json" ;;
  *) echo "unexpected: $*" >&2; exit 2 ;;
esac
"""

PAIRS_STAND_IN = r"""#!/usr/bin/env bash
# a stand-in for `python scripts/planner_pairs.py ... OUT`: makes OUT
echo "pairs ${*: -1}" >> "$CALLS"
mkdir -p "${*: -1}" && echo '{}' > "${*: -1}/train.jsonl"
"""

TRAINED = ["run", "run-ex", "run-v3", "run-g", "run-h", "run-i", "run-j", "run-k", "run-u"]
DATA = ["pairs", "pairs-ex", "pairs-v3", "pairs-g", "pairs-h", "pairs-i", "pairs-j", "pairs-k", "pairs-m", "pairs-c3"]


@pytest.fixture
def rebuild(tmp_path: Path):
    """Run the script with the stand-ins; returns (run, calls file, work folder)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("nl2sparql", STAND_IN), ("python", PAIRS_STAND_IN)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    calls, work = tmp_path / "calls.log", tmp_path / "work"

    def run(*args: str, fail_on: str = "") -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "NL2SPARQL": str(bin_dir / "nl2sparql"),
            "PYTHON": str(bin_dir / "python"),
            "CALLS": str(calls),
            "FAIL_ON": fail_on,
        }
        return subprocess.run(
            ["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=120, check=False
        )

    return run, calls, work


def trained(calls: Path) -> list[str]:
    """The --out of every `planner train` call, in order."""
    outs = []
    for line in calls.read_text().splitlines():
        words = line.split()
        if words[:2] == ["planner", "train"]:
            outs.append(words[words.index("--out") + 1])
    return outs


def test_the_default_chain_runs_every_stage_in_order(rebuild) -> None:
    run, calls, work = rebuild
    done = run(str(work), "default")
    assert done.returncode == 0, done.stderr
    assert trained(calls) == TRAINED
    train_calls = [line for line in calls.read_text().splitlines() if line.startswith("planner train")]
    assert all(" --checkpoint-steps 25" in line for line in train_calls)  # a cut loses minutes, not an epoch
    assert (work / "default" / "planner.json").is_file()
    assert (work / "plain" / "planner.json").is_file()
    assert not (work / "freebase").exists()


def test_data_only_makes_every_input_and_trains_nothing(rebuild) -> None:
    run, calls, work = rebuild
    done = run("--data-only", str(work), "default")
    assert done.returncode == 0, done.stderr
    assert trained(calls) == []
    assert all((work / ".done" / stage).is_file() for stage in [*DATA, "pairs-all"])
    assert not any((work / name).exists() for name in ["default", "plain", "run-ex-int8", *TRAINED])

    calls.write_text("")
    resumed = run("--resume", str(work), "default")
    assert resumed.returncode == 0, resumed.stderr
    assert trained(calls) == TRAINED
    made_again = [line for line in calls.read_text().splitlines() if line.startswith(("planner data", "pairs "))]
    assert made_again == []
    assert (work / "default" / "planner.json").is_file()


def test_a_cut_off_run_continues_with_resume(rebuild) -> None:
    run, calls, work = rebuild
    cut = run(str(work), "default", fail_on="run-g")
    assert cut.returncode != 0
    assert not (work / ".done" / "run-g").exists()
    assert trained(calls)[-1] == "run-g"

    calls.write_text("")
    resumed = run("--resume", str(work), "default")
    assert resumed.returncode == 0, resumed.stderr
    assert trained(calls) == TRAINED[TRAINED.index("run-g") :]
    assert " --resume" in next(line for line in calls.read_text().splitlines() if "--out run-g" in line)


def test_a_used_folder_needs_resume(rebuild) -> None:
    run, _calls, work = rebuild
    work.mkdir()
    (work / "something").write_text("")
    refused = run(str(work), "default")
    assert refused.returncode == 2
    assert "not empty" in refused.stderr
    assert "unknown target" in run("--resume", str(work), "nonsense").stderr
