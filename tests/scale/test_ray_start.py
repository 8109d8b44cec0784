"""A local Ray start that times out on a busy machine is tried again; any other failure is not."""

from __future__ import annotations

import os
from typing import Any

import pytest

from factdebate.scale import ray_start
from factdebate.scale.ray_start import is_startup_timeout, start_local_ray
from factdebate.util.child_python import ray_runtime_env


class FlakyRay:
    """Raises the given errors from init, in order, then starts; counts shutdowns."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.inits: list[dict[str, Any]] = []
        self.shutdowns = 0

    def init(self, **options: Any) -> None:
        self.inits.append(options)
        if self.errors:
            raise self.errors.pop(0)

    def shutdown(self) -> None:
        self.shutdowns += 1


def test_the_two_startup_timeouts_ray_raises_are_recognised() -> None:
    assert is_startup_timeout(RuntimeError("Timed out waiting for file /tmp/ray/session_x/gcs_server_port_1"))
    assert is_startup_timeout(Exception("The current node timed out during startup. This could happen"))
    assert not is_startup_timeout(ValueError("num_cpus must be positive"))


def test_a_gcs_timeout_is_tried_again_after_a_shutdown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ray_start.GCS_WAIT_VARIABLE, raising=False)
    ray = FlakyRay(RuntimeError("Timed out waiting for file /tmp/ray/s/gcs_server_port_9"))
    start_local_ray(ray, 3, log_to_driver=False)
    assert len(ray.inits) == 2 and ray.shutdowns == 1
    assert ray.inits[-1] == {"num_cpus": 3, "include_dashboard": False, "_node_ip_address": "127.0.0.1",
                             "runtime_env": ray_runtime_env(), "log_to_driver": False}
    assert os.environ[ray_start.GCS_WAIT_VARIABLE] == "120"


def test_the_users_own_gcs_wait_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ray_start.GCS_WAIT_VARIABLE, "45")
    start_local_ray(FlakyRay(), 2)
    assert os.environ[ray_start.GCS_WAIT_VARIABLE] == "45"


def test_other_failures_and_the_last_timeout_are_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ray_start.GCS_WAIT_VARIABLE, "120")
    bad = FlakyRay(ValueError("num_cpus must be positive"))
    with pytest.raises(ValueError):
        start_local_ray(bad, 2)
    assert len(bad.inits) == 1 and bad.shutdowns == 1
    slow = FlakyRay(*(Exception("The current node timed out during startup.") for _ in range(2)))
    with pytest.raises(Exception, match="timed out during startup"):
        start_local_ray(slow, 2, attempts=2)
    assert len(slow.inits) == 2
