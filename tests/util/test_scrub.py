"""The one scrub (util/scrub.py): a secret the process holds goes by value whatever surrounds it; key-shaped
tokens and addresses go from error text; a verdict keeps its sources' public URLs."""

from __future__ import annotations

import json

import pytest

from factdebate.server.scrub_responses import scrub_json_text, scrub_value
from factdebate.util.scrub import (
    HOST_WORDS,
    MASK,
    remember_endpoints,
    remember_environment,
    remember_settings,
    scrub,
    scrub_known,
    scrub_secrets,
)

CHECKER_KEY = "chk-operator-Zx81Qw27Lm"  # not shaped like any provider's key: only its value tells it


def test_a_held_key_goes_by_value_whatever_surrounds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_CHECKER_API_KEY", CHECKER_KEY)
    remember_environment()  # as loading settings does
    for text in (f"Incorrect API key provided: {CHECKER_KEY}.", f"key={CHECKER_KEY}&x=1", f"'{CHECKER_KEY}'",
                 f"prefix{CHECKER_KEY}"):
        for scrubbed in (scrub(text), scrub_known(text), scrub_secrets(text)):
            assert CHECKER_KEY not in scrubbed and MASK in scrubbed, scrubbed
    # a list of keys in one variable: each of them
    monkeypatch.setenv("FACTDEBATE_API_KEYS", "first-key-aaaa1111,second-key-bbbb2222")
    remember_environment()
    assert scrub_known("sent second-key-bbbb2222 and first-key-aaaa1111") == "sent *** and ***"


def test_the_shells_directory_and_named_variables_are_no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PWD", "/home/operator/project")
    monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM_KEY_ENV", "MY_UPSTREAM_SECRET")
    remember_environment()
    text = "in /home/operator/project, set MY_UPSTREAM_SECRET"
    assert scrub_known(text) == text and scrub_secrets(text) == text


def test_settings_give_their_mcp_env_values_passwords_and_endpoints() -> None:
    remember_settings({"mcp_servers": {"wiki": {"command": "wiki-mcp", "args": ["--token", "tok-arg-55667788"],
                                                "env": {"WIKI_ACCESS": "env-value-99aa88bb"}}},
                       "state_db": "postgresql://svc:pg-pass-7733@db7.corp.internal:5432/state",
                       "key_corpora": {"key-0123456789": ["public-corpus-name"]}})
    text = ("wiki said env-value-99aa88bb, tok-arg-55667788; db pg-pass-7733 at db7.corp.internal:5432 "
            "for public-corpus-name")
    assert scrub_known(text) == f"wiki said ***, ***; db *** at {HOST_WORDS} for public-corpus-name"


def test_error_text_loses_every_address_and_key_shape() -> None:
    message = ("Incorrect API key provided: sk-proj-AbCdEf1234567890XyZ. You can find your key at "
               "gw-node-3.corp.internal:8443 (10.20.30.40, [fd00::7]:81, fd00::8) or https://admin:pw@gw.example.com/x"
               ", or ask gw-node-4:8443 and ollama:11434.")
    shown = scrub(message)
    for leaked in ("AbCdEf", "gw-node-3", "8443", "10.20.30.40", "fd00", "admin", "gw.example.com", "gw-node-4",
                   "ollama", "11434"):
        assert leaked not in shown, (leaked, shown)
    assert shown.startswith("Incorrect API key provided: ***. You can find your key at the operator's host")


def test_ordinary_words_and_public_sources_stay() -> None:
    ordinary = ("model gpt-4o-mini has no 3.5 variant at temperature 0.7, at 12:30:45 on 2024-05-01; "
                "rounds[0].turns[12].score is out of range; rounds:3, max_tokens:256, x:80.5, PMID:10, "
                "sha256:0123456789abcdef, 2024-05-01T12:30:45")
    assert scrub(ordinary) == ordinary
    verdict = '{"source": "https://en.wikipedia.org/wiki/Paris", "text": "127.0.0.1 is loopback"}'
    assert scrub_known(verdict) == verdict


def test_a_configured_endpoint_goes_from_everything_with_its_port() -> None:
    remember_endpoints(["http://checker.lab:18081/v1", "http://127.0.0.1:18082/v1"])
    assert scrub_known("asked checker.lab:18081 and 127.0.0.1:18082") == f"asked {HOST_WORDS} and {HOST_WORDS}"


def test_a_held_host_named_with_another_port_goes_with_that_port() -> None:
    """The host held from one endpoint, named in an error with another of its ports (a gRPC library's "last
    error: ipv4:10.0.0.5:19530"): the port went on to the caller, only the host was replaced. Seen when an earlier
    test of the same process had remembered http://10.0.0.5:8000 (tests/server/ops/test_warm_up.py)."""
    remember_endpoints(["http://10.0.0.5:8000/v1", "http://vector-db.lan:9091"])
    error = "last error: ipv4:10.0.0.5:19530: Connection refused; vector-db.lan:19530 down"
    for shown in (scrub(error), scrub_known(error)):
        assert "19530" not in shown and "10.0.0.5" not in shown and "vector-db" not in shown, shown
    assert scrub_known("10.0.0.5 and 10.0.0.5:80x") == f"{HOST_WORDS} and {HOST_WORDS}:80x"  # no port: the host alone


def test_json_text_scrubs_error_fields_strongly_and_the_rest_by_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", CHECKER_KEY)
    remember_environment()
    body = json.dumps({"detail": f"could not reach https://gw.example.com/v1: key {CHECKER_KEY} at 10.0.0.5:80",
                       "evidence": [{"source": "https://example.org/paris"}], "claim": f"a {CHECKER_KEY} b",
                       "error": {"message": "ask ops-box.example.net:9000"}})
    shown = json.loads(scrub_json_text(body))
    assert shown["detail"] == "could not reach the operator's endpoint: key *** at the operator's host"
    assert shown["evidence"][0]["source"] == "https://example.org/paris" and shown["claim"] == "a *** b"
    assert shown["error"]["message"] == "ask the operator's host"
    assert scrub_value({"warnings": ["at 10.0.0.5:80"], "text": "see https://example.org"}) == {
        "warnings": ["at the operator's host"], "text": "see https://example.org"}


def test_a_configured_host_that_is_a_word_leaves_the_words_alone() -> None:
    """A checker at http://a/v1 (a test's, or a compose service named "model") is remembered as an endpoint; error
    text keeps the word "a" and "model" (it read "Input should be the operator's host valid integer" in the whole
    suite, where an earlier test on the same worker had loaded such a URL), and still loses its host:port."""
    remember_endpoints(["http://a/v1", "http://model:8000/v1"])
    assert scrub("rounds: Input should be a valid integer; the model failed") == \
        "rounds: Input should be a valid integer; the model failed"
    assert "8000" not in scrub("could not reach model:8000")


def test_a_bearer_placeholder_in_documentation_stays_whole() -> None:
    """The API reference says "`Authorization: Bearer <key>`": the placeholder is no credential, and masking it took
    the closing backtick with it, so the reference page printed stray backticks; a real token still goes."""
    documented = "Every `/v1` route needs `Authorization: Bearer <key>`. Then `result` or `error`."
    assert scrub_known(documented) == documented
    assert scrub_known("Authorization: Bearer tok9.abc-def") == "Authorization: Bearer ***"
