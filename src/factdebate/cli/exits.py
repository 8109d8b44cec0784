"""The exit-code contract of every command (README: "Exit codes"):

0 done; 1 some claims ended in error or a remote service failed; 2 a usage or configuration error, nothing run;
3 and 4 under ``check-response --fail-on`` only (cli/fail_on.py)."""

from __future__ import annotations

from factdebate.core.errors import DataDirError, IndexError_
from factdebate.util.errors import ConfigError, FactDebateError, InputError, MissingDependencyError

OK = 0
SOME_FAILED = 1
USAGE = 2
CHECK_FAILED = 3  # check-response --fail-on
CANNOT_FIX = 4  # check-response --fail-on
INTERRUPTED = 130


def code_for(exc: FactDebateError) -> int:
    """Errors found before any work are usage errors (2); the rest happened while claims were checked (1)."""
    if isinstance(exc, ConfigError | InputError | MissingDependencyError | IndexError_ | DataDirError):
        return USAGE
    return SOME_FAILED
