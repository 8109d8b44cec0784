"""Starting a local Ray instance that survives a busy machine.

Ray's fixed 30 s start-up waits run out on two loaded cores: the GCS wait gets 120 s (unless the user set it)
and a start-up timeout one more try. Every job starts in an empty working directory (util/child_python.py),
so a ``factdebate/`` folder lying in the current one never runs in the workers."""

from __future__ import annotations

import os
from typing import Any

from tenacity import Retrying, retry_if_exception, stop_after_attempt

from factdebate.util.child_python import ray_runtime_env

GCS_WAIT_VARIABLE = "RAY_gcs_server_port_wait_time_s"
_STARTUP_TIMEOUTS = ("timed out during startup", "timed out waiting for file")


def is_startup_timeout(exc: BaseException) -> bool:
    """Whether `ray.init` failed only because a Ray process was slow to come up."""
    return any(words in str(exc).lower() for words in _STARTUP_TIMEOUTS)


def start_local_ray(ray: Any, cpus: int, attempts: int = 2, **options: Any) -> None:
    """A loopback-only instance with no dashboard (it takes seconds and serves nobody here)."""
    os.environ.setdefault(GCS_WAIT_VARIABLE, "120")

    def start() -> None:
        try:
            ray.init(num_cpus=cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
                     runtime_env=ray_runtime_env(), **options)
        except Exception:  # Ray raises a bare Exception for the raylet's wait, RuntimeError for the GCS's
            ray.shutdown()  # the half-started processes, before the next try or the error
            raise

    # The policy: a start-up timeout is tried again at once, ``attempts`` tries in all; any other failure ends it.
    Retrying(retry=retry_if_exception(lambda exc: isinstance(exc, Exception) and is_startup_timeout(exc)),
             stop=stop_after_attempt(attempts), reraise=True)(start)


def join_ray(ray: Any, address: str, **options: Any) -> None:
    """Join the cluster at ``address`` (``auto``, ``ray://host:port``), the job in its own empty folder."""
    ray.init(address=address, runtime_env=ray_runtime_env(), **options)
