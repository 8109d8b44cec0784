"""`factdebate docs`: the shipped documentation, and the rule that messages cite it instead of repository
paths a wheel user does not have."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from factdebate.cli import docs
from factdebate.cli.main import run
from factdebate.util.errors import InputError
from tests.paths import ROOT

SRC = ROOT / "src" / "factdebate"
# A repository path in a message: docs/…md, scripts/…, or the README by name.
REPO_PATH = re.compile(r"docs/[\w/.-]+\.md|\bscripts/\w|\bREADME\b")
READER = SRC / "cli" / "docs.py"  # it names README.md to find it


def _docstring_nodes(tree: ast.Module) -> dict[int, ast.AST]:
    found: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found[id(first.value)] = node
    return found


def _user_facing(path: Path) -> list[tuple[int, str]]:
    """The strings of a module a user can read: every literal but the docstrings meant for developers. A
    class's docstring is read too (a settings or request model's becomes its JSON Schema description), and
    so are a function's in cli/ (a command's --help) or under a decorator (a route's or tool's description)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstring_nodes(tree)
    in_cli = "cli" in path.relative_to(SRC).parts
    strings = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        owner = docstrings.get(id(node))
        if owner is not None and not (
                isinstance(owner, ast.ClassDef)
                or (isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef) and (in_cli or owner.decorator_list))):
            continue
        strings.append((node.lineno, node.value))
    return strings


def _shipped_text_files() -> list[Path]:
    return [p for ext in ("toml", "js", "html", "j2", "json") for p in SRC.rglob(f"*.{ext}")]  # json: the MCP tool list


def test_no_message_cites_a_repository_path() -> None:
    suspects = [p for p in SRC.rglob("*.py") if p != READER and REPO_PATH.search(p.read_text(encoding="utf-8"))]
    found = [f"{p.relative_to(ROOT)}:{line}: {m.group(0)}" for p in suspects  # parsed only if they might cite
             for line, text in _user_facing(p) for m in REPO_PATH.finditer(text)]
    for path in _shipped_text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0] if path.suffix == ".toml" and line.lstrip().startswith("#") else line
            found += [f"{path.relative_to(ROOT)}:{number}: {m.group(0)}" for m in REPO_PATH.finditer(code)]
    assert found == [], "cite `factdebate docs TOPIC#SECTION` instead (a wheel has no docs/ or scripts/)"


def test_every_cited_topic_and_section_exists() -> None:
    texts = [p.read_text(encoding="utf-8") for p in [*SRC.rglob("*.py"), *_shipped_text_files()]]
    texts += [p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]]
    cited = {m.group(0).removeprefix("factdebate docs ") for text in texts for m in docs.CITATION.finditer(text)}
    assert len(cited) >= 15  # the messages' citations were found
    broken = []
    for reference in sorted(cited):
        try:
            docs.read(reference)
        except InputError as exc:
            broken.append(f"{reference}: {exc}")
    assert broken == []


def test_a_section_runs_to_the_next_heading_of_its_level_and_ignores_comments_in_code() -> None:
    text = "# Top\n\nintro\n\n## Run it\n\n```sh\n# not a heading\nfactdebate verify x\n```\n\n### Deeper\n\n" \
           "more\n\n## `Next` one: here\n\nend\n## Run it\n"
    heads = docs.sections(text)
    assert [s.anchor for s in heads] == ["top", "run-it", "deeper", "next-one-here", "run-it-1"]
    run_it = heads[1]
    body = text.splitlines()[run_it.start:run_it.end]
    assert body[0] == "## Run it" and "### Deeper" in body and "# not a heading" in body
    assert not any(line.startswith("## `Next`") for line in body)


def test_a_topic_and_a_section_are_read_offline_with_clear_errors() -> None:
    listed = docs.topics()
    assert {"readme", "guard", "methods/tool-mad", "configuration"} <= set(listed)
    streaming = docs.read("guard#streaming")
    assert streaming.startswith("### Streaming\n") and "\n### " not in streaming.rstrip()[4:]
    assert docs.read("docs/trace.md") == (ROOT / "docs" / "trace.md").read_text(encoding="utf-8")
    with pytest.raises(InputError, match=r"did you mean guard\?"):
        docs.read("gaurd")
    with pytest.raises(InputError, match=r"did you mean streaming\?.*factdebate docs guard --sections"):
        docs.read("guard#streming")


def test_the_command_lists_topics_and_sections(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["docs"]) == 0
    listing = capsys.readouterr().out
    assert re.search(r"^guard\s+The guard", listing, re.M) and "methods/tool-mad" in listing
    assert run(["docs", "guard", "--sections"]) == 0
    assert re.search(r"^\s+streaming\s+Streaming$", capsys.readouterr().out, re.M)
    assert run(["docs", "trace#the-text-of-model-calls-transcript"]) == 0
    assert capsys.readouterr().out.startswith("## The text of model calls")
    assert run(["docs", "nothing-here"]) != 0


def test_the_installed_copy_speaks_to_a_reader_without_a_clone(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`factdebate docs readme#use` (the page the near-chance note cites) showed a wheel's
    reader `.venv/bin/factdebate` lines and `docs/*.md` paths they do not have. Read as the installed copy, the
    commands are `factdebate …` and every page is cited as a `factdebate docs` topic that opens."""
    monkeypatch.setattr(docs, "installed", lambda: True)
    assert run(["docs", "readme#use"]) == 0
    use = capsys.readouterr().out
    commands = [line for line in use.splitlines() if "factdebate verify" in line]
    assert commands and all(line.startswith("factdebate verify") for line in commands[:3]), use
    assert ".venv/" not in use and not re.search(r"docs/[\w/.-]+\.md", use), use
    assert "(factdebate docs service)" in use  # the serve line's page, as this reader opens it
    assert run(["docs", "readme"]) == 0
    readme = capsys.readouterr().out
    assert readme.startswith("# factdebate\n\n> This is the copy installed with factdebate")
    pages = {m.group(0).removeprefix("factdebate docs ") for m in docs.CITATION.finditer(readme)}
    assert {"configuration", "guard", "methods/tool-mad"} <= pages
    for page in pages - {"TOPIC"}:
        docs.read(page)  # each opens (an InputError otherwise)
    # a page's link relative to itself names the topic it points at, section included
    assert "[mermaid-tools.md](" not in docs.read("methods/mermaid")
    assert "mermaid-tools.md (factdebate docs methods/mermaid-tools)" in docs.read("methods/mermaid")
    openclaw = docs.read("guard/openclaw")
    assert "the guard's page (factdebate docs guard#a-fallback-model-defeats-the-guard)" in openclaw
    for page in {m.group(0).removeprefix("factdebate docs ") for m in docs.CITATION.finditer(openclaw)}:
        docs.read(page)


def test_a_clone_reads_its_pages_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(docs, "installed", lambda: False)
    assert docs.read("readme") == (ROOT / "README.md").read_text(encoding="utf-8")
    assert ".venv/bin/factdebate verify" in docs.read("readme#use")
