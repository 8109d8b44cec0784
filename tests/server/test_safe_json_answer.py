"""An answer that may carry text no UTF-8 answer can (server/strict_json.py's ``SafeJSONResponse``): the bytes
FastAPI's ``JSONResponse`` writes when it can write them, the text replaced and a NaN null when it cannot."""

from __future__ import annotations

import json

from fastapi.responses import JSONResponse

from factdebate.server.strict_json import SafeJSONResponse


def test_an_answer_that_encodes_is_written_as_json_response_writes_it() -> None:
    content = {"detail": "invalid request: é ok", "errors": [{"field": "claim", "message": "x"}], "n": 1.5}
    assert SafeJSONResponse(content).body == JSONResponse(content).body


def test_a_lone_surrogate_and_a_nan_never_fail_the_answer() -> None:
    answer = SafeJSONResponse({"detail": "quoted \ud800 back", "score": float("nan")}, status_code=422)
    assert answer.status_code == 422
    read = json.loads(answer.body)
    assert read == {"detail": "quoted \ufffd back", "score": None}
