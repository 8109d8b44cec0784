"""Where things are, for tests at any depth: the repository, the tests' fixtures, the shared datasets."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
SHARED = ROOT.parent / "shared"  # the workplace's shared folder beside the repository (datasets, papers)
