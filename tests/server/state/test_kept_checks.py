"""Finished checks kept by the service (``GET /v1/checks/{id}``): each finished verify or check-response,
plain or streamed, is stored for the key that asked and answered by its id; another key's id reads as an
unknown one; ids are validated; the operator's count and age limits hold."""

from __future__ import annotations

from fastapi.testclient import TestClient

from factdebate.server.state.check_store import CheckStore
from factdebate.server.state.db import open_state_db
from tests.server.conftest import AUTH, KEY, AppFactory, parse_sse

OTHER_KEY = "other-key-0123456789"
OTHER = {"Authorization": f"Bearer {OTHER_KEY}"}


def test_a_verdict_is_kept_for_its_key_only(make_app: AppFactory) -> None:
    with TestClient(make_app(api_keys=[KEY, OTHER_KEY], rate_limit_per_minute=0)) as client:
        answer = client.post("/v1/verify", json={"claim": "The sky is blue.", "rounds": 1}, headers=AUTH)
        check_id = answer.headers["X-Check-Id"]
        kept = client.get(f"/v1/checks/{check_id}", headers=AUTH)
        assert kept.status_code == 200
        body = kept.json()
        assert body["id"] == check_id and body["kind"] == "claim"
        assert body["verdict"] == answer.json()
        # Another key gets the answer an unknown id gets, word for word.
        theirs = client.get(f"/v1/checks/{check_id}", headers=OTHER)
        unknown = client.get(f"/v1/checks/{'0' * 32}", headers=OTHER)
        assert theirs.status_code == unknown.status_code == 404
        assert theirs.json()["detail"].replace(check_id, "ID") == unknown.json()["detail"].replace("0" * 32, "ID")
        assert client.get(f"/v1/checks/{check_id}").status_code == 401  # no key at all


def test_a_streamed_check_says_its_id_before_the_result(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=0)) as client:
        with client.stream("POST", "/v1/verify/stream", json={"claim": "The sky is blue."}, headers=AUTH) as r:
            events = parse_sse("".join(r.iter_text()))
        names = [name for name, _ in events]
        assert names[-2:] == ["check_saved", "result"], names[-3:]
        check_id = events[-2][1]["id"]
        assert client.get(f"/v1/checks/{check_id}", headers=AUTH).json()["verdict"] == events[-1][1]

        with client.stream("POST", "/v1/check-response/stream", headers=AUTH,
                           json={"response": "The sky is blue. Water is wet."}) as r:
            events = parse_sse("".join(r.iter_text()))
        assert [name for name, _ in events][-2:] == ["check_saved", "result"]
        kept = client.get(f"/v1/checks/{events[-2][1]['id']}", headers=AUTH).json()
        assert kept["kind"] == "response" and kept["verdict"]["response"] == "The sky is blue. Water is wet."

        plain = client.post("/v1/check-response", json={"response": "The sky is blue."}, headers=AUTH)
        assert client.get(f"/v1/checks/{plain.headers['X-Check-Id']}", headers=AUTH).json()["kind"] == "response"


def test_check_ids_are_validated(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=0)) as client:
        for bad in ("abc", "0" * 31 + "G", "A" * 32, "0" * 33, "x" * 500):
            answer = client.get(f"/v1/checks/{bad}", headers=AUTH)
            assert answer.status_code == 422, bad
            assert answer.json()["detail"] == "a check id is 32 lower-case hex digits"


def test_the_operator_can_keep_none(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=0, kept_checks_per_key=0)) as client:
        answer = client.post("/v1/verify", json={"claim": "The sky is blue."}, headers=AUTH)
        assert answer.status_code == 200 and "X-Check-Id" not in answer.headers


def test_the_oldest_checks_of_a_key_go_first_and_old_ones_expire(state_target: str) -> None:
    store = CheckStore(open_state_db(state_target), per_key=2, max_age_seconds=100)
    first = store.save("a", "claim", {"n": 1}, now=1000)
    second = store.save("a", "claim", {"n": 2}, now=1001)
    others = store.save("b", "claim", {"n": 0}, now=1001)
    third = store.save("a", "claim", {"n": 3}, now=1002)
    assert first and second and third and others
    assert store.get(first, "a", now=1003) is None  # trimmed: a keeps its newest two
    kept = [store.get(i, "a", now=1003) for i in (second, third)]
    assert [k.verdict["n"] if k else None for k in kept] == [2, 3]
    assert store.get(others, "b", now=1003) is not None  # one key's checks never push out another's
    assert store.get(third, "b", now=1003) is None
    assert store.get(third, "a", now=1103) is None  # older than the age limit: gone even before a write
    store.save("a", "claim", {"n": 4}, now=1200)  # a write deletes every expired row
    assert store.count("a") == 1 and store.count("b") == 0
    store.db.close()


def test_checks_saved_in_the_same_instant_are_trimmed_by_id_and_their_calls_go_with_them(state_target: str) -> None:
    store = CheckStore(open_state_db(state_target), per_key=2, max_age_seconds=100)
    ids = [store.save("a", "claim", {"n": n}, now=1000, calls=[{"n": n}]) for n in range(5)]
    assert all(ids) and store.count("a") == 2
    kept = {i for i in ids if store.get(i or "", "a", now=1000) is not None}
    assert kept == set(sorted(i for i in ids if i)[-2:])  # the two largest ids of the same time stay
    orphans = store.db.read(lambda db: db.execute(
        "SELECT COUNT(*) FROM check_calls WHERE id NOT IN (SELECT id FROM checks)").fetchone()[0])
    assert orphans == 0
    store.db.close()


def test_a_page_on_an_allowed_origin_can_read_the_id(make_app: AppFactory) -> None:
    with TestClient(make_app(rate_limit_per_minute=0, cors_origins=["https://chat.example"])) as client:
        answer = client.post("/v1/verify", json={"claim": "The sky is blue."},
                             headers={**AUTH, "Origin": "https://chat.example"})
    assert "x-check-id" in answer.headers["access-control-expose-headers"].lower()
    assert len(answer.headers["X-Check-Id"]) == 32


def test_without_keys_every_caller_of_the_server_reads_its_checks(make_app: AppFactory) -> None:
    with TestClient(make_app(api_keys=[], allow_anonymous=True, rate_limit_per_minute=0)) as client:
        answer = client.post("/v1/verify", json={"claim": "The sky is blue."})
        kept = client.get(f"/v1/checks/{answer.headers['X-Check-Id']}")  # no key: --no-auth
    assert kept.status_code == 200 and kept.json()["verdict"]["claim"] == "The sky is blue."
