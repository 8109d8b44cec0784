"""A settings file that is not valid YAML is one line naming the file and the line, from the command line and
from Python alike; the parser's own message (seven lines, a caret, the file called ``"<unicode string>"``) is
not shown."""

from __future__ import annotations

from pathlib import Path

import pytest

import factdebate as fd
from tests.cli.test_main import run_here

BROKEN = {
    "an unclosed list": ("method: [cot\nrounds: 2\n", "line 2, column 7: expected ',' or ']', but got ':' "
                                                       "(while parsing a flow sequence begun on line 1)"),
    "a key indented by mistake": ("method: cot\n  rounds: 2\n", "line 2, column 9: mapping values are not "
                                                                 "allowed here"),
    "an unclosed quote": ('method: "cot\n', "line 2, column 1: found unexpected end of stream (while scanning a "
                                             "quoted scalar begun on line 1)"),
    "a tab for indentation": ("methods:\n\ttool_mad:\n", "line 2, column 1: found character '\\t' that cannot "
                                                         "start any token"),
}


@pytest.mark.parametrize("mistake", list(BROKEN))
def test_the_command_line_says_the_file_and_the_line_in_one_line(tmp_path: Path, mistake: str) -> None:
    text, where = BROKEN[mistake]
    config = tmp_path / "factdebate.yaml"
    config.write_text(text, encoding="utf-8")
    result = run_here("verify", "The Eiffel Tower is in Rome.", "--config", str(config), env={"COLUMNS": "400"})
    assert result.returncode == 2
    said = result.stderr.strip()
    assert said == f"error: config file {config} is not valid YAML: {where}", said
    assert "\n" not in said and "<unicode string>" not in said


def test_python_gets_the_same_line_as_a_factdebate_error(tmp_path: Path) -> None:
    config = tmp_path / "settings.yaml"
    config.write_text(BROKEN["an unclosed list"][0], encoding="utf-8")
    with pytest.raises(fd.ConfigError) as caught:
        fd.verify("The Eiffel Tower is in Rome.", config_file=config, method="single")
    assert str(caught.value) == f"config file {config} is not valid YAML: {BROKEN['an unclosed list'][1]}"
