"""One local Ray instance for the module's tests (starting one takes seconds): loopback only, no dashboard,
two CPUs, one per worker, started the way the product starts one (`start_local_ray`: a longer GCS wait and a
second try when a start-up wait runs out on a loaded machine, as CI's once did). Pools see it running and leave
it up; it stops after the last test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from factdebate.scale.ray_start import start_local_ray
from tests.paths import ROOT


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    # The workers run in a folder of their own, without the driver's current folder on their path (issue 35):
    # they find the test modules they import by name (tests.scale.support's builders) on PYTHONPATH, which the
    # instance's processes inherit when it starts.
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(part for part in (str(ROOT), before) if part)
    try:
        start_local_ray(ray, 2, attempts=3, log_to_driver=False, configure_logging=False)
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before
    try:
        yield ray
    finally:
        ray.shutdown()
