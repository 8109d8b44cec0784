"""--help that teaches: defaults with their units, options in panels (common, each method's own, output,
operator), no flag shown as taking a value, and a warning for a flag the chosen method ignores."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from factdebate.cli.main import app
from factdebate.settings.options import not_read_by
from tests.cli.test_main import run_here

WIDE = {"COLUMNS": "220"}  # one line per flag, so a flag and its default can be matched on one line


def help_of(*command: str) -> str:
    result = CliRunner().invoke(app, [*command, "--help"], env=WIDE)
    assert result.exit_code == 0, result.output
    return result.output


def line_of(text: str, flag: str) -> str:
    return next(line for line in text.splitlines() if re.search(rf"│ {re.escape(flag)}\b", line))


def commands(group: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, sub in getattr(group, "commands", {}).items():
        found += commands(sub, (*path, name))
    return found


@pytest.mark.parametrize("command", ["verify", "eval", "check-response", "serve", "reproduce"])
def test_the_verification_flags_show_their_defaults(command: str) -> None:
    text = help_of(command)
    assert "[default: 3]" in line_of(text, "--rounds")
    assert "[default: 3]" in line_of(text, "--k")
    if command not in ("eval", "reproduce"):  # theirs is their own flag: several methods, or the paper's
        assert "[default: tool-mad]" in line_of(text, "--method")
    assert "[default: 300 characters]" in line_of(text, "--judge-evidence-chars")  # with its unit
    assert "[default: on]" in line_of(text, "--cache")
    assert "Verification method: Verification method" not in text


def test_own_flags_show_theirs_too() -> None:
    assert "concurrency, 4" in line_of(help_of("eval"), "--concurrency")
    assert "[default: local]" in line_of(help_of("verify"), "--executor")
    assert "[default: 8000]" in line_of(help_of("serve"), "--port")
    assert "[default: 0]" in line_of(help_of("reproduce"), "--seed")


def test_no_command_shows_a_flag_as_taking_a_value() -> None:
    from typer.main import get_command

    every = commands(get_command(app))
    assert ("memory", "ls") in every and ("verify",) in every
    for path in every:
        text = help_of(*path)
        assert "<bool>" not in text, path
        assert re.search(r"│\s+--help\s+Show this message and exit", text), path


def test_verify_help_is_in_panels_in_reading_order() -> None:
    text = help_of("verify")
    panels = re.findall(r"╭─ (.+?) ─", text)
    assert panels[:6] == ["Arguments", "Options", "Common options", "Options of --method tool-mad",
                          "Options of --method dpd", "Options of --method mermaid"]  # then the baselines'
    assert panels[-3:] == ["Output", "Operator options", "Scale-out"]
    tool_mad = text[text.index("Options of --method tool-mad"):text.index("Options of --method dpd")]
    assert "--rounds" in tool_mad and "--agents" in tool_mad and "--dpd-" not in tool_mad
    assert "--json" in text[text.index("╭─ Output"):]
    # What verify never reads is left out of its help (it still parses, with a warning) and shown where it counts.
    assert "--max-claims" not in text and "--response-claims" not in text
    assert "--max-claims" in help_of("check-response") and "--response-claims" not in help_of("check-response")
    assert "--response-claims" in help_of("eval")


def test_a_flag_the_method_ignores_is_a_warning(tmp_path: Path) -> None:
    result = run_here("verify", "Paris is in France.", "--method", "cot", "--rounds", "2", "--llm",
                      "scripted:agree", "--no-cache", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["label"] == "SUPPORTS"
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: verify --method cot ignores --rounds (a tool-mad option)"]
    result = run_here("verify", "Paris is in France.", "--method", "cot", "--max-claims", "2", "--llm",
                      "scripted:agree", "--no-cache", "--json")
    assert "ignores --max-claims (read by check-response and eval only)" in result.stderr
    quiet = run_here("verify", "Paris is in France.", "--method", "cot", "--k", "2", "--llm", "scripted:agree",
                     "--no-cache", "--json")
    assert quiet.returncode == 0 and "warning" not in quiet.stderr
    evaluated = run_here("eval", "--dataset", "countries", "--limit", "1", "--method", "cot", "--rounds", "2",
                         "--dry-run", "--output", str(tmp_path / "run"), "--llm", "scripted:agree")
    assert evaluated.returncode == 0, evaluated.stderr
    assert evaluated.stderr.splitlines()[0] == "warning: eval --method cot ignores --rounds (a tool-mad option)"


def test_a_borrowed_section_counts_as_read() -> None:
    assert not_read_by(["rounds", "agents", "k"], "vote") == []  # vote's voters are Tool-MAD's
    assert [o.name for o in not_read_by(["rounds", "dpd_max_rounds", "k"], "dpd")] == ["rounds"]
    assert not_read_by(["rounds"], "no-such-method") == []  # the settings say that one is unknown


def test_the_root_help_groups_commands_by_task_and_there_is_a_version(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50: `factdebate --help` was one list of 20 commands, with no --version."""
    from factdebate.cli.help import PANEL_OF, PANELS
    from factdebate.cli.main import run as run_cli

    text = help_of()
    at = {panel: text.index(f"─ {panel} ") for panel in PANELS}
    assert list(at) == sorted(at, key=at.__getitem__)  # in the order PANELS gives
    import typer

    built_in = {path[0] for path in commands(typer.main.get_command(app))[1:]}
    assert built_in == set(PANEL_OF)  # every built-in command has its panel
    assert "call the answer false if any claim is false" in " ".join(text.split())  # no mid-sentence breaks
    assert run_cli(["--version"]) == 0
    assert re.fullmatch(r"factdebate \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)
