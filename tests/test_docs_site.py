"""The documentation site builds with ``mkdocs build --strict`` (mkdocs.yml): a link to a page that does not exist,
a page the navigation names that is missing, or a hook that fails stops the build, so a broken link is found
here rather than by a reader. The generated pages hold what the code defines: the commands and their options,
and the settings with their defaults."""

from __future__ import annotations

import html
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-6000:]
    return out


def test_the_site_builds_strictly_with_every_page_of_the_navigation(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "Two commands" in home and 'href="guard/' in home  # the README, its docs/ links made the site's
    for page in ("guard", "usage", "methods/tool-mad", "performance", "changelog"):
        assert (site / page / "index.html").is_file(), page


def test_the_run_outputs_open_with_what_they_demonstrate(site: Path) -> None:
    """The results pages written by ``report`` and ``compare`` open, on the site, with what they demonstrate."""
    for page in ("results/report", "results/compare/compare"):
        shown = (site / page / "index.html").read_text(encoding="utf-8")
        assert "What this page demonstrates" in shown and "nothing about which method" in shown, page


def _heading_link(page: str, heading: str) -> str | None:
    """Where the navigation's ``heading`` links to on a built page, or None where it is a plain heading."""
    found = re.search(r'<a href="([^"]*)" class="md-nav__link[^"]*">\s*<span class="md-ellipsis">\s*'
                      + re.escape(html.escape(heading, quote=False)) + r"\s*</span>", page)
    return found.group(1) if found else None


def test_a_navigation_heading_links_only_its_own_page(site: Path) -> None:
    """A section heading that is a link opens that section's own page: the researchers' guides are a plain
    heading, and the tiny model's runs open with what they demonstrate."""
    page = (site / "compare" / "index.html").read_text(encoding="utf-8")
    assert "Guides for researchers" in page and _heading_link(page, "Guides for researchers") is None
    assert _heading_link(page, "Pipeline runs on the tiny model (not results)") == "../results/"


def test_the_command_line_reference_lists_each_command_and_its_options(site: Path) -> None:
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for text in ("factdebate verify", "factdebate check-response", "--fail-on", "factdebate memory ls", "--method"):
        assert text in cli, text


def test_the_settings_reference_lists_each_setting_with_its_default(site: Path) -> None:
    from factdebate.settings.model import Settings

    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    defaults = Settings()
    for key, default in (("retrieval.k", defaults.retrieval.k), ("guard.window_call", defaults.guard.window_call),
                         ("llm.retries", defaults.llm.retries)):
        row = re.search(rf"<code>{re.escape(key)}</code></td>\s*<td>.*?</td>\s*<td><code>(.*?)</code>", settings)
        assert row is not None and row.group(1) == repr(default), (key, row and row.group(1))
    assert "methods.tool-mad.rounds" in settings and "llm.debater" in settings


FIRST_PAGES = ("start/researchers.md", "start/chatbots.md")
WAYS_IN = ("ways/proxy.md", "ways/python.md", "ways/mcp.md", "ways/litellm.md", "ways/nemo.md", "guard/openclaw.md",
           "ways/check-loop.md")


def test_a_newcomer_meets_a_first_page_and_a_quick_start_for_each_way_in() -> None:
    """The README is read in two minutes; each kind of reader has a first page of one screen (install, a first
    run, where next), and each way in a page whose numbered quick start comes first; all are in the navigation."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= 160, len(readme)
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in (*FIRST_PAGES, *WAYS_IN):
        assert f": {page}\n" in nav, page
    for page in FIRST_PAGES:
        lines = (ROOT / "docs" / page).read_text(encoding="utf-8").splitlines()
        assert len(lines) <= 60 and lines[2:] and any(line.startswith("1. ") for line in lines), page
    for page in WAYS_IN:
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        start = text.index("\n## Quick start\n")
        steps = text[start:].split("\n## ", 2)[1]
        assert "\n1. " in steps and "\n2. " in steps, page
        assert text[:start].count("\n## ") == 0, f"{page}: the quick start is the first section"


def test_the_http_reference_lists_every_route_of_the_service(site: Path, tmp_path: Path) -> None:
    """Each route the app answers, in its OpenAPI document or not, is on the page as `METHOD path`; a documented
    route's request and response models are named in its section, and each model's fields are in its table."""
    from fastapi.routing import iter_route_contexts

    from factdebate.server.app import create_app

    page = (site / "reference" / "http" / "index.html").read_text(encoding="utf-8")
    app = create_app(api_keys=["docs-test-key-0123456789"], db_path=tmp_path / "service.sqlite")
    from starlette.routing import Mount, Route

    routes = [context.original_route for context in iter_route_contexts(app.routes)]
    assert all(isinstance(route, Route | Mount) for route in routes)  # no other kind is served
    answered = {(method, route.path) for route in routes if isinstance(route, Route | Mount)  # a mount answers GET
                for method in (getattr(route, "methods", None) or {"GET"}) if method != "HEAD"}
    spec = app.openapi()
    documented = {(method.upper(), path) for path, operations in spec["paths"].items() for method in operations}
    assert documented <= answered and len(answered) > len(documented)  # the web page and metrics are outside it
    for method, path in answered:
        assert f"<code>{method} {path}</code>" in page, (method, path)
    sections = re.split(r"<h2 ", page)
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            heading = f'<code>{method.upper()} {path}</code><a class="headerlink"'
            section = next(s for s in sections if heading in s)
            assert operation["summary"] in section, (method, path)
            refs = re.findall(r'"\$ref": "#/components/schemas/(\w+)"', json.dumps(operation))
            for name in refs:
                assert f'href="#model-{name.lower()}"' in section, (method, path, name)
    for name, schema in spec["components"]["schemas"].items():
        table = page.split(f'id="model-{name.lower()}"', 1)[1].split("<h3 ", 1)[0]
        for field in schema.get("properties", {}):
            assert f"<td><code>{field}</code></td>" in table, (name, field)


def _own_doc(obj: object) -> str | None:
    if not (isinstance(obj, type) or inspect.isfunction(obj)):  # a type alias: its class's docstring is not its own
        return None
    doc = vars(obj).get("__doc__") if isinstance(obj, type) else obj.__doc__
    return inspect.cleandoc(doc) if isinstance(doc, str) and doc.strip() else None


def test_the_python_reference_shows_every_public_name_with_its_docstring(site: Path) -> None:
    """Each name of ``factdebate.__all__`` has its entry, headed by its name, with the start of its own docstring
    in it as a reader sees it (the Sphinx roles shown as the names they point to, not as written)."""
    import factdebate

    page = (site / "reference" / "python" / "index.html").read_text(encoding="utf-8")
    entries = {match.group(1): match.start() for match in re.finditer(r'id="factdebate\.(?:api\.)?(\w+)"', page)}
    assert set(factdebate.__all__) <= set(entries), set(factdebate.__all__) - set(entries)
    starts = sorted(entries.values())
    checked = 0
    for name in factdebate.__all__:
        obj = getattr(factdebate, name)
        doc = _own_doc(obj)
        # a type alias, another name for a class (its entry says which), or a class that says nothing of its own
        if doc is None or getattr(obj, "__name__", name) != name:
            continue
        start = entries[name]
        end = next((at for at in starts if at > start), len(page))
        shown = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page[start:end])).split())
        first = re.sub(r":\w+:`~?(?:[\w]+\.)*(\w+)`", r"\1", doc.split("\n\n")[0].replace("``", ""))
        first = re.sub(r"``?", "", first)
        assert " ".join(first.split())[:60] in shown, (name, first[:60])
        checked += 1
    assert checked >= len(factdebate.__all__) // 2, checked
    assert ":class:`" not in page and ":func:`" not in page


def test_the_python_reference_lists_the_shared_keywords(site: Path) -> None:
    """The keywords every check function takes (``SharedOptions``: ``method``, ``llm``, ``rounds``, ...) each have
    their row in the Python reference, with their type."""
    from typing import get_type_hints

    from factdebate.settings.keywords import SharedOptions

    page = (site / "reference" / "python" / "index.html").read_text(encoding="utf-8")
    table = page.split('id="shared-options-sharedoptions"', 1)[1]
    for name in get_type_hints(SharedOptions):
        assert f"<td><code>{name}</code></td>" in table, name


def _figures_row(page: str, benchmark: str) -> str:
    row = next(row for row in re.findall(r"<tr>.*?</tr>", page, re.S) if f"<td>{benchmark}</td>" in row)
    return html.unescape(row)


def _shown_figures(row: str) -> dict[str, str]:
    return dict(re.findall(r"<code>([\w.-]+)</code> ([^<]+)", row))  # keys name sets and methods: "halueval-qa"


def test_the_performance_figures_page_shows_each_benchmarks_latest_record(site: Path) -> None:
    """Each file of benchmarks/results/ has its row, with its last line's date, machine, command and figures."""
    page = (site / "performance-figures" / "index.html").read_text(encoding="utf-8")
    files = sorted((ROOT / "benchmarks" / "results").glob("*.jsonl"))
    assert {"guard_load", "guard_sizing", "guard_window_call", "http_clients", "relay_floor"} <= {f.stem for f in files}
    for path in files:
        last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
        row = _figures_row(page, path.stem)
        assert last["date"] in row and last["machine"] in row and last["command"] in row, path.stem
        shown = _shown_figures(row)
        assert set(shown) == set(last["figures"]), path.stem
        for key, value in last["figures"].items():
            assert float(shown[key].replace(",", "")) == value if isinstance(value, int | float) \
                else shown[key] == value, (path.stem, key, shown[key])


def test_a_recorded_run_replaces_the_figures_the_page_showed(tmp_path: Path) -> None:
    """benchmarks/results_log.py appends a run; the page then shows that run's figures, not the earlier run's."""
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import results_log
    finally:
        sys.path.remove(str(ROOT))
    hooks = _hooks()
    results_log.record("guard_sizing", {"fast_calls": 3, "fast_guard_cpu_ms": 7.5}, load=0.5, folder=tmp_path)
    results_log.record("guard_sizing", {"fast_calls": 2, "fast_guard_cpu_ms": 6.25}, load=1.5, folder=tmp_path)
    lines = (tmp_path / "guard_sizing.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2  # appended: the earlier run stays in the file
    import markdown

    page = markdown.markdown(hooks.performance_figures(tmp_path), extensions=["tables"])
    row = _figures_row(page, "guard_sizing")
    assert _shown_figures(row) == {"fast_calls": "2", "fast_guard_cpu_ms": "6.25"}
    assert "load 1.5" in row and "load 0.5" not in row


def _hooks() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "scripts" / "mkdocs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
