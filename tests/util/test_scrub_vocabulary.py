"""One vocabulary (util/scrub/vocabulary.py): every face that scrubs or redacts recognises the same keys by their
shape, and every face that reads a name recognises the same secret names."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from factdebate.server.log_redaction import RedactingFilter
from factdebate.server.scrub_responses import scrub_json_text, scrub_value
from factdebate.util.scrub import (
    MASK,
    ScrubWindow,
    hide_endpoints,
    redact_args,
    redact_settings,
    redact_text,
    redact_url,
    redact_value,
    remember_environment,
    request_secrets,
    scrub,
    scrub_known,
    scrub_secrets,
)
from factdebate.util.scrub.vocabulary import KEY_PREFIXES

KEYS = [f"{prefix}Ab3dE6gH9jK2" for prefix in KEY_PREFIXES] + ["Bearer Zq81mWx0Lp", "Basic dXNlcjpwYXNzd29yZA=="]


def _window(text: str) -> str:
    window = ScrubWindow()
    return "".join(window.feed(c) for c in text) + window.flush()


def _logged(text: str) -> str:
    record = logging.LogRecord("factdebate", logging.ERROR, __file__, 1, "%s", (text,), None)
    RedactingFilter().filter(record)
    return record.getMessage()


FACES: dict[str, Callable[[str], str]] = {
    "scrub": scrub,
    "scrub_known": scrub_known,
    "scrub_secrets": scrub_secrets,
    "hide_endpoints": hide_endpoints,
    "scrub_json_text": lambda t: scrub_json_text(f'{{"text": "{t}"}}'),
    "scrub_value": lambda t: str(scrub_value({"answer": t})),
    "window": _window,
    "redact_text": redact_text,
    "redact_value": lambda t: str(redact_value({"event": [t]})),
    "redact_settings": lambda t: str(redact_settings({"note": t})),
    "log": _logged,
}


@pytest.mark.parametrize("face", sorted(FACES))
@pytest.mark.parametrize("key", KEYS)
def test_every_face_masks_every_key_shape(face: str, key: str) -> None:
    secret = key.split(" ")[-1]
    shown = FACES[face](f"upstream said: invalid credential {key} for this request")
    assert secret not in shown and MASK in shown, shown


@pytest.mark.parametrize("prefix", KEY_PREFIXES)
def test_a_key_shaped_argument_is_masked_whole(prefix: str) -> None:
    assert redact_args(["--verbose", f"{prefix}Ab3dE6gH9jK2"]) == ["--verbose", MASK]


@pytest.mark.parametrize("name", ["api_key", "token", "password", "session", "authorization", "client_secret", "sig"])
def test_every_face_that_reads_names_knows_the_same_secret_names(name: str) -> None:
    value = "Vq7-value-55aa66bb"
    assert value not in redact_url(f"https://search.example.com/q?{name}={value}&q=tower")
    assert redact_args([f"--{name}={value}"]) == [f"--{name}={MASK}"]
    assert redact_args([f"--{name}", value]) == [f"--{name}", MASK]
    assert request_secrets({name: value}) == [value]
    remember_environment({f"SEARCH_{name.upper().replace('-', '_')}": value})
    assert scrub_known(f"echoed {value}") == f"echoed {MASK}"


@pytest.mark.parametrize("name", ["author", "authors", "q", "page", "lang"])
def test_names_that_hold_no_secret_are_kept(name: str) -> None:
    url = f"https://search.example.com/q?{name}=Marie+Curie"
    assert redact_url(url) == url
    assert request_secrets({name: "Marie Curie"}) == []
