"""Regenerates the screenshots of docs/service.md: each method's view on the web page, the form and the
comparison, taken with Playwright and Debian's Chromium against a real ``factdebate serve --no-auth`` run
with the scripted model (offline, no key) on the whole built-in corpus (10,033 Wikipedia articles), so the
evidence shown is about the claim. The data folder is a fresh one, seeded with the built-in indexes of
``--corpus-from`` (default: the default data folder, where ``make demo`` builds them); where that holds none,
the server builds them first (minutes).

    .venv/bin/python scripts/screenshots.py            # writes docs/images/page-*.png
    .venv/bin/python scripts/screenshots.py --out DIR
    .venv/bin/python scripts/screenshots.py --corpus-from DIR   # the data folder holding the built indexes
    .venv/bin/python scripts/screenshots.py --only results   # just the results viewer's and the replay's
    .venv/bin/python scripts/screenshots.py --only guard     # just a chat reply's kept check (the guard's)

Each picture is the part of the page it shows (the form, one verdict's view, the comparison), at one pixel
per CSS pixel and (with Pillow) in a 256-colour palette, so the files stay small. Every mode is taken at a
desktop's width and at a phone's (390 px): a claim in each of the three layouts (debate, teams, timeline), a
comparison, a response, the results viewer and a replayed trace.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("FACTDEBATE_CHROMIUM", "/usr/bin/chromium")
CLAIM = "The Eiffel Tower is in Paris."
# A response to check. Its second sentence names its subject: the scripted extractor does not reword "It was
# completed in 1889." (a served model does), and that claim found passages about other things built in 1889.
ANSWER = "The Eiffel Tower is in Paris. The Eiffel Tower was completed in 1889."
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1200, "height": 900}
# Short debates: one rebuttal round for DPD, few passages, so each view fits a screen.
SERVE_FLAGS = ["--llm", "scripted:agree", "--no-cache", "-k", "2", "--dpd-min-rounds", "0", "--dpd-max-rounds", "1",
               "--dpd-snippets", "3", "--dpd-tools", "search", "--mermaid-servers", "search", "--rounds", "2"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(data_dir: Path) -> dict[str, str]:
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    env.pop("FACTDEBATE_RETRIEVAL__BUILTIN_DOCS", None)  # the whole corpus: a part of it holds no Eiffel Tower
    return env


def default_data_dir() -> Path:
    """The data folder factdebate uses when none is named (util/paths.py), without importing factdebate."""
    if os.environ.get("FACTDEBATE_DATA_DIR"):
        return Path(os.environ["FACTDEBATE_DATA_DIR"]).expanduser()
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "factdebate"


def seed(data_dir: Path, source: Path) -> bool:
    """The whole built-in corpus's finished indexes (full text and vectors) copied from ``source`` into the fresh
    ``data_dir``, its models linked, so the server starts without indexing; False (nothing copied) where
    ``source`` holds no finished build of the whole corpus (its markers, corpus/markers.py)."""
    try:
        markers = json.loads((source / "indexed.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    whole = {key: value for key, value in markers.items() if isinstance(value, dict) and value.get("limit") is None
             and (key == "local:builtin" or key == "rag:builtin:<data>/milvus.db")}
    parts = [source / "tantivy" / "builtin", source / "milvus.db"]
    if len(whole) < 2 or not all(part.is_dir() for part in parts):
        return False
    shutil.copytree(parts[0], data_dir / "tantivy" / "builtin")
    shutil.copytree(parts[1], data_dir / "milvus.db", ignore=shutil.ignore_patterns("LOCK"))
    if (source / "models").is_dir():
        (data_dir / "models").symlink_to((source / "models").resolve(), target_is_directory=True)
    (data_dir / "indexed.json").write_text(json.dumps(whole), encoding="utf-8")
    return True


def write_trace(data_dir: Path, path: Path) -> Path:
    """A Tool-MAD run's trace with its calls' text, as ``factdebate verify --trace FILE --trace-text`` writes
    it. Its agents search the full-text index only: the service holds the Milvus Lite file meanwhile."""
    command = [str(Path(sys.executable).with_name("factdebate")), "verify", CLAIM, *SERVE_FLAGS,
               "--agents", "search,none", "--search", "local", "--trace", str(path), "--trace-text"]
    done = subprocess.run(command, env=environment(data_dir), capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"factdebate verify --trace exited {done.returncode}: {done.stderr[-2000:]}")
    return path


@contextmanager
def served(data_dir: Path) -> Iterator[str]:
    """``factdebate serve --no-auth`` on a free loopback port, until the block ends."""
    port = free_port()
    env = environment(data_dir)
    command = [str(Path(sys.executable).with_name("factdebate")), "serve", "--no-auth", "--port", str(port),
               "--log-level", "warning", *SERVE_FLAGS]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 1800  # unseeded, the first start indexes the whole corpus
        while True:
            if server.poll() is not None:
                raise SystemExit(f"factdebate serve exited {server.returncode}: {server.stderr.read()[-2000:]}")
            try:
                with urllib.request.urlopen(url + "/v1/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("factdebate serve did not answer within 30 minutes") from None
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def verify(page: Any, method: str) -> None:
    page.click("button.tab[data-view=check]:not([data-mode])")  # "Check a claim"
    page.select_option("#method", method)
    page.fill("#claim", CLAIM)
    page.click("#submit")
    page.wait_for_selector("#live .verdict-box:not([hidden]) .verdict-label", timeout=180_000)


def check_response(page: Any) -> None:
    page.click("button.tab[data-mode=response]")
    page.select_option("#method", "tool-mad")
    page.fill("#response-text", ANSWER)
    page.click("#submit")
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=300_000)


GROUPS = ("modes", "results", "guard")
# A chat reply for the guard's kept check: a greeting and an opinion the gate leaves out, two facts it checks.
GUARD_REPLY = "Hi! The Eiffel Tower is in Paris. The tower was completed in 1889. I think it is lovely at night."


def take(url: str, out: Path, groups: tuple[str, ...] = GROUPS, trace: Path | None = None) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        if "modes" not in groups:  # --only results, --only guard
            if "results" in groups:
                written += take_results(browser, url, out, trace)
            if "guard" in groups:
                written += take_guard(browser, url, out)
            browser.close()
            return written
        page = browser.new_page(viewport=DESKTOP, device_scale_factor=1)
        page.goto(url + "/")
        page.wait_for_selector("#method option[value=dpd]", state="attached")
        # The bar at the top stays put while the page scrolls; it would cover the parts taken below it.
        page.evaluate("() => { document.querySelector('.topbar').style.position = 'static'; }")

        def shot(selector: str, name: str, on: Any = page) -> None:
            path = out / f"page-{name}.png"
            on.locator(selector).screenshot(path=str(path))
            written.append(path)

        page.select_option("#method", "dpd")
        page.click("#more summary")
        shot("#claim-form", "form")
        page.click("#more summary")
        for method, name in (("tool-mad", "tool-mad"), ("dpd", "dpd"), ("mermaid", "mermaid")):
            verify(page, method)
            page.evaluate("() => document.querySelectorAll('#live details.snippets, #live .doc-text')"
                          ".forEach(d => d.open = false)")
            shot("#live", name)
            if method == "tool-mad":  # one turn's model call unfolded: its facts, its prompt by role, its reply
                card = page.locator("#live .agent-col .turn").first
                for fold in (".model-calls > summary", ".call-prompt > summary", ".call-reply > summary"):
                    card.locator(fold).first.click()
                shot("#live .agent-col .turn >> nth=0", "transcript")
            if method == "tool-mad":  # the verdict box with its link to the kept check
                shot("#live .verdict-box", "check-link")
        page.click("button.tab[data-mode=compare]")
        page.fill("#claim", CLAIM)
        page.click("#submit")
        page.wait_for_selector("#submit:not([disabled])", timeout=300_000)
        page.click("#compare-grid .compare-card[data-method=dpd]")
        shot("#compare-grid", "compare")
        # A wide screen: the methods' views side by side, each with its own settings.
        wide = browser.new_page(viewport={"width": 1600, "height": 1000}, device_scale_factor=1)
        wide.goto(url + "/#compare")
        wide.wait_for_selector("#compare-methods input[value=dpd]", state="attached")
        for box in wide.locator("#compare-methods input").all():
            box.set_checked(box.get_attribute("value") in ("tool-mad", "dpd"))
        wide.click(".compare-settings[data-method=tool-mad] summary")
        wide.fill("#cmp-tool-mad-rounds", "1")
        wide.fill("#claim", CLAIM)
        wide.click("#submit")
        wide.wait_for_selector("#submit:not([disabled])", timeout=300_000)
        wide.evaluate("() => document.querySelectorAll('#compare-live details.snippets, #compare-live .doc-text')"
                      ".forEach(d => d.open = false)")
        shot("#compare-live", "compare-wide", wide)
        # Many voters: a grid of cards, not a column each.
        verify(page, "vote")
        shot("#live", "vote")
        check_response(page)
        shot("#response-live .response-card", "response")

        # A phone's width: the tabs, then each mode.
        phone = browser.new_page(viewport=PHONE, device_scale_factor=1)
        phone.goto(url + "/")
        phone.wait_for_selector("#method option[value=dpd]", state="attached")
        shot(".topbar", "phone-tabs", phone)
        verify(phone, "tool-mad")
        shot("#live", "phone-claim", phone)
        phone.click("button.tab[data-mode=compare]")
        phone.fill("#claim", CLAIM)
        phone.click("#submit")
        phone.wait_for_selector("#submit:not([disabled])", timeout=300_000)
        shot("#compare-grid", "phone-compare", phone)
        check_response(phone)
        shot("#response-live .response-card", "phone-response", phone)
        for method in ("dpd", "mermaid"):  # the other two layouts, teams and timeline
            verify(phone, method)
            phone.evaluate("() => document.querySelectorAll('#live details.snippets, #live .doc-text')"
                           ".forEach(d => d.open = false)")
            shot("#live", f"phone-{method}", phone)
        if "results" in groups:
            written += take_results(browser, url, out, trace)
        if "guard" in groups:
            written += take_guard(browser, url, out)
        browser.close()
    return written


def take_guard(browser: Any, url: str, out: Path) -> list[Path]:
    """A chat reply checked by the guard (``POST /v1/guard/check``, kept as kind ``guard``) and reopened from its
    link, as the page draws it: the reply's verdict, its claims marked in the text, the sentences the gate left
    out, at desktop and phone width."""
    import json

    body = json.dumps({"text": GUARD_REPLY, "factdebate": {"tier": "fast"}}).encode()
    request = urllib.request.Request(url + "/v1/guard/check", method="POST", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as reply:
        check_id = json.load(reply)["check_id"]
    written: list[Path] = []
    for viewport, name in ((DESKTOP, "guard"), (PHONE, "phone-guard")):
        page = browser.new_page(viewport=viewport, device_scale_factor=1)
        page.goto(f"{url}/?check={check_id}")
        page.wait_for_selector("#response-live .guard-card")
        path = out / f"page-{name}.png"
        page.locator("#response-live .guard-card").screenshot(path=str(path))
        written.append(path)
        page.close()
    return written


def take_results(browser: Any, url: str, out: Path, trace: Path | None = None) -> list[Path]:
    """The results viewer on a scripted evaluation's records (the test suite's, tests/server/results_file.py):
    its summary, confusion matrix, per-label figures and rows, at desktop and phone width; then ``trace``
    opened there and its run replayed, at both widths."""
    sys.path.insert(0, str(ROOT))
    from tests.server.results_file import write_results

    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="factdebate-results-") as folder:
        results = write_results(Path(folder))
        for viewport, name in ((DESKTOP, "results"), (PHONE, "phone-results")):
            page = browser.new_page(viewport=viewport, device_scale_factor=1)
            page.goto(url + "/")
            page.click("button.tab[data-view=results]")
            page.set_input_files("#results-file", str(results))
            page.wait_for_selector("#results-body tr")
            path = out / f"page-{name}.png"
            page.locator("#results-panel > .card").screenshot(path=str(path))
            written.append(path)
            page.close()
    for viewport, name in ((DESKTOP, "replay"), (PHONE, "phone-replay")) if trace else ():
        page = browser.new_page(viewport=viewport, device_scale_factor=1)
        page.goto(url + "/")
        page.evaluate("() => { document.querySelector('.topbar').style.position = 'static'; }")
        page.click("button.tab[data-view=results]")
        page.set_input_files("#results-file", str(trace))
        page.click("#results-body tr >> nth=0")  # the trace's one run, replayed with its own pacing
        page.wait_for_selector("#results-debate .verdict-box:not([hidden]) .verdict-label", timeout=120_000)
        page.evaluate("() => document.querySelectorAll('#results-debate details.snippets, #results-debate .doc-text')"
                      ".forEach(d => d.open = false)")
        path = out / f"page-{name}.png"
        page.locator("#results-debate").screenshot(path=str(path))
        written.append(path)
        page.close()
    return written


def palette(path: Path) -> None:
    """The picture in 256 colours (a third of the size; flat page colours and text survive it), where Pillow is
    installed; otherwise it stays as Chromium wrote it."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as shot:
        small = shot.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--corpus-from", type=Path, default=default_data_dir(),
                        help="a data folder holding the built-in corpus's indexes, copied into the fresh one")
    parser.add_argument("--only", choices=GROUPS,
                        help="take only these pictures: the modes', the results viewer's or the guard's")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM} (scripts/ci-system-deps.sh installs it)")
    with tempfile.TemporaryDirectory(prefix="factdebate-shots-") as data:
        if not seed(Path(data), args.corpus_from):
            print(f"{args.corpus_from} holds no built-in indexes of the whole corpus: the server builds them first")
        shoot(Path(data), args)


def shoot(data: Path, args: argparse.Namespace) -> None:
    with served(data) as url:
        groups = (args.only,) if args.only else GROUPS
        trace = write_trace(data, data / "trace.jsonl") if "results" in groups else None
        for path in take(url, args.out, groups, trace):
            palette(path)
            print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}  {path.stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main()
