"""The extraction's caps fit the text: asked for up to 12 claims and 1,024 tokens of a
two-sentence reply, SmolLM2 behind llama-cpp-python's server wrote items until the cap, and the guard's
deadline passed before any claim was checked. The schema's ``maxItems`` and the token cap follow the text:
three claims a sentence (more for a sentence of more parts, a row of more cells), and one more, at most
``response.max_claims``."""

from __future__ import annotations

import json
from typing import Any

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.response_level.extract import CLAIM_TOKENS, claim_room
from factdebate.response_level.room import unit_room
from tests.response_level.test_check_response import check

TWO = "The Eiffel Tower is in Paris. It was completed in 1889."


def recording(seen: list[GenParams]) -> Any:
    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "claims_extract":
            seen.append(params)
            return json.dumps({"claims": ["The Eiffel Tower is in Paris.", "The Eiffel Tower was completed in 1889."]})
        return "SUPPORTS"

    return respond


async def test_a_two_sentence_reply_is_asked_for_seven_claims_at_most() -> None:
    seen: list[GenParams] = []
    verdict, _, _ = await check(recording(seen), response=TWO)
    (params,) = seen
    assert params.json_schema is not None
    assert params.json_schema["properties"]["claims"]["maxItems"] == 7  # three a sentence, and one more
    assert params.max_tokens == CLAIM_TOKENS * 7 + 64 < 80 * 12 + 64  # 708 tokens, not 1,024
    assert [c.claim for c in verdict.claims] == ["The Eiffel Tower is in Paris.",
                                                 "The Eiffel Tower was completed in 1889."]


def test_the_room_grows_with_the_text_up_to_the_limit() -> None:
    assert claim_room("Sydney.", 12) == 4
    assert claim_room(" ".join(["Paris is in France."] * 10), 12) == 12
    assert claim_room("", 12) == 1  # the schema asks for one claim at least


def test_the_room_counts_what_each_unit_states() -> None:
    """A sentence's parts, a table row's cells, a JSON object's members: each may be a fact of its own, so the
    extractor is asked for room enough for all of them (three a unit at least), and one more in all."""
    assert unit_room("The Eiffel Tower, in Paris, opened in 1889, is 330 metres tall and remained the tallest "
                     "man-made structure in the world until 1950.") == 5
    assert unit_room("| Empire State Building | New York City | 1931 | 443 m | 102 |") == 5
    assert unit_room('{"landmark": "Big Ben", "city": "London", "completed": 1859, "height_m": 96}') == 4
    assert unit_room("Paris is in France.") == 3
    # Text without spaces: its enumeration commas, and the spaces Thai puts between clauses.
    assert unit_room("東京タワーは東京にあり、1958年に完成し、高さは333メートルで、赤と白に塗られている。") == 4
    assert unit_room("หอไอเฟลอยู่ในปารีส เปิดให้เข้าชมทุกวัน มีร้านอาหารสองแห่ง และเป็นสัญลักษณ์ของฝรั่งเศส") == 4
    # The units the extractor is shown, each with its own room, not the sentences of the text they make.
    shown = "| Paris | France |\n| Rome | Italy |"
    assert claim_room(shown.replace("\n", " "), 20, [(0, 18), (19, 35)]) == 7
    assert claim_room(shown.replace("\n", " "), 20) == 5  # read as one line of four cells
