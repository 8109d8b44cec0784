"""The command lines and Python blocks of README.md and docs/**/*.md, read with a Markdown parser, and the kinds
of check tests/test_documented_lines.py gives them.

A *shell line* is every line of a ``bash``/``sh``/``shell``/``console`` fence, and in any other fence or
indented code block (output samples, YAML) a line that starts like a command: ``factdebate``, ``python``,
``pip``, ``make``, ``curl``, ``cat``, ``export``, optionally behind ``$ ``, ``VAR=value`` or ``.venv/bin/``.
Comment lines are left out and a line ending in ``\\`` is joined to the next. A *Python block* is a
``python`` fence, a *YAML block* a ``yaml`` one. JSON blocks (sample output) are not checked.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh"}
PYTHON_LANGS = {"python", "py"}
YAML_LANGS = {"yaml", "yml"}
COMMAND = re.compile(r"^(\$ )?([A-Z_][A-Z0-9_]*=\S* )*(\.venv/bin/|env/bin/)?"
                     r"(factdebate|python3?|pip|make|curl|cat|export)\b")
PREFIX = re.compile(r"(^|(?<=[\s|&;]))(\.venv/bin/|env/bin/)(?=factdebate\b)")


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class Snippet:
    """One documented shell line or Python block; ``line`` is 1-based in ``file``."""

    file: str
    line: int
    kind: str  # "shell", "python", "yaml" or "inline"
    text: str
    block: int = 0  # the first line of its code block

    @property
    def key(self) -> str:
        """What a rule is looked up by: a shell line without its comment, its ``$ `` prompt and the
        ``.venv/bin/`` before ``factdebate`` (so the README's and a page's same line share a rule); a Python
        block by its file and first line."""
        if self.kind in ("python", "yaml"):
            first = next(line for line in self.text.splitlines() if line.strip())
            return f"{self.file}: {first.strip()}"
        text = strip_comment(self.text).removeprefix("$ ")
        return " ".join(PREFIX.sub("", text).split())

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def strip_comment(line: str) -> str:
    """The line up to a ``#`` that starts a shell comment (outside quotes, after a space)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def snippets() -> list[Snippet]:
    found: list[Snippet] = []
    parser = MarkdownIt("commonmark")
    for path in doc_files():
        name = path.relative_to(ROOT).as_posix()
        for token in parser.parse(path.read_text(encoding="utf-8")):
            if token.type not in ("fence", "code_block") or token.map is None:
                continue
            lang = token.info.split()[0].lower() if token.info.strip() else ""
            first = token.map[0] + (2 if token.type == "fence" else 1)
            if lang in PYTHON_LANGS | YAML_LANGS:
                kind = "python" if lang in PYTHON_LANGS else "yaml"
                found.append(Snippet(name, first, kind, token.content, first))
                continue
            raw = token.content.splitlines()
            i = 0
            while i < len(raw):
                start, line = i, raw[i]
                while line.rstrip().endswith("\\") and i + 1 < len(raw):
                    i += 1
                    line = line.rstrip()[:-1].rstrip() + " " + raw[i].strip()
                i += 1
                text = line.strip()
                if not text or text.startswith("#"):
                    continue
                if lang in SHELL_LANGS or COMMAND.match(text):
                    found.append(Snippet(name, first + start, "shell", text, first))
    return found


# The kinds of check. Every rule but Run says why the line is not run as written.


@dataclass(frozen=True)
class Run:
    """Run in-process (``factdebate.cli.main.run``) against the scripted model, in the module's workspace;
    expect exit ``code`` and, if given, ``says`` in the output. ``edit``: (old, new) replacements made first,
    each a smaller draw of the same command, with ``why``. ``after``: the earlier lines it needs, run first
    where this process has not run them (pytest-xdist may hand a page's lines to different workers)."""

    code: int = 0
    says: str = ""
    edit: tuple[tuple[str, str], ...] = ()
    why: str = ""
    after: tuple[str, ...] = ()  # earlier lines of the page that this one builds on (their text)


@dataclass(frozen=True)
class Parse:
    """Parse the options with the command's own parser (click's ``make_context``), without running it."""

    why: str


@dataclass(frozen=True)
class Make:
    """``make -n TARGET``: the target exists and its recipe expands."""

    why: str


@dataclass(frozen=True)
class Pip:
    """A ``pip install``: the extras named exist in pyproject.toml and a pinned version matches the locks."""

    why: str


@dataclass(frozen=True)
class Route:
    """A ``curl`` to the service: the service answers that method and path (its route table)."""

    why: str


@dataclass(frozen=True)
class Export:
    """An ``export``: run by bash; what it sets holds for the later lines of its code block."""


@dataclass(frozen=True)
class Script:
    """``python SCRIPT ...``: the script exists and its own parser accepts the options (``--help`` and a
    dry parse)."""

    why: str


@dataclass(frozen=True)
class Skip:
    """Not checked here, with where it is checked instead."""

    why: str


@dataclass(frozen=True)
class PyRun:
    """Run the block against the scripted model (``FACTDEBATE_LLM=scripted:agree``) in the workspace."""

    why: str = ""


@dataclass(frozen=True)
class PyImports:
    """A sketch that cannot run alone: it compiles, and its ``import`` statements run."""

    why: str


@dataclass(frozen=True)
class PyTyped:
    """A whole script that needs what the tests do not start here (a running service): its ``import``
    statements run, and ``mypy --strict`` checks it as a reader's script (tests/test_documented_types.py)."""

    why: str


@dataclass(frozen=True)
class Settings:
    """A factdebate settings file: it loads (unknown keys are errors); with ``defaults``, every value it shows
    is the default, but for the keys in ``resolved`` (settled when the settings are read)."""

    defaults: bool = False
    resolved: tuple[str, ...] = ()


@dataclass(frozen=True)
class YamlOnly:
    """Someone else's config file that is not run here: it parses as YAML."""

    why: str


@dataclass(frozen=True)
class Copy:
    """The block is, word for word, part of ``path`` (a file in the repository that a test runs)."""

    path: str
    why: str


Rule = (Run | Parse | Make | Pip | Route | Export | Script | Skip | PyRun | PyImports | PyTyped | Copy | Settings
        | YamlOnly)


@dataclass
class Command:
    """One segment of a shell line between ``&&``: its environment, program, arguments and redirections."""

    env: dict[str, str] = field(default_factory=dict)
    argv: list[str] = field(default_factory=list)
    stdin: str | None = None
    stdout: str | None = None


def commands(line: str) -> list[Command]:
    """``A=b factdebate x "..." > out && cat f | factdebate y -`` into its commands (no other shell syntax)."""
    lexer = shlex.shlex(strip_comment(line).removeprefix("$ "), posix=True, punctuation_chars="|&><;")
    lexer.whitespace_split = True
    out, current, pending = [], Command(), ""
    for token in lexer:
        if pending == ">":
            current.stdout, pending = token, ""
        elif token == "&&":
            out.append(current)
            current = Command()
        elif token == ">":
            pending = ">"
        elif token == "|":
            if current.argv[:1] != ["cat"] or len(current.argv) != 2:
                raise ValueError(f"only `cat FILE | ...` is understood here: {line}")
            current = Command(env=current.env, stdin=current.argv[1])
        elif token in ("&", ";", "<", ">>", "||", "|&"):
            raise ValueError(f"shell syntax {token!r} is not understood here: {line}")
        elif not current.argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", token):
            name, _, value = token.partition("=")
            current.env[name] = value
        else:
            current.argv.append(token)
    out.append(current)
    return out


INLINE = re.compile(r"^(\.venv/bin/)?factdebate [a-z]")


def inline_commands() -> list[Snippet]:
    """The ``factdebate ...`` code spans in the pages' prose (``factdebate index --builtin``), each with the
    line it is on."""
    found: list[Snippet] = []
    parser = MarkdownIt("commonmark")
    for path in doc_files():
        name = path.relative_to(ROOT).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        for token in parser.parse("\n".join(lines)):
            if token.type != "inline" or token.map is None:
                continue
            for child in token.children or []:
                if child.type == "code_inline" and INLINE.match(child.content):
                    first, last = token.map
                    at = next((i for i in range(first, last) if child.content.split()[1] in lines[i]), first)
                    found.append(Snippet(name, at + 1, "inline", child.content, first + 1))
    return found
