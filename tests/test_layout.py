"""The tests mirror the package: every folder of tests names a package of src/factdebate (the golden
check, which spans them all, aside), so a module's tests are found by its path."""

from __future__ import annotations

from pathlib import Path

from tests.paths import ROOT, TESTS

SRC = ROOT / "src" / "factdebate"
ACROSS_PACKAGES = {"golden", "fixtures", "install"}  # whole-project checks: no one package
# Scenario suites inside a package's tests: every door of that package's face, not one module's tests; and the
# web page's browser tests (the page is server/static's files, not a Python package).
SCENARIOS = {"guard/conformance", "server/page"}
# A test folder named apart from its package: tests/guard holds the check engine's tests, the package named
# guard_engine so that it never hides the public function ``factdebate.guard``.
RENAMED = {"guard": "guard_engine"}


def package_of(folder: Path) -> Path:
    return SRC / RENAMED.get(folder.parts[0], folder.parts[0]) / Path(*folder.parts[1:])


def test_every_test_folder_mirrors_a_package() -> None:
    folders = {p.parent.relative_to(TESTS) for p in TESTS.rglob("test_*.py")} - {TESTS.relative_to(TESTS)}
    stray = sorted(str(f) for f in folders if f.parts[0] not in ACROSS_PACKAGES and not package_of(f).is_dir()
                   and str(f) not in SCENARIOS)
    assert stray == []


def test_the_package_root_holds_only_the_public_api() -> None:
    assert sorted(p.name for p in SRC.glob("*.py")) == ["__init__.py", "api.py"]
