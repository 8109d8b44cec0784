"""A circuit breaker per model server: a server that refuses connections is not called again for a while.

Without it, a dead checker cost every guarded reply its whole deadline in retries. A refused connection is no
hiccup (a busy server still accepts), so after :data:`REFUSALS_TO_OPEN` in a row the server is *down*: calls
fail at once with :class:`ModelServerDown` for a pause that doubles from :data:`FIRST_PAUSE_S` to
:data:`LONGEST_PAUSE_S`, until an answer closes the breaker. :func:`down` lists it under its models' names.
Timeouts and error answers do not count: a slow server is not a dead one."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from factdebate.core.errors import EndpointUnavailableError

REFUSALS_TO_OPEN = 3  # refusals in a row: one is a restart's moment, three are a server that is gone
FIRST_PAUSE_S = 1.0
LONGEST_PAUSE_S = 30.0


class ModelServerDown(EndpointUnavailableError):
    """A call not sent: its model server refused the last connections and its pause has not ended."""

    def __init__(self, endpoint: str, model: str, refusals: int, seconds_left: float) -> None:
        super().__init__(endpoint, 0, "")
        self.args = (f"the model server of {model} is down: it refused {refusals} connections in a row, so it is "
                     f"not called for {seconds_left:.1f} s more",)


@dataclass
class _Server:
    refusals: int = 0
    pause_s: float = 0.0
    open_until: float = 0.0
    models: set[str] = field(default_factory=set)


_lock = threading.Lock()
_servers: dict[str, _Server] = {}


def before_call(endpoint: str | None, model: str) -> None:
    """Raise :class:`ModelServerDown` while ``endpoint``'s pause lasts; otherwise the call goes ahead."""
    if not endpoint:
        return
    with _lock:
        server = _servers.setdefault(endpoint, _Server())
        server.models.add(model)
        left = server.open_until - time.monotonic()
        refusals = server.refusals
    if left > 0:
        raise ModelServerDown(endpoint, model, refusals, left)


def refused(endpoint: str | None) -> bool:
    """One more refused connection; True when it opens the breaker (the caller stops trying now)."""
    if not endpoint:
        return False
    with _lock:
        server = _servers.setdefault(endpoint, _Server())
        server.refusals += 1
        if server.refusals < REFUSALS_TO_OPEN:
            return False
        server.pause_s = min(LONGEST_PAUSE_S, server.pause_s * 2 if server.pause_s else FIRST_PAUSE_S)
        server.open_until = time.monotonic() + server.pause_s
        return True


def answered(endpoint: str | None) -> None:
    """The server answered (whatever it said): it runs, and the breaker closes."""
    if not endpoint:
        return
    with _lock:
        server = _servers.get(endpoint)
        if server is not None and (server.refusals or server.pause_s):
            server.refusals, server.pause_s, server.open_until = 0, 0.0, 0.0


def down() -> list[str]:
    """The models whose server is down now: until it answers again, even after its pause."""
    with _lock:
        return sorted({model for server in _servers.values() if server.refusals >= REFUSALS_TO_OPEN
                       for model in server.models})


def forget() -> None:
    """Every server's state dropped (a test's fresh start)."""
    with _lock:
        _servers.clear()
