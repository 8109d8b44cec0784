"""MkDocs hooks (mkdocs.yml, ``hooks:``): the pages the site shows that docs/ does not hold as files.

- ``index.md`` is the README and ``changelog.md`` CHANGELOG.md, with their links rewritten for the site (the
  README links ``docs/guard.md``; the site's pages sit where docs/ was).
- ``reference/cli.md`` and ``reference/settings.md`` are drawn from the code on each build: the commands and
  their options from the Typer app, the settings from the pydantic models (a method's section from its own
  settings model), so they cannot fall behind it.

They are generated in memory and never written to docs/: `factdebate docs` ships and lists docs/ as it is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
# A Markdown link's target in the README: docs/<page> becomes <page>, a root file its page (or the repository).
_README_LINK = re.compile(r"\]\((docs/)?([^)\s]+)\)")
_ROOT_PAGES = {"CHANGELOG.md": "changelog.md"}


def _readme_for_site(text: str) -> str:
    def link(match: re.Match[str]) -> str:
        in_docs, target = match.group(1), match.group(2)
        if in_docs or "://" in target or target.startswith("#"):
            return f"]({target})"
        return f"]({_ROOT_PAGES.get(target, target)})"

    return _README_LINK.sub(link, text)


def _escape(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _html(text: str) -> str:
    """Prose with ``<model>`` and the like shown as written, not read as HTML tags."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cli_reference() -> str:
    """Every command of the console script with its help and options, as its own parser defines them. (Typer
    ships its own copy of click, so the commands are read by what they offer, not by click's classes.)"""
    import typer

    from factdebate.cli.main import app

    lines = ["# Command line reference", "",
             "Every `factdebate` command and its options, drawn from the command-line parser on each build of this "
             "site (`factdebate COMMAND --help` prints the same in a terminal). What a command is for: "
             "[Using factdebate](../usage.md).", ""]

    def walk(command: Any, path: list[str]) -> None:
        ctx = typer.Context(command, info_name=" ".join(path))
        if path[1:]:
            lines.extend([f"## `{' '.join(path)}`", ""])
            if command.help:
                lines.extend([_html(command.help.split("\f")[0].strip()), ""])
            params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False) and p.name != "help"]
            if params:
                lines.extend(["| argument or option | what |", "| --- | --- |"])
                for param in params:
                    if param.param_type_name == "argument":
                        names = f"`{(param.metavar or param.name or '').upper()}`"
                    else:
                        names = ", ".join(f"`{opt}`" for opt in (*param.opts, *param.secondary_opts))
                    lines.append(f"| {names} | {_html(_escape(getattr(param, 'help', None) or ''))} |")
                lines.append("")
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not getattr(sub, "hidden", False):
                    walk(sub, [*path, name])

    walk(typer.main.get_command(app), ["factdebate"])
    return "\n".join(lines) + "\n"


def _type_name(annotation: Any) -> str:
    text = repr(annotation) if not isinstance(annotation, type) else annotation.__name__
    return text.replace("typing.", "").replace("NoneType", "None")


def _model_rows(model: Any, prefix: str, rows: list[str]) -> None:
    from pydantic import BaseModel
    from pydantic_core import PydanticUndefined

    for name, field in model.model_fields.items():
        key = f"{prefix}{field.alias or name}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            _model_rows(annotation, f"{key}.", rows)
            continue
        if field.default_factory is not None:
            default = repr(field.default_factory())
        elif field.default is PydanticUndefined:
            default = "required"
        else:
            default = repr(field.default)
        rows.append(f"| `{key}` | `{_escape(_type_name(annotation))}` | `{_escape(default)}` | "
                    f"{_html(_escape(field.description or ''))} |")


def settings_reference() -> str:
    """Every setting with its type, default and description, from the settings models."""
    from factdebate.methods.base import all_methods
    from factdebate.settings.model import Settings

    header = ["| setting | type | default | what |", "| --- | --- | --- | --- |"]
    lines = ["# Settings reference", "",
             "Every setting, drawn from the settings models on each build of this site. A setting is written in "
             "a YAML file as its dotted path's sections (`llm:` then `judge:`), in the environment as "
             "`FACTDEBATE_<SECTION>__<FIELD>`; how the layers combine and which settings are flags: "
             "[Configuration](../configuration.md).", ""]
    rows: list[str] = []
    top = {name: field for name, field in Settings.model_fields.items() if name != "methods"}
    for name in top:
        single = type("One", (), {"model_fields": {name: Settings.model_fields[name]}})
        _model_rows(single, "", rows)
    lines.extend(["## General", "", *header, *rows, ""])
    for method, cls in all_methods().items():
        method_rows: list[str] = []
        _model_rows(cls.settings_model, f"methods.{method}.", method_rows)
        if method_rows:
            lines.extend([f"## Method `{method}`", "", *header, *method_rows, ""])
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = {
        "index.md": _readme_for_site(readme),
        "changelog.md": (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
        "reference/cli.md": cli_reference(),
        "reference/settings.md": settings_reference(),
    }
    for path, content in pages.items():
        files.append(File.generated(config, path, content=content))
    return files


