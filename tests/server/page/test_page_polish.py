"""The page's follow-ups to issue 31, in Debian's Chromium against a live server: the top bar fits every width
from a small phone to a wide screen with and without the key box (no sideways scroll, one row where it
fits), and the results viewer opens comparison files: the compare.json `factdebate compare` writes for two
real evaluation runs (every figure drawn as the file holds it) and the Compare tab's own download (drawn
again as the Compare tab drew it); a JSON file of another shape gets a message naming what the viewer
reads. One keyed service, one keyless service and one comparison for the whole module."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.server.app import create_app
from tests.cli.test_eval import run
from tests.server.conftest import KEY, PLAIN, LiveServer, offline_build
from tests.server.page.test_browser import pytestmark, sign_in, watched_page  # noqa: F401
from tests.server.page.test_page_scripts import run_module
from tests.server.results_file import N, R, S, write_results

WIDTHS = [320, 390, 768, 1024, 1200, 1280, 1440, 1920]


def sure(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """A second scripted model that never fails: where the first leaves a claim unparsed or errors, this one
    answers, so the two runs disagree on those samples."""
    text = "\n".join(m["content"] for m in messages)
    label = R if "Berlin" in text else S if "Paris" in text or "Seine" in text else N
    return f"Reasoning about the claim.\n{label}"


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """compare.json of two evaluation runs of the same claims, written by the installed `factdebate compare`."""
    folder = tmp_path_factory.mktemp("compare")
    write_results(folder / "first")
    write_results(folder / "second", sure)
    done = run("compare", "first/run", "second/run", "-o", "cmp", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / "cmp" / "compare.json"


def _service(tmp: Path, **fields: Any) -> LiveServer:
    return LiveServer(create_app(defaults=PLAIN, db_path=tmp / "service.sqlite", build=offline_build, **fields))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with _service(tmp_path_factory.mktemp("keyed"), api_keys=[KEY]) as live:
        yield live


@pytest.fixture(scope="module")
def keyless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with _service(tmp_path_factory.mktemp("keyless"), api_keys=[], allow_anonymous=True) as live:
        yield live


BAR = """() => {
  const bar = document.querySelector('.topbar').getBoundingClientRect();
  const rows = (sel) => new Set([...document.querySelectorAll(sel)].filter(n => n.offsetParent)
    .map(n => Math.round(n.getBoundingClientRect().top))).size;
  const key = document.querySelector('#key-form');
  return {scroll: document.documentElement.scrollWidth, width: innerWidth, height: bar.height,
          right: Math.max(...[...document.querySelectorAll('.topbar *')].filter(n => n.offsetParent)
            .map(n => n.getBoundingClientRect().right)),
          tabRows: rows('.tab'),
          tabHeight: Math.max(...[...document.querySelectorAll('.tab')].map(t => t.offsetHeight)),
          keyShown: !!key.offsetParent, keyTop: key.offsetParent ? key.getBoundingClientRect().top : null,
          tabTop: document.querySelector('.tab').getBoundingClientRect().top};
}"""


@pytest.mark.parametrize("keyed", [True, False], ids=["with-key-box", "keyless"])
def test_the_top_bar_fits_every_width_and_keeps_one_row_where_it_fits(chromium: Any, server: LiveServer,
                                                                      keyless: LiveServer, keyed: bool) -> None:
    page, errors = watched_page(chromium, viewport={"width": 1280, "height": 800})
    if keyed:
        sign_in(page, server.url)
    else:
        page.goto(keyless.url + "/")
    page.wait_for_selector("#key-form", state="visible" if keyed else "hidden")
    page.wait_for_selector("#method option", state="attached")  # the catalogue is in: the page is drawn
    seen = {}
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        bar = page.evaluate(BAR)
        seen[width] = bar
        assert bar["width"] == width and bar["scroll"] <= width, (width, bar)  # no sideways scroll
        assert bar["right"] <= width, (width, bar)  # nothing in the bar past the window's edge
        assert bar["keyShown"] == keyed
        # A tab's name never breaks onto a second line (the bar grew to 107-145 px that way).
        assert bar["tabHeight"] <= 40, (width, bar)
        if width >= 1200:  # brand, tabs and key box in one row
            assert bar["tabRows"] == 1 and bar["height"] <= 64, (width, bar)
            if keyed:
                assert abs(bar["keyTop"] - bar["tabTop"]) < 12, (width, bar)
        elif width >= 768:  # at most two rows: the tabs in one of them
            assert bar["tabRows"] == 1 and bar["height"] <= 100, (width, bar)
        else:  # a phone: every tab still on screen, in at most three short rows
            assert bar["tabRows"] <= 3, (width, bar)
    # The sticky bar's height is what scrolled-to content is kept clear of (sticky.js).
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function(f"""() => Math.abs(parseFloat(getComputedStyle(document.documentElement)
        .getPropertyValue('--sticky-top')) - {seen[1280]["height"]}) <= 1""")  # set by a ResizeObserver, later
    page.close()
    assert errors == []


def _open_results(chromium: Any, server: LiveServer, **viewport: int) -> tuple[Any, list[str]]:
    page, errors = watched_page(chromium, viewport=viewport or {"width": 1280, "height": 900}, accept_downloads=True)
    sign_in(page, server.url)
    page.wait_for_selector("#method option", state="attached")
    page.click("button.tab[data-view=results]")
    return page, errors


def _table(page: Any, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(f"{selector} tbody tr",
                                     "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))")


def ci(value: float, interval: list[float]) -> str:
    return f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def ratio(cost: dict[str, Any]) -> str:
    return f"{cost['ratio']:.2f} [{cost['ci'][0]:.2f}, {cost['ci'][1]:.2f}]"


def spent(per: dict[str, float]) -> str:
    return f"{per['llm_calls']:.2f} calls · {round(per['prompt_tokens'] + per['completion_tokens'])} tokens"


def test_compare_json_opens_with_every_figure_the_file_holds(chromium: Any, server: LiveServer,
                                                             compared: Path) -> None:
    data = json.loads(compared.read_text(encoding="utf-8"))
    first, second = data["runs"]
    assert (first["name"], second["name"]) == ("first/run", "second/run")
    assert (first["correct"], second["correct"], len(data["disagreements"])) == (6, 8, 3)
    page, errors = _open_results(chromium, server)
    page.set_input_files("#results-file", str(compared))
    page.wait_for_selector("#compare-file-runs")
    assert page.is_hidden("#results-error") and page.is_hidden("#results-panel")

    runs = _table(page, "#compare-file-runs")
    assert [r[0] for r in runs] == ["first/run", "second/run"]
    for row, r in zip(runs, data["runs"], strict=True):
        cost = r["cost"]
        assert row[1:8] == ["cot", str(r["n"]), str(r["correct"]), ci(r["accuracy"], r["ci"]["accuracy"]),
                            ci(r["macro_f1"], r["ci"]["macro_f1"]), str(len(r["unparsed"])), str(len(r["errored"]))]
        assert row[8] == spent(cost["per_claim"]) and row[9] == spent(cost["per_correct"])
        assert row[10] == str(cost["errored_without_usage"]) == "0"  # the crash's spend is in the figures
        assert row[11] == ("on the front" if r["name"] in data["pareto"]["front"] else
                           "not distinguishable from the front" if r["name"] in data["pareto"]["not_distinguishable"]
                           else "")
    assert data["pareto"]["front"] and data["pareto"]["cost_axis"] == "tokens"
    close = data["pareto"]["not_distinguishable"]
    assert page.inner_text(".compare-file-pareto") == (
        "Cost axis: tokens per claim. On the front (no other run is both cheaper and more accurate): "
        + ", ".join(data["pareto"]["front"]) + "." + (" Not distinguishable from the front (no front run that beats "
        "it is significantly more accurate after Holm's correction): " + ", ".join(close) + "." if close else ""))
    assert page.inner_text(".compare-file-verdict") == data["verdict"]

    (pair,) = data["pairs"]
    assert _table(page, "#compare-file-pairs") == [[
        "first/run", "second/run", str(pair["n"]), str(pair["only_a"]), str(pair["only_b"]),
        ci(pair["difference"], pair["ci"]), ci(pair["macro_f1_difference"], pair["macro_f1_ci"]),
        f"{pair['mcnemar_p']:.3f}", f"{pair['mcnemar_p_holm']:.3f}", "yes" if pair["differs"] else "no",
        f"{pair['kappa']:.3f} (n = {pair['kappa_n']})", ratio(pair["cost_ratio"])]]

    rows = _table(page, "#compare-file-disagreements")
    assert [r[:3] for r in rows] == [[d["id"], d["gold"], d["claim"]] for d in data["disagreements"]]
    for row, d in zip(rows, data["disagreements"], strict=True):
        assert row[3:] == [d["answers"][n]["answer"] + (" ✓" if d["answers"][n]["correct"] else " ✗")
                           for n in ("first/run", "second/run")]
    assert "ERROR ✗" in {cell for row in rows for cell in row}  # the first run's crash is one of them
    # The settings table lists what differs (here nothing outside the method's own), the rest folded.
    assert not data["settings"]["differ"]
    shared = len(data["settings"]["same"])
    assert page.locator("#compare-file summary").inner_text() == f"{shared} settings the runs share"
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the tables scroll in their boxes
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    page.set_viewport_size({"width": 1280, "height": 900})

    # The page's own paired view of the two results files agrees with the file on what it shares with it.
    page.set_input_files("#results-file", [str(compared.parent.parent / name / "run" / "results.jsonl")
                                           for name in ("first", "second")])
    page.wait_for_selector("#results-paired h2:has-text('Paired comparison of 2 files')")
    assert page.locator("#compare-file").count() == 0
    files = _table(page, "#results-paired table:nth-of-type(1)")
    assert [(r[2], r[3]) for r in files] == [(str(r["correct"]), ci(r["accuracy"], r["ci"]["accuracy"]))
                                             for r in data["runs"]]
    paired = _table(page, "#results-paired table:nth-of-type(2)")[0]
    assert paired[2:4] == [str(pair["only_a"]), str(pair["only_b"])]
    assert paired[5:] == [f"{pair['mcnemar_p']:.3f}", f"{pair['mcnemar_p_holm']:.3f}",
                          f"{pair['kappa']:.3f} (n = {pair['kappa_n']})"]
    assert page.inner_text("#results-paired .paired-verdict") == data["verdict"]
    page.close()
    assert errors == []


def test_the_compare_tabs_download_reopens_side_by_side_and_other_json_is_named(chromium: Any, server: LiveServer,
                                                                                 tmp_path: Path) -> None:
    page, errors = _open_results(chromium, server, width=1600, height=1000)
    page.click("button.tab[data-mode=compare]")
    for box in page.locator("#compare-methods input").all():
        box.set_checked(box.get_attribute("value") in ("cot", "tool-mad"))
    page.fill("#claim", "The Eiffel Tower is in Paris.")
    page.click("#submit")
    page.wait_for_selector("#submit:not([disabled])", state="attached", timeout=60_000)
    page.wait_for_selector("#compare-grid .compare-actions button.download")
    agreement = page.inner_text(".compare-agreement")
    with page.expect_download() as download:
        page.click("#compare-grid .compare-actions button.download")
    saved = Path(download.value.path())
    verdicts = {v["method"]: v["label"] for v in json.loads(saved.read_text())["verdicts"]}
    assert sorted(verdicts) == ["cot", "tool-mad"]

    # A fresh page (no Recent checks) opens the file in the results viewer: the Compare tab draws it.
    fresh, fresh_errors = _open_results(chromium, server, width=1600, height=1000)
    fresh.set_input_files("#results-file", str(saved))
    fresh.wait_for_selector("#compare-grid .compare-card[data-method=tool-mad]:not(.pending)")
    assert fresh.get_attribute("button.tab[data-mode=compare]", "aria-selected") == "true"
    assert fresh.input_value("#claim") == "The Eiffel Tower is in Paris."
    assert fresh.inner_text(".compare-agreement") == agreement
    for method, label in verdicts.items():
        card = f"#compare-grid .compare-card[data-method={method}]"
        assert fresh.inner_text(f"{card} .label") == label
        assert fresh.inner_text(f"#compare-view .compare-column[data-method={method}] .verdict-label") == label
    boxes = [fresh.locator(f"#compare-view .compare-column[data-method={m}]").bounding_box() for m in verdicts]
    left, right = sorted(boxes, key=lambda b: b["x"])
    assert left["x"] + left["width"] <= right["x"] and abs(left["y"] - right["y"]) < 2, boxes  # side by side

    # Any other JSON: a one-line message naming what the viewer opens.
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"model": "m", "scores": [1, 2]}), encoding="utf-8")
    fresh.click("button.tab[data-view=results]")
    fresh.set_input_files("#results-file", str(other))
    fresh.wait_for_selector("#results-error:visible")
    message = fresh.inner_text("#results-error")
    assert message.startswith("The viewer does not know this file's shape (its keys: model, scores): it opens ")
    for what in ("results rows", "verify --json", "check-response --json", "--trace", "compare.json",
                 "Compare tab's Download JSON"):
        assert what in message
    page.close()
    fresh.close()
    assert errors == [] and fresh_errors == []


def test_the_comparison_figures_read_as_the_file_holds_them(compared: Path) -> None:
    data = json.loads(compared.read_text(encoding="utf-8"))
    kinds = run_module("compare-file.js", "data.map(m.comparisonKind)",
                       [data, {"kind": "comparison", "verdicts": []}, {"runs": []}, [data], None, {"claim": "x"}])
    assert kinds == ["compare-json", "comparison", None, None, None, None]
    runs = run_module("compare-file.js", "m.runTable(data).rows", data)
    assert [r[4] for r in runs] == [ci(r["accuracy"], r["ci"]["accuracy"]) for r in data["runs"]]
    assert run_module("compare-file.js", "m.withInterval(null, [0.1, null])", None) == "n/a [0.100, n/a]"
    priced = {**data, "runs": [{**data["runs"][0], "cost": {**data["runs"][0]["cost"], "dollars_per_claim": 0.00126,
                                                         "dollars_per_correct": 0.005}}]}
    row = run_module("compare-file.js", "m.runTable(data).rows[0]", priced)
    assert row[8].endswith(" · $0.00126") and row[9].endswith(" · $0.00500")  # three significant digits
    assert run_module("compare-file.js", "m.paretoText(data)", {"pareto": {"cost_axis": "dollars", "front": []}}) == \
        "No run has a cost on the axis (dollars per claim), so there is no Pareto front."
