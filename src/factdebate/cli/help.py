"""The root command group, which tidies every command's --help before it is drawn.

Typer's Rich help shows a flag's type (``--json <bool>``) as if it took a value; an empty metavar leaves it out.
Every command is reached through the root group, so fixing them there covers all."""

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


# The root --help in panels by what a newcomer came to do (one list of 20 commands tells them nothing); a command
# missing here (a plug-in's) stays in the default "Commands" panel.
PANELS = {
    "Check claims": ("verify", "check-response", "methods", "schema"),
    "Set up and inspect": ("setup", "doctor", "index", "corpus", "datasets", "memory", "docs"),
    "Evaluate and compare": ("eval", "eval-retrieval", "report", "compare", "reproduce", "calibrate"),
    "Serve": ("serve", "mcp", "mcp-tools", "stand-in-upstream"),
}
PANEL_OF = {name: panel for panel, names in PANELS.items() for name in names}


class HelpGroup(TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        """Panel by panel, so each panel lists its commands in the order above."""
        names = super().list_commands(ctx)
        order = {name: n for n, name in enumerate(PANEL_OF)}
        return sorted(names, key=lambda name: order.get(name, len(order)))

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
            if ctx.parent is None and cmd_name in PANEL_OF and not getattr(command, "rich_help_panel", None):
                command.rich_help_panel = PANEL_OF[cmd_name]  # type: ignore[attr-defined]
            if ctx.parent is None and command.help and not command.short_help:
                # the list shows the first paragraph; a docstring's line breaks broke it mid-sentence
                command.short_help = " ".join(command.help.split("\n\n")[0].split())
        return command
