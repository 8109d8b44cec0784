"""The exit-code contract of every command (README: "Exit codes"):

- 0: everything asked for was done (every claim has a verdict);
- 1: the run went ahead but some claims ended in error (their records say why), or a remote service
  failed during the run;
- 2: a usage or configuration error: nothing was run;
- 3: ``check-response --fail-on`` only: the check itself failed (a claim in error, a remote service down),
  where 1 there means the response holds a refuted claim, one its writer can correct (cli/fail_on.py);
- 4: ``check-response --fail-on`` only: the response holds a claim of another kind it names (unchecked, not
  enough info) and none refuted: nothing its writer can correct, so a loop stops rather than run it again.
"""

from __future__ import annotations

from factdebate.core.errors import (
    ConfigError,
    DataDirError,
    FactDebateError,
    IndexError_,
    InputError,
    MissingDependencyError,
)

OK = 0
SOME_FAILED = 1
USAGE = 2
CHECK_FAILED = 3  # check-response --fail-on
CANNOT_FIX = 4  # check-response --fail-on
INTERRUPTED = 130


def code_for(exc: FactDebateError) -> int:
    """Errors found before any work (bad flags, settings, input files, a missing index or package, a data
    folder that cannot be written) are usage errors; the rest happened while claims were being checked."""
    if isinstance(exc, ConfigError | InputError | MissingDependencyError | IndexError_ | DataDirError):
        return USAGE
    return SOME_FAILED
