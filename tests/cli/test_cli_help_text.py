"""Help reads cleanly on an 80-column terminal: a command's description is re-wrapped to the
terminal's width, not broken again at every line break of its docstring."""

from __future__ import annotations

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from ragmeter.cli import app

runner = CliRunner()


def _commands() -> list[list[str]]:
    root = get_command(app)
    found: list[list[str]] = [[]]
    for name, command in getattr(root, "commands", {}).items():
        found.append([name])
        found += [[name, sub] for sub in getattr(command, "commands", {})]
    return found


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "ragmeter")
def test_descriptions_fill_the_width_at_80_columns(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    description = result.output.split("╭")[0].split("Usage:")[1].split("\n", 1)[1]
    paragraphs: list[list[str]] = [[]]
    for line in description.splitlines():
        if line.strip():
            paragraphs[-1].append(line.rstrip())
        elif paragraphs[-1]:
            paragraphs.append([])
    for lines in paragraphs:
        # Every line but a paragraph's last is filled to within a word of the width.
        assert all(len(line) >= 55 for line in lines[:-1]), "\n".join(lines)


def test_a_line_break_in_a_docstring_is_not_one_in_help() -> None:
    result = runner.invoke(app, ["generate", "--help"], env={"COLUMNS": "80"})
    assert "a person would ask by templates per language" in " ".join(result.output.split())
    assert " questions a \n" not in result.output
