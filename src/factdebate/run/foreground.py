"""What a command settles in its main thread before its asynchronous work starts: the model servers it will
call answer, so a dead one is reported in seconds (exit 2), not after an index build."""

from __future__ import annotations

import sys

from factdebate.run.model_servers import busy_note, check_model_servers
from factdebate.settings.model import Settings


def prepare_in_foreground(settings: Settings) -> None:
    """A dead model server raises (one line, exit 2); a busy one is said on stderr and the command goes on."""
    for answer in check_model_servers(settings):
        print(busy_note(answer), file=sys.stderr)
