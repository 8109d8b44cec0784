"""The repository carries the license its package declares, and the build puts it in the wheel (the wheel
itself is checked by tests/install, which builds one)."""

from __future__ import annotations

import tomllib

from tests.paths import ROOT


def test_the_declared_license_is_in_the_repository_and_named_for_the_wheel() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the whole text, not a pointer to it
