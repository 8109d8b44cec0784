"""A client of one of the operator's servers (util/http_client.py's ``Client.operators``) remembers the server's
address and key as it is made, so no caller reads them in any text; the service's settings are remembered with
the secrets their dump shows masked; one redaction takes a text or a JSON-like value."""

from __future__ import annotations

from factdebate.util.http_client import Client
from factdebate.util.scrub import MASK, held, redact_text, redact_value, remember_settings, scrub

KEY = "upk-operator-Qv71Zt93Hs"
HOST = "gw-node-7.corp.internal"


def test_a_client_of_the_operator_remembers_its_address_and_key() -> None:
    client = Client.operators(f"https://{HOST}:8443/v1", KEY, 5.0, {"Accept": "application/json"})
    assert client.headers["Authorization"] == f"Bearer {KEY}"
    assert client.headers["Accept"] == "application/json"
    secrets, hosts = held()
    assert KEY in secrets and HOST in hosts
    shown = scrub(f"401 from {HOST}:8443: Incorrect API key provided: {KEY}")
    assert KEY not in shown and HOST not in shown and MASK in shown


def test_a_client_without_a_key_sends_no_authorization() -> None:
    client = Client.operators("http://127.0.0.1:18091/v1", None, 5.0)
    assert "Authorization" not in client.headers


def test_settings_are_remembered_with_the_secrets_their_dump_masks() -> None:
    remember_settings({"api_keys": ["**********"]}, secrets=["svc-key-Lk28Pq64Wd"])
    assert "svc-key-Lk28Pq64Wd" in held()[0]


def test_a_text_is_redacted_as_each_string_of_a_value() -> None:
    text = "connecting to https://user:pw-Rt55@db.example:5432/x"
    assert redact_value(text) == redact_text(text)
    assert redact_value({"url": text, "n": 1}) == {"url": redact_text(text), "n": 1}
