"""One local Ray instance for the scale tests (starting one takes seconds): loopback only, no dashboard, two
CPUs, one per worker, started the way the product starts one (`start_local_ray`: a longer GCS wait and a
second try when a start-up wait runs out on a loaded machine, as CI's once did). Pools see it running and leave
it up. It is shared by consecutive scale tests that use it, across their modules (it used to start once per
module: 7 s and a shutdown each at load 7), and stops as soon as the next test is not one of them."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdebate.scale.ray_start import start_local_ray
from tests.paths import ROOT

HERE = Path(__file__).resolve().parent
WORKER_NICENESS = "RAY_worker_niceness"  # Ray's own variable (ray_constants.RAY_WORKER_NICENESS), in its case


@contextlib.contextmanager
def local_ray() -> Iterator[Any]:
    """Ray started in this process for the block, then shut down."""
    ray = pytest.importorskip("ray")
    # The workers run in a folder of their own, without the driver's current folder on their path:
    # they find the test modules they import by name (tests.scale.support's builders) on PYTHONPATH, which the
    # instance's processes inherit when it starts.
    #
    # The workers run at the suite's own priority: Ray lowers its workers' by 15 (RAY_worker_niceness), which
    # on a loaded machine left them a few per cent of the CPU beside the suite's other tests, all at 0 (in a
    # whole-suite run at load 17 the workers took 67 s to build and their claims had not ended 4 minutes later:
    # tests/scale/test_pool.py's batch got 0 of 6 claims before pytest-timeout).
    saved = {name: os.environ.get(name) for name in ("PYTHONPATH", WORKER_NICENESS)}
    os.environ["PYTHONPATH"] = os.pathsep.join(part for part in (str(ROOT), saved["PYTHONPATH"]) if part)
    os.environ[WORKER_NICENESS] = "0"  # inherited by the raylet, which starts the workers
    try:
        start_local_ray(ray, 2, attempts=3, log_to_driver=False, configure_logging=False)
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
    try:
        yield ray
    finally:
        ray.shutdown()


_running: list[contextlib.ExitStack] = []  # the shared instance's stack while it runs


@pytest.fixture
def ray_instance() -> Any:
    """The shared instance, started by the first test that needs it (stopped by pytest_runtest_teardown)."""
    if not _running:
        stack = contextlib.ExitStack()
        ray = stack.enter_context(local_ray())
        _running.append(stack)
        return ray
    return pytest.importorskip("ray")


def _uses_shared_ray(item: pytest.Item | None) -> bool:
    return (item is not None and "ray_instance" in getattr(item, "fixturenames", ())
            and HERE in Path(item.path).resolve().parents)


@pytest.hookimpl(trylast=True)  # after the test's own fixtures are torn down: they may still talk to Ray
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if _running and not _uses_shared_ray(nextitem):
        _running.pop().close()
