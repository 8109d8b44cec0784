"""Callers search only the corpora the operator offers them: the built-in one and the
configured default, ``allowed_corpora`` for every key, ``key_corpora`` for one. Any other name is a 422 on
every face that takes a corpus, the same whether the corpus exists or not, naming none of the hidden ones."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from factdebate.server.config import ServiceConfig
from factdebate.server.security import key_id
from tests.server.conftest import AUTH, KEY, AppFactory

OTHER_KEY = "other-tenant-key-987654321"
OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}
CLAIM = "Paris is in France."


def _faces(client: TestClient, corpus: str, headers: dict[str, str]) -> dict[str, tuple[int, str]]:
    """Each face's status and text for a request naming ``corpus``."""
    replies = {
        "verify": client.post("/v1/verify", json={"claim": CLAIM, "corpus": corpus}, headers=headers),
        "stream": client.post("/v1/verify/stream", json={"claim": CLAIM, "corpus": corpus}, headers=headers),
        "batch": client.post("/v1/batches", params={"corpus": corpus}, content=json.dumps(CLAIM), headers=headers),
        "response": client.post("/v1/check-response", json={"response": CLAIM, "method": "single",
                                                             "corpus": corpus}, headers=headers),
        "response-stream": client.post("/v1/check-response/stream", json={"response": CLAIM, "method": "single",
                                                                           "corpus": corpus}, headers=headers)}
    return {face: (reply.status_code, reply.text) for face, reply in replies.items()}


def test_a_key_searches_only_the_corpora_offered_to_it(make_app: AppFactory) -> None:
    app = make_app(api_keys=[KEY, OTHER_KEY], rate_limit_per_minute=0, allowed_corpora=["shared-docs"],
                   key_corpora={key_id(OTHER_KEY): ["tenant-b-docs"]})
    with TestClient(app) as client:
        refused = {corpus: _faces(client, corpus, AUTH) for corpus in ("tenant-b-docs", "no-such-corpus")}
        offered = {corpus: _faces(client, corpus, AUTH) for corpus in ("builtin", "shared-docs")}
        own = _faces(client, "tenant-b-docs", OTHER)
    for corpus, faces in refused.items():
        for face, (status, text) in faces.items():
            assert status == 422, (corpus, face, text)
            assert f"corpus '{corpus}' is not offered" in text and "offered: builtin, shared-docs" in text
            assert "tenant-b-docs" not in text.replace(f"'{corpus}'", ""), "the refusal named a hidden corpus"
    # The same answer whether the corpus exists for someone else or not at all.
    assert refused["tenant-b-docs"]["verify"][1].replace("tenant-b-docs", "X") == \
        refused["no-such-corpus"]["verify"][1].replace("no-such-corpus", "X")
    for faces in (*offered.values(), own):
        for face, (status, text) in faces.items():
            assert status in (200, 202), (face, text)


def test_corpus_entries_are_checked() -> None:
    assert ServiceConfig(allowed_corpora=["*"]).allowed_corpora == ["*"]
    with pytest.raises(ValueError, match="corpus name"):
        ServiceConfig(allowed_corpora=["../etc"])
    with pytest.raises(ValueError, match="not a key id") as info:
        ServiceConfig(key_corpora={KEY: ["docs"]})
    assert KEY not in str(info.value)  # a key put there by mistake is not echoed into a log
