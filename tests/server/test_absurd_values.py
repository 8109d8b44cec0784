"""Values of the right JSON type but absurd: numbers that read as infinite, integers past
64 bits, lone surrogates. Each was a 500; each is now a 422 naming the field, or an answer."""

from __future__ import annotations

import math

import pytest
from fastapi.testclient import TestClient

from factdebate.core.schema import upgrade
from factdebate.util.errors import InputError
from tests.server.conftest import AUTH, AppFactory

JSON = {**AUTH, "Content-Type": "application/json"}


@pytest.mark.parametrize(("record", "said"), [
    ('{"claim": "c", "method": "cot", "schema_version": 1e400}', "a number JSON cannot hold at schema_version"),
    ('{"claim": "c", "method": "cot", "schema_version": -1e400}', "a number JSON cannot hold at schema_version"),
    ('{"claim": "c", "schema_version": 2, "rounds": [{"turns": [{"score": 1e999}]}]}',
     "a number JSON cannot hold at rounds[0].turns[0].score"),
    ('{"claim": "c \\ud800", "method": "cot"}', "text that is not valid Unicode at claim (a lone surrogate U+D800)"),
    ('{"claim": "c", "schema_version": 2, "\\udc80": 1}', "a field name that is not valid Unicode"),
])
def test_an_unencodable_record_is_a_422_on_upgrade(make_app: AppFactory, record: str, said: str) -> None:
    """``schema_version: 1e400`` reads as infinity: int() of it raised OverflowError, and a current record
    holding it (or a lone surrogate) was echoed into a reply that could not be encoded: both were 500s."""
    with TestClient(make_app(), raise_server_exceptions=False) as client:
        answer = client.post("/v1/verdicts/upgrade", content='{"records": [{"claim": "fine"}, ' + record + "]}",
                             headers=JSON)
    assert answer.status_code == 422, answer.text
    detail = answer.json()["detail"]
    assert detail.startswith("records.1: the record is not a verdict factdebate wrote: it holds "), detail
    assert said in detail, detail


def test_a_nan_in_a_record_is_refused_by_the_upgrade_itself() -> None:
    """The service refuses a ``NaN`` literal with the body (strict JSON); ``compare`` and ``report`` read
    results files with Python's reader, which takes it, so the upgrade refuses it too."""
    with pytest.raises(InputError, match=r"a number JSON cannot hold at rounds\[0\]\.score \(NaN\)"):
        upgrade({"claim": "c", "method": "cot", "rounds": [{"score": math.nan}]})


@pytest.mark.parametrize("version", ["1e308", "9" * 4000, "-5", "1.5"])
def test_a_finite_absurd_version_is_answered_as_it_reads(make_app: AppFactory, version: str) -> None:
    """A finite number, however large, is a version: at or above the current one the record comes back as
    it is, below it the record is upgraded; never a 500."""
    record = '{"claim": "c", "method": "cot", "schema_version": ' + version + "}"
    with TestClient(make_app(), raise_server_exceptions=False) as client:
        answer = client.post("/v1/verdicts/upgrade", headers=JSON, content='{"records": [' + record + "]}")
    assert answer.status_code == 200, answer.text
    assert answer.json()["records"][0]["claim"] == "c"


def test_a_batch_offset_past_64_bits_is_a_422(make_app: AppFactory) -> None:
    """``GET /v1/batches/{id}?offset=2**63`` reached SQLite, which cannot hold it (OverflowError: a 500)."""
    with TestClient(make_app(), raise_server_exceptions=False) as client:
        made = client.post("/v1/batches", content='{"claim": "Paris is in France."}\n', headers=AUTH)
        assert made.status_code in (200, 202), made.text
        batch = made.json()["id"]
        huge = client.get(f"/v1/batches/{batch}?offset={2 ** 63}", headers=AUTH)
        last = client.get(f"/v1/batches/{batch}?offset=10000000", headers=AUTH)
    assert huge.status_code == 422 and "offset" in huge.text, huge.text
    assert last.status_code == 200 and last.json()["results"] == [], last.text
