"""Where things are, for tests at any depth: the repository, the tests' fixtures, the shared datasets."""

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
# The workplace's shared folder beside the repository (datasets, papers); a git worktree elsewhere names it
# with FACTDEBATE_TEST_SHARED.
SHARED = Path(os.environ.get("FACTDEBATE_TEST_SHARED") or ROOT.parent / "shared")
# What tests keep between runs on this machine, as pip keeps its downloads: a cache, never an input. mypy's
# caches are checked against each file's hash, so a fresh clone reuses them only where nothing changed.
USER_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "factdebate-tests"
MYPY_CACHE = USER_CACHE / "mypy"
