"""Where things are, for tests at any depth: the repository, the tests' fixtures, the shared datasets."""

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
# The workplace's shared folder beside the repository (datasets, papers); a git worktree elsewhere names it
# with FACTDEBATE_TEST_SHARED.
SHARED = Path(os.environ.get("FACTDEBATE_TEST_SHARED") or ROOT.parent / "shared")
