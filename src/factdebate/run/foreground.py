"""What a command does in its main thread before its asynchronous work starts.

Two things must happen before a run spends minutes: the model servers it will call answer (a dead one is
reported in seconds, not after a 30-minute index build), and the built-in indexes its method searches are
built. The build runs here, in the main thread, because Ctrl-C and SIGTERM (raised as KeyboardInterrupt
there, cli/main.py) stop it within seconds; ``run_claim`` prepares in a worker thread, which an interrupt
cannot stop, so a build started there ran to its end after Ctrl-C. A finished build is kept (the indexes
resume where they stopped), so the next run goes on from there.
"""

from __future__ import annotations

from factdebate.run.build import ensure_indexes
from factdebate.run.model_servers import check_model_servers
from factdebate.settings.model import Settings


def prepare_in_foreground(settings: Settings, progress: bool = True) -> None:
    check_model_servers(settings)
    ensure_indexes(settings, progress=progress)
