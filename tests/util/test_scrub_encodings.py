"""util/scrub.py on a secret written the way programs write it: URL-encoded, ``+`` for a space, hex, base64 in
both alphabets, padded or not, alone or at each of the three byte alignments inside a longer payload, and short
(a key echoed as ``Op3r%2Ft0r%2BKey%3DSecret2026`` reached callers, as did an ``sk-`` key in hex). Every strength
scrubs them; ordinary prose, this service's hex ids and public URLs stay as they were."""

from __future__ import annotations

import base64
import importlib
import json

import pytest

from factdebate.server.scrub_responses import scrub_json_text
from factdebate.util.scrub import (
    MASK,
    remember_endpoints,
    remember_secrets,
    scrub,
    scrub_known,
    scrub_secrets,
)
from tests.server.secret_forms import gives_away, written

SK_KEY = "sk-upstream-Qx81Zw27Lm55Rt09"
CHECKER_KEY = "Op3r/t0r+Key=Secret2026"
SHORT_KEY = "Kq7/x+2=pw"  # base64 of it is 16 characters: no long-token rule sees that
SPACED = "open sesame 42 now"  # a pass phrase: URL-encoded with "+" for its spaces
HOST = "gw-node-3.corp.internal:8443"
held_values = importlib.import_module("factdebate.util.scrub.held")  # the module: the package names its function


@pytest.fixture(autouse=True)
def held() -> None:
    remember_secrets([SK_KEY, CHECKER_KEY, SHORT_KEY, SPACED])
    remember_endpoints([f"https://{HOST}/v1"])


@pytest.mark.parametrize("secret", [SK_KEY, CHECKER_KEY, SHORT_KEY, SPACED])
def test_every_strength_scrubs_every_form_of_a_held_secret(secret: str) -> None:
    for name, form in written(secret).items():
        text = f"the gateway said: {form} (see above)"
        for strength in (scrub, scrub_known, scrub_secrets):
            shown = strength(text)
            assert gives_away(secret, shown) is None, (strength.__name__, name, shown)
            assert MASK in shown and shown.startswith("the gateway said: ")


def test_a_held_host_goes_in_every_form_from_what_a_caller_may_see() -> None:
    for name, form in written(HOST).items():
        text = f"reach it at {form} today"
        for strength in (scrub, scrub_known):
            shown = strength(text)
            assert gives_away(HOST, shown) is None and "gw-node-3" not in shown, (strength.__name__, name, shown)


def test_an_encoded_secret_in_a_json_body_goes_too() -> None:
    body = ('{"claim": "x", "evidence": [{"text": "token=' + written(CHECKER_KEY)["url"] + '"}], '
            '"detail": "sent ' + written(SK_KEY)["base64 at offset 1"] + '"}')
    shown = scrub_json_text(body)
    assert gives_away(CHECKER_KEY, shown) is None and gives_away(SK_KEY, shown) is None, shown


def test_ordinary_prose_ids_and_public_urls_are_not_touched() -> None:
    """What follows "Basic" or "bearer" in prose is no credential; hex ids, base64 of something else and public
    URLs carry nothing held."""
    prose = ("Basic principles of production systems: the bearer of bad news, a ring bearer ceremony, Basic "
             "Research in 2024. Check 3f2a9c0d1e4b5a6c7d8e9f0011223344 is kept; see "
             "https://en.wikipedia.org/wiki/Paris?q=caf%C3%A9+au+lait and "
             + base64.b64encode(b"an unrelated payload, nothing secret").decode() + " as sent.")
    for strength in (scrub, scrub_known, scrub_secrets):
        if strength is scrub:
            continue  # error text loses every URL by design
        assert strength(prose) == prose, strength.__name__
    assert scrub_known("Authorization: Basic " + base64.b64encode(b"ops:hunter22").decode()) == \
        "Authorization: Basic ***"
    assert scrub_known("Authorization: Bearer abc.def-123") == "Authorization: Bearer ***"


@pytest.mark.parametrize("secret", [SK_KEY, CHECKER_KEY, SHORT_KEY, SPACED])
def test_a_secret_reversed_or_in_either_case_goes_at_every_strength(secret: str) -> None:
    for form in (secret[::-1], secret.upper(), secret.lower()):
        for strength in (scrub, scrub_known, scrub_secrets, scrub_json_text):
            shown = strength(f'{{"content": "it is {form} backwards"}}')
            assert form not in shown and shown == '{"content": "it is *** backwards"}', (strength.__name__, shown)


def test_a_half_of_a_held_key_stays_where_ordinary_text_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The halves of the values a process holds turn up in ordinary text (a test key's hex in a digest, a
    folder's path in an error): a half alone stays, and a pass phrase's halves are words that prose writes."""
    monkeypatch.setattr(held_values, "_held", held_values.held())  # the values below are held for this test only
    key = "sk-test-0123456789abcdef0123456789abcdef"
    remember_secrets([key, "correct horse battery staple"])
    prose = "sha256:0123456789abcdef, a correct horse and a battery staple"
    for strength in (scrub_known, scrub_secrets):
        assert strength(prose) == prose, strength.__name__
    assert scrub_known(f"the {key} and the correct horse battery staple") == "the *** and the ***"
    half = CHECKER_KEY[len(CHECKER_KEY) // 2:]
    alone = f'{{"content": "ticket {half} is closed"}}'
    for strength in (scrub, scrub_known, scrub_secrets, scrub_json_text):
        assert strength(alone) == alone, strength.__name__


@pytest.mark.parametrize("secret", [SK_KEY, CHECKER_KEY])
def test_a_key_in_two_halves_with_text_between_goes_at_every_strength(secret: str) -> None:
    """A model told to write the key in two parts: both halves go where one text holds both, in either order,
    in either case, apart from the key written whole, and in a JSON body."""
    half = len(secret) // 2
    first, second = secret[:half], secret[half:]
    cases = {f"first {first}, a word or two,\nthen {second}.": "first ***, a word or two,\nthen ***.",
             f"the end {second} before the start {first}": "the end *** before the start ***",
             f"LOUD {first.upper()} and {second.upper()}": "LOUD *** and ***",
             f"quiet {first.lower()} and {second.lower()}": "quiet *** and ***",
             f"whole {secret} then the end again {second}": "whole *** then the end again ***"}
    for text, shown in cases.items():
        for strength in (scrub, scrub_known, scrub_secrets, scrub_json_text):
            assert strength(text) == shown, (strength.__name__, text, strength(text))
    body = json.dumps({"content": f"part one {first}", "then": f"part two {second}"})
    assert scrub_json_text(body) == '{"content": "part one ***", "then": "part two ***"}'
