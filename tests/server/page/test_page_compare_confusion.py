"""The results viewer draws each run's confusion matrix from a compare.json, as the file holds it and as text
only (a run named like markup stays text), and opening several files at once says that they open as one
paired comparison when one of them cannot be paired (a comparison file is opened alone). In Debian's
Chromium against a live server; one service, one browser and one comparison for the module."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.compare import compare_runs
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.server.app import create_app
from tests.server.chromium import connected_chromium
from tests.server.conftest import KEY, PLAIN, LiveServer, offline_build
from tests.server.page.test_browser import pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.results_file import N, R, S, write_results

MARKUP = "<img src=x onerror=\"document.title='ran'\">"  # a run's name as a reader of compare.json might find it


def always_supports(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """A second model that answers SUPPORTS to everything: its matrix has one full column."""
    return f"Reasoning about the claim.\n{S}"


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """compare.json of two evaluation runs of the same claims, its first run renamed to a markup-like name."""
    folder = tmp_path_factory.mktemp("compare")
    first, second = write_results(folder / "first").parent, write_results(folder / "second", always_supports).parent
    compare_runs([first, second], folder / "cmp")
    file = folder / "cmp" / "compare.json"
    data = json.loads(file.read_text(encoding="utf-8"))
    data["runs"][0]["name"] = MARKUP
    file.write_text(json.dumps(data), encoding="utf-8")
    return file


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    tmp = tmp_path_factory.mktemp("service")
    with LiveServer(create_app(defaults=PLAIN, db_path=tmp / "service.sqlite", build=offline_build,
                               api_keys=[KEY])) as live:
        yield live


@pytest.fixture(scope="module")
def page(server: LiveServer) -> Iterator[tuple[Any, list[str]]]:
    with connected_chromium() as chromium:
        opened, errors = watched_page(chromium, viewport={"width": 1280, "height": 900})
        sign_in(opened, server.url)
        opened.wait_for_selector("#method option", state="attached")
        opened.click("button.tab[data-view=results]")
        yield opened, errors
        opened.close()


def test_each_runs_confusion_matrix_is_drawn_as_the_file_holds_it(page: tuple[Any, list[str]],
                                                                 compared: Path) -> None:
    tab, errors = page
    data = json.loads(compared.read_text(encoding="utf-8"))
    tab.set_input_files("#results-file", str(compared))
    tab.wait_for_selector("#compare-file-confusion-1")
    for i, run in enumerate(data["runs"]):
        table = f"#compare-file-confusion-{i}"
        conf = run["confusion"]
        assert tab.inner_text(f"{table} caption") == f"{run['name']}: gold label (rows) × answer (columns)"
        heads = tab.eval_on_selector_all(f"{table} thead th", "cells => cells.map(c => c.textContent)")
        assert heads == ["gold \\ answer", *conf["predicted"]]
        rows = tab.eval_on_selector_all(f"{table} tbody tr", "rows => rows.map(r => [...r.cells].map(c => "
                                        "[c.textContent, c.className]))")
        assert [r[0][0] for r in rows] == conf["gold"]
        for gold, row, counts in zip(conf["gold"], rows, conf["matrix"], strict=True):
            assert [cell[0] for cell in row[1:]] == [str(n) for n in counts]
            for answer, (count, kind) in zip(conf["predicted"], row[1:], strict=True):
                expected = "failed" if answer in ("UNPARSED", "ERROR") else "hit" if answer == gold else "miss"
                assert kind == expected + ("" if count != "0" else " zero")
    # The runs as the fixture made them: the first leaves two unparsed and one error, the second
    # answers SUPPORTS to all 14 claims.
    first, second = (run["confusion"] for run in data["runs"])
    assert sum(row[first["predicted"].index("UNPARSED")] for row in first["matrix"]) == 2
    assert sum(row[first["predicted"].index("ERROR")] for row in first["matrix"]) == 1
    assert all(row[second["predicted"].index(S)] == sum(row) for row in second["matrix"])
    assert sum(map(sum, second["matrix"])) == 14 and {R, N} <= set(second["gold"])
    # Text only: the markup-like name is shown as written and nothing of it ran or was built.
    assert tab.locator("#compare-file img").count() == 0 and tab.title() != "ran"
    assert tab.eval_on_selector("#compare-file-confusion-0", "t => t.dataset.run") == MARKUP
    assert errors == []


def test_several_files_say_they_open_as_one_paired_comparison(page: tuple[Any, list[str]], compared: Path) -> None:
    tab, errors = page
    results = compared.parent.parent / "first" / "run" / "results.jsonl"
    tab.set_input_files("#results-file", [str(results), str(compared)])
    tab.wait_for_selector("#results-error:visible")
    assert tab.inner_text("#results-error") == (
        "Two or more files open as one paired comparison of results files (one method each, the same samples): "
        "compare.json is a comparison itself (compare.json, or the Compare tab's download): open it alone to see "
        "it drawn.")
    other = compared.parent / "notes.json"
    other.write_text(json.dumps({"model": "m"}), encoding="utf-8")
    tab.set_input_files("#results-file", [str(results), str(other)])
    tab.wait_for_selector("#results-error:has-text('notes.json holds no results rows')")
    assert tab.inner_text("#results-error").startswith("Two or more files open as one paired comparison")
    second = compared.parent.parent / "second" / "run" / "results.jsonl"
    tab.set_input_files("#results-file", [str(results), str(second)])  # results files: the paired view
    tab.wait_for_selector("#results-paired h2:has-text('Paired comparison of 2 files on 14 samples')")
    assert tab.is_hidden("#results-error")
    assert errors == []
