"""One local Ray instance for the module's tests (starting one takes seconds; tried again when Ray's fixed 30 s
start-up wait runs out on a loaded machine): loopback only, no dashboard,
two CPUs, one per worker. Pools see it running and leave it up; it stops after the last test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    for attempt in range(3):
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
                     _node_ip_address="127.0.0.1")
            break
        except Exception as exc:  # Ray waits a fixed 30 s for its raylet: on two busy cores it may not come
            ray.shutdown()
            if "timed out during startup" not in str(exc) or attempt == 2:
                raise
    try:
        yield ray
    finally:
        ray.shutdown()
