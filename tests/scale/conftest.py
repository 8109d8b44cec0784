"""One local Ray instance for the module's tests (starting one takes seconds): loopback only, no dashboard,
two CPUs, one per worker. Pools see it running and leave it up; it stops after the last test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             _node_ip_address="127.0.0.1")
    try:
        yield ray
    finally:
        ray.shutdown()
