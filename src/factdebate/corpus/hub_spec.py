"""``hf:OWNER/NAME[/FOLDER]``, the SOURCE of ``factdebate index`` that names a Hub dataset: checked by the Hub's
rules before any call, and named ``hf-`` + the readable id + 8 hex of the sha256 of repository and folder."""

from __future__ import annotations

import hashlib
import re

from factdebate.corpus.names import MAX_CHARS
from factdebate.util.errors import InputError

PREFIX = "hf:"
_PART = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?$")
_USAGE = "give a Hub dataset as hf:OWNER/NAME (optionally hf:OWNER/NAME/FOLDER)"


def _shown(spec: str) -> str:
    """The spec for a one-line message: control characters escaped, long ones cut."""
    text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in spec)
    return text if len(text) <= 120 else text[:117] + "..."


def parse_hub_spec(spec: str) -> tuple[str, str]:
    """``OWNER/NAME[/FOLDER]`` (the part after ``hf:``) as (repository id, folder), or one InputError line."""
    shown = f"{PREFIX}{_shown(spec)}"
    parts = spec.strip("/").split("/")
    if len(parts) < 2 or not all(parts[:2]):
        raise InputError(f"{shown}: {_USAGE}")
    for label, part in zip(("owner", "name"), parts[:2], strict=False):
        if not _PART.fullmatch(part) or "--" in part or ".." in part:
            raise InputError(f"{shown}: '{_shown(part)}' is not a Hub {label}: use ASCII letters, digits, '-', '_' "
                             "and '.' (at most 96, no '--' or '..', starting and ending with a letter or digit)")
    folder = parts[2:]
    for part in folder:
        if part in ("", ".", "..") or "\\" in part or not part.isprintable():
            raise InputError(f"{shown}: the folder must be a path inside the dataset, without '.', '..' or "
                             "empty parts")
    return "/".join(parts[:2]), "/".join(folder)


def hub_corpus_name(repo: str, folder: str) -> str:
    """The corpus (and folder) name of a Hub dataset's folder: readable, and distinct for distinct ones."""
    digest = hashlib.sha256(f"{repo}\n{folder}".encode()).hexdigest()[:8]
    readable = "-".join(part for part in re.split(r"[^A-Za-z0-9]+", f"{repo}/{folder}".lower()) if part)
    return f"hf-{readable[:MAX_CHARS - len('hf--') - len(digest)].rstrip('-')}-{digest}"
