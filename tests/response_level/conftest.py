"""The service fixtures, shared with tests/server."""

from tests.server.conftest import make_app  # noqa: F401
