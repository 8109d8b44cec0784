"""Loading a Milvus Lite collection survives the sidecar race seen under load, and nothing else is hidden."""

from __future__ import annotations

import pytest

from factdebate.corpus import milvus as rag


class FlakyClient:
    def __init__(self, errors: list[Exception]) -> None:
        self.errors = errors
        self.calls = 0

    def load_collection(self, collection: str) -> None:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)


def test_a_transient_sidecar_error_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rag.time, "sleep", lambda _s: None)
    client = FlakyClient([ValueError("Cannot load file containing pickled data when allow_pickle=False")])
    rag.load_collection(client, "c")
    assert client.calls == 2


def test_other_errors_are_raised_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rag.time, "sleep", lambda _s: None)
    client = FlakyClient([RuntimeError("collection not found")])
    with pytest.raises(RuntimeError, match="not found"):
        rag.load_collection(client, "c")
    assert client.calls == 1


def test_a_persistent_transient_error_is_raised_after_the_last_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rag.time, "sleep", lambda _s: None)
    client = FlakyClient([ValueError("No data left in file")] * 5)
    with pytest.raises(ValueError, match="No data left"):
        rag.load_collection(client, "c", attempts=5)
    assert client.calls == 5


def test_a_lite_failure_with_loopback_down_blames_the_network_not_the_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """With loopback down (a network namespace without `lo`), the message said to delete a healthy
    index. Loopback is checked for real: a socket to 127.0.0.1 works here, and the usual advice stays."""
    from factdebate.core.errors import IndexError_

    assert rag.loopback_works()  # the suite brings `lo` up
    with pytest.raises(IndexError_, match="delete the folder"), rag.milvus_errors("/x/milvus.db", "opening"):
        raise ConnectionError("Fail connecting to server on 127.0.0.1:33169")
    monkeypatch.setattr(rag, "loopback_works", lambda: False)
    with pytest.raises(IndexError_, match=r"loopback network \(127.0.0.1\), which is down") as caught, \
            rag.milvus_errors("/x/milvus.db", "opening"):
        raise ConnectionError("Fail connecting to server on 127.0.0.1:33169")
    assert "delete" not in str(caught.value)
