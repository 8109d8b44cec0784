"""One local Ray instance for the module's tests (starting one takes seconds): loopback only, no dashboard,
two CPUs, one per worker, started the way the product starts one (`start_local_ray`: a longer GCS wait and a
second try when a start-up wait runs out on a loaded machine, as CI's once did). Pools see it running and leave
it up; it stops after the last test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from factdebate.scale.ray_start import start_local_ray


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    start_local_ray(ray, 2, attempts=3, log_to_driver=False, configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()
