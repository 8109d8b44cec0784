"""util/scrub/window.py: a text that arrives a few characters at a time is scrubbed as the reader reads it, over
a window that spans the pieces. A key, a host, a Bearer token, a pass phrase with spaces and the encoded forms of a
secret, cut anywhere, come out masked; what holds nothing secret comes out exactly as it went in; what is held
back stays bounded whatever comes."""

from __future__ import annotations

import base64

import pytest

from factdebate.util.scrub import remember_endpoints, remember_secrets, scrub_known
from factdebate.util.scrub.window import MOST_HELD, ScrubWindow, SeenHalves
from tests.server.secret_forms import gives_away, written

SK_KEY = "sk-upstream-Qx81Zw27Lm55Rt09"
CHECKER_KEY = "Op3r/t0r+Key=Secret2026"
PHRASE = "open sesame 42 now"
HOST = "gw-node-3.corp.internal:8443"


@pytest.fixture(autouse=True)
def held() -> None:
    remember_secrets([SK_KEY, CHECKER_KEY, PHRASE])
    remember_endpoints([f"https://{HOST}/v1"])


def streamed(text: str, size: int) -> str:
    window = ScrubWindow()
    out = [window.feed(text[i:i + size]) for i in range(0, len(text), size)]
    return "".join(out) + window.flush()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
def test_a_secret_cut_into_pieces_is_masked_as_it_is_whole(size: int) -> None:
    text = (f"My key is {SK_KEY} and my host is {HOST}. The checker's is {CHECKER_KEY}, or "
            f"{written(CHECKER_KEY)['url']} in a query, {written(SK_KEY)['hex']} in hex and "
            f"{written(CHECKER_KEY)['base64 at offset 2']} in a header. Authorization: Bearer abc.def-123 and "
            f"Basic {base64.b64encode(b'ops:hunter22').decode()}; the phrase is {PHRASE}.")
    shown = streamed(text, size)
    assert shown == scrub_known(text), shown  # as the whole text is scrubbed
    for secret in (SK_KEY, CHECKER_KEY, PHRASE, HOST):
        assert gives_away(secret, shown) is None, (secret, shown)
    assert "abc.def-123" not in shown and "b3BzOmh1bnRlcjIy" not in shown
    assert shown.startswith("My key is *** and my host is the operator's host.")


@pytest.mark.parametrize("size", [1, 4])
def test_text_with_nothing_secret_comes_out_as_it_went_in(size: int) -> None:
    prose = ("Basic principles of production: the bearer of bad news. Check 3f2a9c0d1e4b5a6c7d8e9f0011223344 "
             "at https://en.wikipedia.org/wiki/Paris, \u5df4\u9ece\u662f\u6cd5\u56fd\u7684\u9996\u90fd\u3002 "
             "Bearer bonds\nend")
    assert streamed(prose, size) == prose


def test_what_is_released_waits_only_for_the_word_in_progress() -> None:
    window = ScrubWindow()
    assert window.feed("Paris is the cap") == "Paris is the "
    assert window.feed("ital. Bearer ") == "capital. "  # the token after "Bearer " is masked only with it
    assert window.feed("t0k.") == ""
    assert window.feed("en rest") == "Bearer *** "
    assert window.flush() == "rest"
    # Text with no spaces at all (Chinese, say) goes out at once: a letter no token holds ends a run.
    assert ScrubWindow().feed("\u5df4\u9ece\u662f\u6cd5\u56fd") == "\u5df4\u9ece\u662f\u6cd5\u56fd"


def test_what_is_held_back_is_bounded_and_a_key_at_the_cut_is_still_masked() -> None:
    window = ScrubWindow()
    run = "x" * (3 * MOST_HELD) + SK_KEY + "y" * MOST_HELD
    out = []
    for i in range(0, len(run), 7):
        out.append(window.feed(run[i:i + 7]))
        assert len(window.held) <= MOST_HELD + 7
    shown = "".join(out) + window.flush()
    assert SK_KEY not in shown and "***" in shown and len(shown) >= len(run) - len(SK_KEY)


@pytest.mark.parametrize("size", [1, 3, 8, 200])
@pytest.mark.parametrize("secret", [SK_KEY, CHECKER_KEY])
def test_a_key_in_two_halves_with_text_between_is_masked_as_it_is_in_one_text(secret: str, size: int) -> None:
    """The first half comes pieces before the second: it waits in the window until the second shows it is one
    (an "sk-" first half is masked by its shape alone, and its second half must still be known)."""
    half = len(secret) // 2
    text = f"The key begins {secret[:half]}, then a word or two,\nand ends {secret[half:]}. Done."
    shown = streamed(text, size)
    assert shown == scrub_known(text) == "The key begins ***, then a word or two,\nand ends ***. Done.", shown


def test_a_half_alone_waits_for_its_other_half_and_leaves_as_it_came() -> None:
    half = CHECKER_KEY[len(CHECKER_KEY) // 2:]
    window = ScrubWindow()
    assert window.feed("Ticket ") == "Ticket "
    assert window.feed(half + " is") == ""
    assert window.feed(" closed. ") == ""  # the half and what follows it wait: its other half may come
    assert window.flush() == f"{half} is closed. "
    assert streamed(f"Ticket {half} is closed, nothing more.", 4) == f"Ticket {half} is closed, nothing more."


def test_a_half_further_back_than_the_bound_goes_out_and_its_other_half_is_still_masked() -> None:
    half = len(CHECKER_KEY) // 2
    window = ScrubWindow()
    text = f"begins {CHECKER_KEY[:half]} " + "word " * MOST_HELD + f"ends {CHECKER_KEY[half:]} done"
    out = []
    for i in range(0, len(text), 5):
        out.append(window.feed(text[i:i + 5]))
        assert len(window.held) <= MOST_HELD + 5
    shown = "".join(out) + window.flush()
    assert shown.startswith(f"begins {CHECKER_KEY[:half]} word") and shown.endswith("ends *** done"), shown[-40:]


def test_the_windows_of_one_answer_share_what_halves_they_saw() -> None:
    """The first half in the answer's reasoning, the second in its content: both masked."""
    half = len(CHECKER_KEY) // 2
    seen = SeenHalves()
    reasoning, content = ScrubWindow(seen=seen), ScrubWindow(seen=seen)
    first = reasoning.feed(f"I will write {CHECKER_KEY[:half]} ")
    second = content.feed(f"then {CHECKER_KEY[half:]} here. ")
    assert first + reasoning.flush() == "I will write *** "
    assert second + content.flush() == "then *** here. "
