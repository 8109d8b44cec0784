"""A real PostgreSQL server for the state-database tests: the cluster scripts/test.sh started (its URL in
$FACTDEBATE_TEST_POSTGRES), or one these fixtures start with scripts/postgres-for-tests.sh. Each test gets
a database of its own."""

from __future__ import annotations

import os
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.paths import ROOT

ROOT = ROOT
SCRIPT = ROOT / "scripts" / "postgres-for-tests.sh"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    pytest.importorskip("psycopg", reason="the postgres extra is not installed (pip install 'factdebate[postgres]')")
    url = os.environ.get("FACTDEBATE_TEST_POSTGRES")
    if url:
        yield url
        return
    folder = tempfile.mktemp(prefix="factdebate-pg-", dir="/tmp")  # a name only: the script creates it
    started = subprocess.run([str(SCRIPT), "start", folder], capture_output=True, text=True, check=False)
    if started.returncode != 0:
        pytest.skip(f"no PostgreSQL server for the state-database tests: {started.stderr.strip()[-300:]} "
                    "(scripts/test.sh starts one; scripts/ci-system-deps.sh installs Debian's postgresql)")
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run([str(SCRIPT), "stop", folder], check=False)


def with_database(url: str, name: str) -> str:
    """The same server and options, another database (urlunsplit would drop the empty host's ``//``)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/{name}" + (f"?{parts.query}" if parts.query else "")


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A URL to a new, empty database on the test server."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = with_database(postgres_server, name)
    assert url.startswith("postgresql://"), url
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def state_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the service keeps its shared state: a SQLite file (one machine) or a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "service.sqlite")
    return str(request.getfixturevalue("postgres_url"))
