"""The wheel carries the documentation: `factdebate docs` reads it offline (factdebate/cli/docs.py), and
messages cite its topics, as a wheel user has no repository and the project no public web address.
Everything else is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildPyWithDocs(build_py):
    """Copies docs/**/*.md to factdebate/docs/ and README.md to factdebate/docs/readme.md in the build."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the repository's docs/
            return
        target = Path(self.build_lib) / "factdebate" / "docs"
        for source in (ROOT / "docs").rglob("*.md"):
            destination = target / source.relative_to(ROOT / "docs")
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
        shutil.copyfile(ROOT / "README.md", target / "readme.md")


setup(cmdclass={"build_py": BuildPyWithDocs})
