"""A command line that names a command imports only the module that registers it: the
table in ``nl2sparql.cli`` must name every command's true home, and ``ask`` (the command a
user runs against a running service) must start without the compiler, gRPC or torch."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from nl2sparql.cli import COMMAND_MODULES, COMMANDS, build_parser, main


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    return {name for action in parser._subparsers._group_actions for name in action.choices}


def test_every_registered_command_is_in_the_table() -> None:
    assert _commands(build_parser()) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_alone_registers_from_its_module(command: str) -> None:
    registered = _commands(build_parser(command))
    assert command in registered
    assert {COMMANDS[name] for name in registered} == {COMMANDS[command]}
    assert COMMANDS[command] in COMMAND_MODULES


def test_ask_parses_without_heavy_imports() -> None:
    code = (
        "import sys; from nl2sparql.cli import build_parser; "
        "build_parser('ask').parse_args(['ask', 'what county is san diego in?']); "
        "print(sorted({m.split('.')[0] if not m.startswith('nl2sparql') else '.'.join(m.split('.')[:2]) "
        "for m in sys.modules}))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for heavy in ("grpc", "torch", "lark", "nl2sparql.compiler", "nl2sparql.planner", "faiss"):
        assert f"'{heavy}'" not in loaded, heavy


def test_unknown_command_still_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["no-such-command"])
    err = capsys.readouterr().err
    assert "invalid choice" in err and "serve" in err and "ask" in err
