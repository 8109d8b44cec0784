"""The command line: every command, thin (parse flags, build settings, call the run layer).

``main`` is the console script's entry point; it imports the commands only when called."""

from __future__ import annotations


def main() -> None:
    from factdebate.cli.main import main as run

    run()
