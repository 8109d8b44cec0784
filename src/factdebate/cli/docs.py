"""The documentation that travels with the package: `factdebate docs TOPIC[#SECTION]` reads it offline.

Messages cite a topic of this command ("see `factdebate docs guard#streaming`"): a file's path under docs/
without ``.md``, and a heading's GitHub anchor. The wheel carries ``docs/**/*.md`` and README.md (setup.py);
the installed copy is read as its reader has it (``for_installed``)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from factdebate.util.errors import InputError

README_TOPIC = "readme"
# A citation in a message: `factdebate docs TOPIC` or `factdebate docs TOPIC#SECTION`.
CITATION = re.compile(r"factdebate docs ([a-z0-9][\w/-]*)(?:#([\w-]+))?")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def docs_root() -> Path | None:
    """The installed copy (a wheel), else the repository's docs/ (a checkout or an editable install)."""
    for candidate in (_installed_docs(), _package().parents[1] / "docs"):
        if candidate.is_dir() and any(candidate.glob("*.md")):
            return candidate
    return None


def _package() -> Path:
    return Path(__file__).resolve().parents[1]


def _installed_docs() -> Path:
    return _package() / "docs"


def installed() -> bool:
    """Whether the pages read are the copy a wheel installed (its reader has no clone)."""
    return docs_root() == _installed_docs()


# The clone's spellings a wheel's reader cannot follow, and theirs: the console script in the repository's
# .venv, a page by its path (``docs/guard.md#streaming``) or by a link relative to the page that holds it.
_VENV_SCRIPT = re.compile(r"\.venv/bin/factdebate\b")
_PAGE_PATH = re.compile(r"\bdocs/((?:[\w-]+/)*[\w-]+)\.md(?:#([\w-]+))?")
_PAGE_LINK = re.compile(r"\[([^\]\n]+)\]\(((?:\.\./|[\w-]+/)*[\w-]+)\.md(?:#([\w-]+))?\)")
INSTALLED_NOTE = ("> This is the copy installed with factdebate: its commands are `factdebate …` wherever the page "
                  "was written for a clone of the repository (`.venv/bin/factdebate`), and its pages "
                  "`factdebate docs TOPIC`. `make` targets, `benchmarks/` and the setup script come with a clone "
                  "only; `factdebate setup` does their work for an installed package.\n\n")


def for_installed(text: str, topic: str) -> str:
    """``text`` of ``topic`` as a wheel's reader has it: ``factdebate`` commands, ``factdebate docs TOPIC`` links."""

    def cite(page: str, section: str | None) -> str:
        return f"factdebate docs {page}" + (f"#{section}" if section else "")

    def link(match: re.Match[str]) -> str:
        page = posixpath.normpath(posixpath.join(posixpath.dirname(topic), match.group(2)))
        if topic == README_TOPIC:  # the README sits above docs/: its links name docs/…
            page = page.removeprefix("docs/")
        return f"{match.group(1)} ({cite(page, match.group(3))})"

    text = _PAGE_LINK.sub(link, text)
    text = _PAGE_PATH.sub(lambda m: cite(m.group(1), m.group(2)), text)
    text = _VENV_SCRIPT.sub("factdebate", text)
    if topic == README_TOPIC:
        title, newline, rest = text.partition("\n")
        text = f"{title}{newline}\n{INSTALLED_NOTE}{rest.lstrip(chr(10))}" if title.startswith("# ") else \
            INSTALLED_NOTE + text
    return text


def topics() -> dict[str, Path]:
    """Every topic and its file, in a stable order (README first)."""
    root = docs_root()
    if root is None:
        return {}
    found: dict[str, Path] = {}
    readme = root / "readme.md" if (root / "readme.md").is_file() else root.parent / "README.md"
    if readme.is_file():
        found[README_TOPIC] = readme
    for path in sorted(root.rglob("*.md"), key=lambda p: p.relative_to(root).with_suffix("").as_posix()):
        topic = path.relative_to(root).with_suffix("").as_posix()
        if topic != README_TOPIC:
            found[topic] = path
    return found


def anchor(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


@dataclass(frozen=True)
class Section:
    anchor: str
    title: str
    level: int
    start: int  # the heading's line
    end: int  # the line after the section (the next heading at its level or above, or the end)


def sections(text: str) -> list[Section]:
    """The headings outside code blocks (a ``# comment`` in a shell block is not one), with their extent."""
    lines = text.splitlines()
    found: list[tuple[int, int, str]] = []
    fenced = False
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found.append((number, len(match.group(1)), match.group(2)))
    result: list[Section] = []
    seen: dict[str, int] = {}
    for i, (start, level, title) in enumerate(found):
        end = next((s for s, lvl, _ in found[i + 1:] if lvl <= level), len(lines))
        slug = anchor(title.replace("`", ""))
        if slug in seen:  # GitHub numbers repeated headings: streaming, streaming-1, …
            seen[slug] += 1
            slug = f"{slug}-{seen[slug]}"
        else:
            seen[slug] = 0
        result.append(Section(slug, title, level, start, end))
    return result


def title_of(path: Path) -> str:
    heads = sections(path.read_text(encoding="utf-8"))
    return heads[0].title.replace("`", "") if heads else path.stem


def _close(word: str, choices: list[str]) -> str:
    import difflib

    near = difflib.get_close_matches(word, choices, n=3, cutoff=0.7)  # 0.5 offered "scale" for "nosuchpage"
    return f" (did you mean {', '.join(near)}?)" if near else ""


def read(reference: str) -> str:
    """The text of ``TOPIC`` or ``TOPIC#SECTION``; a clear error naming what exists otherwise."""
    topic, _, wanted = reference.strip().removesuffix(".md").partition("#")
    topic = topic.removeprefix("docs/").lower() or README_TOPIC
    known = topics()
    if not known:
        raise InputError("this installation has no documentation files (a wheel built without them?)")
    if topic not in known:
        raise InputError(f"no documentation topic {topic!r}{_close(topic, list(known))}; "
                         "`factdebate docs` lists them")
    text = known[topic].read_text(encoding="utf-8")
    if installed():
        text = for_installed(text, topic)
    if not wanted:
        return text
    heads = sections(text)
    match = next((s for s in heads if s.anchor == wanted.lower()), None)
    if match is None:
        raise InputError(f"{topic} has no section {wanted!r}{_close(wanted.lower(), [s.anchor for s in heads])}; "
                         f"`factdebate docs {topic} --sections` lists them")
    return "\n".join(text.splitlines()[match.start:match.end]).rstrip() + "\n"


def docs(reference: Annotated[str | None, typer.Argument(
             metavar="[TOPIC[#SECTION]]", help="A topic (guard, methods/tool-mad), or one section of it "
                                               "(guard#streaming); none lists the topics.")] = None,
         list_sections: Annotated[bool, typer.Option("--sections", help="List the topic's sections (their "
                                                     "anchors and titles) instead of printing it.")] = False) -> None:
    """Read the documentation offline: the README and docs/ as Markdown, shipped with the package."""
    if reference is None:
        if list_sections:
            raise InputError("--sections lists a topic's sections: give the topic, e.g. "
                             "factdebate docs guard --sections")
        for topic, path in topics().items():
            typer.echo(f"{topic:28} {title_of(path)}")
        if not topics():
            raise InputError("this installation has no documentation files (a wheel built without them?)")
        return
    if list_sections:
        for section in sections(read(reference.partition("#")[0])):
            typer.echo(f"{'  ' * (section.level - 1)}{section.anchor:40} {section.title}")
        return
    typer.echo(read(reference), nl=False)


def register_docs(app: typer.Typer) -> None:
    app.command()(docs)
