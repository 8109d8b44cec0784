"""Prompt templates, one Jinja2 file per prompt, rendered with StrictUndefined so a missing input fails
loudly. Each rendering carries the template name and a short hash for traces."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

_DIR = Path(__file__).parent


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_DIR)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        auto_reload=False,  # templates ship with the package; no per-render stat() of the file
    )


@dataclass(frozen=True)
class Prompt:
    name: str
    text: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:12]


def render(name: str, **variables: Any) -> Prompt:
    text = _env().get_template(f"{name}.j2").render(**variables).strip()
    return Prompt(name=name, text=text)


def template_hash(name: str) -> str:
    return hashlib.sha256((_DIR / f"{name}.j2").read_bytes()).hexdigest()[:12]
