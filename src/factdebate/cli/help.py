"""The root command group, which tidies every command's --help before it is drawn.

Typer's Rich help gives a flag the type column of an option that takes a value (``--json <bool>``,
``--help <bool>``), which reads as if the flag wanted an argument; its plain help leaves it out. An empty
metavar leaves it out of the Rich help too. Commands are reached through the root group (subgroups such as
``memory`` included), so fixing them as the group hands them out covers every command, whichever module
registered it."""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup


def _quiet_flags(command: Any, ctx: Any) -> None:
    help_option = command.get_help_option(ctx)  # made on first use and cached by the command
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _quiet_flags(sub, ctx)


class HelpGroup(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for param in params:
            if getattr(param, "is_flag", False) and param.metavar is None:
                param.metavar = ""
        return params

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _quiet_flags(command, ctx)
        return command
