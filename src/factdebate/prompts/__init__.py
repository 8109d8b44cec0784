"""Prompt templates, one Jinja2 file per prompt, rendered with StrictUndefined so a missing input fails
loudly. Each rendering carries its template's name for usage and traces.

Shared prompts (re-asks, scoring, claim extraction) live beside this module; a method family keeps its own
in ``methods/<family>/prompts/``, and a method registered from elsewhere adds its folder with
:func:`add_template_dir` (``methods.base.register`` does it). Template names are unique across folders."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from factdebate.core.claim_context import binary_task, four_label_task
from factdebate.prompts.numbers import number_note

_DIR = Path(__file__).parent
# Found by path, not by import: the prompts sit below the methods in the layers.
_FAMILIES = _DIR.parent / "methods"
_EXTRA: list[Path] = []


def template_dirs() -> list[Path]:
    return [_DIR, *sorted(_FAMILIES.glob("*/prompts")), *_EXTRA]


def add_template_dir(path: Path) -> None:
    """Make the templates in ``path`` renderable by name (a plug-in method's own prompts)."""
    path = path.resolve()
    if path.is_dir() and path not in _EXTRA and path not in template_dirs():
        _EXTRA.append(path)
        _env.cache_clear()


# What stands for each value a rendering puts in, in a prompt's fixed text (``Prompt.fixed``): a word no
# reply is made of, so that no run of the instructions' words spans a claim, a passage or another's answer.
VALUE_MARK = " _ "


def _mark(value: object) -> str:
    return VALUE_MARK


@cache
def _env(fixed: bool = False) -> jinja2.Environment:
    """The templates' environment; ``fixed``: one that writes :data:`VALUE_MARK` for every value."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(p) for p in template_dirs()]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        auto_reload=False,  # templates ship with the package; no per-render stat() of the file
        finalize=_mark if fixed else None,
    )
    env.globals["number_note"] = number_note  # number_note.j2: the claim's numbers no document writes
    return env


@dataclass(frozen=True)
class Prompt:
    name: str
    text: str
    # The prompt's own words, every value it was given replaced by :data:`VALUE_MARK`: what a reply that
    # repeats its instructions copies (methods/kit/fields.instruction_echo). Empty when not from a template.
    fixed: str = field(default="", compare=False, repr=False)


def render(name: str, **variables: Any) -> Prompt:
    """``two_labels`` and ``four_labels`` are set for every template unless given (core/claim_context.py), so
    that a prompt offers NOT ENOUGH INFO or CONFLICTING EVIDENCE/CHERRYPICKING only where the task has it."""
    variables.setdefault("two_labels", binary_task())
    variables.setdefault("four_labels", four_label_task())
    text = _env().get_template(f"{name}.j2").render(**variables).strip()
    return Prompt(name=name, text=text, fixed=_env(fixed=True).get_template(f"{name}.j2").render(**variables))


def template_path(name: str) -> Path:
    for folder in template_dirs():
        if (folder / f"{name}.j2").is_file():
            return folder / f"{name}.j2"
    raise FileNotFoundError(f"no prompt template '{name}' in {', '.join(str(p) for p in template_dirs())}")
