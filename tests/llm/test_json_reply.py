"""A model's reply nested past Python's JSON reader (a thousand brackets) or past what any answer nests is
unreadable like any malformed reply: every reader of model replies says so as its own ``JSONDecodeError`` (or
``None``), never a ``RecursionError`` that the service would take for its caller's bad request."""

from __future__ import annotations

import json

import pytest

from factdebate.llm.constraints import render_json
from factdebate.llm.json_reply import MAX_REPLY_NESTING, TOO_DEEP, ReplyTooDeep, enclosed, first_object, loads
from factdebate.response_level.repeats import written_claims

PAST_THE_PARSER = {"list": "[" * 990 + "]" * 990, "object": '{"a":' * 990 + "1" + "}" * 990}
PAST_THE_BOUND = '{"a":' * (MAX_REPLY_NESTING + 1) + "1" + "}" * (MAX_REPLY_NESTING + 1)  # read, then refused


@pytest.mark.parametrize("text", [*PAST_THE_PARSER.values(), PAST_THE_BOUND], ids=[*PAST_THE_PARSER, "bound"])
def test_a_reply_nested_too_deeply_is_a_json_decode_error_that_says_so(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as raised:
        loads(text)
    assert isinstance(raised.value, ReplyTooDeep) and raised.value.msg == TOO_DEEP
    with pytest.raises(json.JSONDecodeError, match="more than 64 levels deep"):
        enclosed(f"Here is my answer: {text} (done)", "{[")


@pytest.mark.parametrize("text", [*PAST_THE_PARSER.values(), PAST_THE_BOUND], ids=[*PAST_THE_PARSER, "bound"])
def test_every_other_reader_of_a_too_deep_reply_finds_nothing(text: str) -> None:
    assert render_json(text, "[{a}]") is None
    assert render_json('{"a": ' + text + "}", "[{a}]") is None
    assert first_object(f"Sure! {text}") is None
    assert written_claims('{"claims": [{"claim": ' + text + "}]}") == []


def test_a_reply_as_deep_as_the_bound_is_read() -> None:
    nested = '{"a":' * MAX_REPLY_NESTING + '"x"' + "}" * MAX_REPLY_NESTING
    assert loads(nested)["a"]["a"]["a"] is not None
    assert first_object(f"The answer: {nested}") == loads(nested)
    assert render_json('{"a": "x", "b": [1]}', "[{a}] {b}") == "[x] [1]"
