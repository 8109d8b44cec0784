"""The reference pages say what the software does now, not how it came to: what changed is the changelog's
(CHANGELOG.md), a measurement's record is benchmarks/results/, a decision's reasons benchmarks/decisions/.
A page that tells its history ("before, it took 17.8 s", "(issue 47)", "used to build") reads as a diary
and goes stale; this test finds the phrases such passages were written with. The generated reports under
docs/results/ (a run's own report, a comparison's) are records of one run and are left out."""

from __future__ import annotations

import re
from pathlib import Path

from tests.paths import ROOT

GENERATED = {Path("docs/results/report.md"), Path("docs/results/compare/compare.md")}

# Each a way a passage told its history, with what the page says instead.
DIARY = {
    r"\bit was a bare\b": "say what the reply is, not what it was",
    r"(?:^|[.;:]\s+|\()before, ": "say what it does; the earlier behaviour is the changelog's",
    r"\bissues?\s+#?\d+\b": "name the behaviour, not this project's issue number",
    r"(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )(?<!\bwas )(?<!\bwere )\bused to\b": "say what it does now",
    r"\(not committed\)": "commit the script (benchmarks/) or leave the figure out",
    r"\bload average (?:of )?about\b": "the figure and its conditions belong to benchmarks/results/",
    r"\bthat now get\b|\bnow fixed\b|\bwas fixed\b|\|\s*now\s*\|": "say what happens, in the present",
    r"\ban\s+earlier\s+version\b|\bearlier\s+versions\b": "the changelog says what earlier versions did",
    r"\bsince these runs\b|\bsince then\b|\buntil it was tested\b|\beach of these was\b|\bNow:": "say what it does",
    r"\(was [^)]*\)": "give the figure as it is; the earlier one is the changelog's",
    r"\b(?:is|are)\s+now\b|\bnow\s+(?:goes|reads|checks|takes|uses|passes|adds|counts|keeps|compares|measures|"
    r"answers|decides|searches|calls|hangs|finds|carries|gives|shows|waits|refuses|prints|reports)\b":
        "a page says what the software does; that it does so now, unlike before, is the changelog's",
}


def pages() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [p for p in found if p.relative_to(ROOT) not in GENERATED]


def test_the_pages_tell_no_history() -> None:
    said = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        # code blocks are the programs' own words (blanked, so that a line number is the file's)
        prose = re.sub(r"```.*?```", lambda block: "\n" * block.group(0).count("\n"), text, flags=re.S)
        for pattern, instead in DIARY.items():
            for match in re.finditer(pattern, prose, flags=re.I | re.M):
                line = prose.count("\n", 0, match.start()) + 1
                said.append(f"{page.relative_to(ROOT)} line {line}: {match.group(0).strip()!r}: {instead}")
    assert not said, "\n".join(said)
