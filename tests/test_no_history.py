"""The code's comments and the documentation say what is, not how it came to be: no issue numbers, no "stop N"
and no commit hashes. A reader of a comment needs the reason in words (an issue number sends them to a tracker
they may not have), and a reader of a page needs what the software does now and the command that measures it;
the history goes to CHANGELOG.md and benchmarks/decisions/, which are not read here.

- src/: every comment and docstring, for ``issue N``, ``stop N`` and a commit hash; every other string (a
  setting's description, a message) for ``issue N``.
- README.md, CONTRIBUTING.md and docs/**/*.md: ``issue N``, ``stop N`` and commit hashes, generated result files aside.

A hex word is a commit hash when it has 7 to 40 hex digits, letters and digits both, and is no digest (a
``sha256`` just before it) and no key id (``key-``); the few that pin someone else's code are listed in
NOT_OURS with the reason.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from tests.paths import ROOT

SRC = ROOT / "src" / "factdebate"
ISSUE = re.compile(r"\bissues? #?\d+", re.I)
STOP = re.compile(r"\bstops? \d+", re.I)
HEX = re.compile(r"(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])")
DIGEST = re.compile(r"sha-?256\W{0,3}$", re.I)
# Commits of other projects' repositories that this one pins (not references to this project's history).
NOT_OURS = {
    "04201d3": "the Tool-MAD authors' research code, read at this commit (methods/toolmad/authors_code.py)",
    "248c83f": "the Tool-MAD authors' research code, its later commit (methods/toolmad/authors_code.py)",
    "55e20b98b435": "the FEVER dataset's revision on the Hugging Face Hub (hub/datasets.toml)",
}
# Pages made by a command from a run's files, not written by hand.
GENERATED = {"docs/results/report.md"}
GENERATED_UNDER = ("docs/results/compare/",)


def hashes(text: str) -> list[str]:
    return [m.group(0) for m in HEX.finditer(text)
            if m.group(0) not in NOT_OURS and not DIGEST.search(text[:m.start()])
            and not text[:m.start()].endswith("key-")]


def history(text: str, *, commits: bool = True, stops: bool = True) -> list[str]:
    found = [m.group(0) for m in ISSUE.finditer(text)]
    if stops:
        found += [m.group(0) for m in STOP.finditer(text)]
    if commits:
        found += hashes(text)
    return found


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the constants that are docstrings (a module's, a class's, a function's)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def source_findings(path: Path, root: Path = ROOT) -> list[str]:
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(root).as_posix()
    out = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT and (said := history(token.string)):
            out.append(f"{where}:{token.start[0]}: comment cites {', '.join(said)}")
    tree = ast.parse(text)
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in docstrings:
            said = history(node.value)
            kind = "docstring"
        else:
            said = history(node.value, commits=False, stops=False)
            kind = "string"
        if said:
            out.append(f"{where}:{node.lineno}: {kind} cites {', '.join(said)}")
    return out


def page_findings(path: Path) -> list[str]:
    where = path.relative_to(ROOT).as_posix()
    return [f"{where}:{number}: cites {', '.join(said)}"
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if (said := history(line))]


def pages() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [p for p in found if (name := p.relative_to(ROOT).as_posix()) not in GENERATED
            and not name.startswith(GENERATED_UNDER)]


def could_cite(path: Path) -> bool:
    """Whether a file's text holds anything ``history`` looks for: the others need no tokenizing (four in five
    of the package's files; tokenizing them all took most of this module's seconds)."""
    text = path.read_text(encoding="utf-8")
    return bool(re.search(r"issue|stop", text, re.I) or HEX.search(text))


def test_the_code_gives_reasons_not_issue_numbers() -> None:
    found = [finding for path in sorted(SRC.rglob("*.py")) if could_cite(path) for finding in source_findings(path)]
    assert not found, "say the reason in words instead:\n" + "\n".join(found)


def test_the_pages_describe_the_present() -> None:
    found = [finding for path in pages() for finding in page_findings(path)]
    assert not found, ("write what the software does now (figures with the command that measures them); "
                       "history goes to CHANGELOG.md or benchmarks/decisions/:\n" + "\n".join(found))


def test_what_counts_as_history() -> None:
    assert history("a shallow copy is enough (issue 59 item 4)") == ["issue 59"]
    assert history("the next stop cut 50 s") == [] and history("stop 3 took it to 9 min") == ["stop 3"]
    assert history("measured at `f2a7f57` and 9eb038f") == ["f2a7f57", "9eb038f"]
    assert history("sha256 75cc75034708; `key-1a2b3c4d5e`; 1,234,567 claims; a decade; 04201d3") == []
    assert history("sha256 `8339dd56…`, a 6.5 GB run") == []


def test_a_file_that_cites_is_never_skipped(tmp_path: Path) -> None:
    cites = {"comment.py": "x = 1  # see Issue 12\n", "docstring.py": '"""measured at 9eb038f"""\n',
             "stop.py": "x = 1  # stop 3 took it to 9 min\n"}
    for name, text in cites.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert could_cite(tmp_path / name) and source_findings(tmp_path / name, root=tmp_path), name
    (tmp_path / "plain.py").write_text("x = 1  # the reason in words\n", encoding="utf-8")
    assert not could_cite(tmp_path / "plain.py")
