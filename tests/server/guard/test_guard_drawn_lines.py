"""A claim drawn from several lines is on each of them: through ``POST /v1/chat/completions`` (the guard as
``factdebate serve`` runs it before a loopback upstream streaming three characters a chunk, a scripted checker),
a transposed table's claim (its subject in the header row, its value in a row below), a sentence broken across
two lines and a claim the extractor drew from two sentences are marked on every line they were drawn from
(the ``factdebate`` object's ``span`` and ``sources``) and footnoted once. The claim is placed on the line that
states it ("She won three Nobel Prizes.", not "Marie Curie was born in Warsaw in 1867." before it; "| City |
Rome |", not the header row), and ``hold`` withholds each line that gives more of it than its subject, plain
and streamed alike: the header row and the sentence that only name the subject stay, as a stream shows them
before the line after them is read; both lines of the broken sentence go."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdebate.guard_engine.policy import WITHHELD
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import stance_of
from factdebate.server.app import create_app
from tests.guard.support import quoted_sentence, script, window_answer
from tests.server.conftest import AUTH, KEY, PLAIN, LiveServer, offline_build
from tests.server.guard_support import Upstream, upstream_app

FOOTNOTES = "\n\n---\nFact check:\n"
TABLE = "| | Eiffel Tower |\n|---|---|\n| City | Rome |\n| Opened | 1889 |"
ROME = "The Eiffel Tower is in Rome."
CURIE = "Marie Curie was born in Warsaw in 1867. She won three Nobel Prizes."
WRAPPED = "The Eiffel Tower, the iron lattice tower built for the World's Fair, is in\nRome."
BORN, PRIZES = "Marie Curie was born in Warsaw in 1867.", "Marie Curie won three Nobel Prizes."
# What each claim is drawn from, as the extractor reads its text: the words of each line it names.
DRAWN: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    TABLE: [(ROME, ("Eiffel Tower |", "| Rome |")),
            ("The Eiffel Tower opened in 1889.", ("Eiffel Tower |", "| 1889 |"))],
    CURIE: [(BORN, ("born in Warsaw",)), (PRIZES, ("born in Warsaw", "three Nobel"))],
    WRAPPED: [(ROME, ("World's Fair, is in", "Rome."))]}
_NUMBER = re.compile(r"\[S(\d+)\]")
# The passages the checker reads for each reply (given evidence).
PASSAGES = {TABLE: {"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris. It opened in 1889."},
            WRAPPED: {"title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris. It opened in 1889."},
            CURIE: {"title": "Marie Curie", "text": "Marie Curie won two Nobel Prizes. She was born in Warsaw in "
                                                    "1867."}}


def _number_of(text: str, words: str) -> int | None:
    """The number of the sentence of the extractor's ``text`` that writes ``words`` (None: not shown numbered)."""
    at = text.find(words)
    before = [int(m.group(1)) for m in _NUMBER.finditer(text) if m.start() <= at]
    return before[-1] if at >= 0 and before else None


def _extract(reply: str) -> Callable[[str], str]:
    """The extractor, as a capable model answers: each claim of ``reply`` whose statement (the last line it is
    drawn from) its prompt numbers, with the numbers of each of those lines it shows numbered (streamed, a line
    before may be in the reply so far, shown to it unnumbered: the subject is read from there)."""

    def extracted(prompt: str) -> str:
        text = prompt.split("\nAnswer:\n", 1)[-1].split("\nText:\n", 1)[-1]
        claims = []
        for claim, lines in DRAWN[reply]:
            numbers = [n for words in lines if (n := _number_of(text, words)) is not None]
            if _number_of(text, lines[-1]) is not None:
                claims.append({"claim": claim, "sentences": numbers})
        return json.dumps({"claims": claims})

    return extracted


def _checker(reply: str) -> Callable[[CallInfo, list[Message], GenParams], Any]:
    """The guard's models: :func:`_extract`, and the fast tier refuting Rome and three prizes (quoting the first
    passage, as the suite's scripted checker does) and supporting the rest."""
    extracted = _extract(reply)

    def label(claim: str) -> str:
        return "REFUTES" if "Rome" in claim or "three" in claim else "SUPPORTS"

    def fast(prompt: str) -> str:
        claim = re.search(r"^Statement: (.*)$", prompt, re.M)
        said = claim.group(1) if claim else ""
        return json.dumps({"label": label(said), "passage": 1, "quote": quoted_sentence(prompt, said)})

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> Any:
        text = messages[0]["content"]
        if call.prompt.startswith("claims_extract"):
            return extracted(text)
        if call.prompt.startswith("guard_window"):
            return window_answer(text, extracted, fast)
        if call.prompt.startswith("guard_fast"):
            return fast(text)
        if call.prompt.startswith("guard_stance"):
            return stance_of(text, label)
        return script()(call, messages, params)

    return respond


Guard = Callable[[str], LiveServer]


@pytest.fixture
def guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    """Starts the guard before a loopback upstream streaming the reply given; both stop with the test."""
    started: list[LiveServer] = []

    def start(reply: str) -> LiveServer:
        model = LiveServer(upstream_app(Upstream(answer=reply, token_delay=0.005, chars=3))).__enter__()
        started.append(model)
        monkeypatch.setenv("FACTDEBATE_GUARD__UPSTREAM", f"{model.url}/v1")
        backend = ScriptedBackend(_checker(reply))
        app = create_app(api_keys=[KEY], defaults=PLAIN, db_path=tmp_path / "service.sqlite",
                         rate_limit_per_minute=0, build=lambda settings: offline_build(settings, backend))
        started.append(LiveServer(app).__enter__())
        return started[-1]

    yield start
    for server in reversed(started):
        server.__exit__()


def _ask(server: LiveServer, reply: str, policy: str, stream: bool) -> tuple[str, dict[str, Any]]:
    """The text the client receives for ``reply`` and the ``factdebate`` object, plain or streamed."""
    options = {"tier": "fast", "max_tier": "fast", "method": "single", "policy": policy, "evidence_mode": "given",
               "evidence": [PASSAGES[reply]]}
    body = {"model": "m", "stream": stream, "messages": [{"role": "user", "content": "Tell me about it."}],
            "factdebate": options}
    if not stream:
        answer = httpx.post(f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30, json=body)
        assert answer.status_code == 200, answer.text
        return answer.json()["choices"][0]["message"]["content"], answer.json()["factdebate"]
    with httpx.stream("POST", f"{server.url}/v1/chat/completions", headers=AUTH, timeout=30, json=body) as streamed:
        assert streamed.status_code == 200
        chunks = [json.loads(line[6:]) for line in streamed.iter_lines() if line.startswith("data: {")]
    text = "".join((c["choices"][0]["delta"].get("content") or "") for c in chunks if c.get("choices"))
    return text, chunks[-1]["factdebate"]


def _marked(reply: str, claim: dict[str, Any]) -> list[str]:
    """The lines of ``reply`` a claim is marked on, as the client reads its ``span`` and ``sources``."""
    places = [claim["span"], *claim["sources"]] if claim["span"] else claim["sources"]
    return [line for line in reply.split("\n")
            if any(reply.index(line) < p["end"] and p["start"] < reply.index(line) + len(line) for p in places)]


STREAMS = [pytest.param(False, id="plain"), pytest.param(True, id="streamed")]


@pytest.mark.parametrize("stream", STREAMS)
def test_a_transposed_tables_claim_is_marked_on_its_header_and_its_row(guard: Guard, stream: bool) -> None:
    text, found = _ask(guard(TABLE), TABLE, "flag", stream)
    answer, _, notes = text.partition(FOOTNOTES)
    assert answer == TABLE and notes.count(f'"{ROME}" is contradicted') == 1  # the footnote once
    claim = next(c for c in found["claims"] if c["claim"] == ROME)
    assert claim["label"] == "REFUTES"
    assert _marked(TABLE, claim) == ["| | Eiffel Tower |", "| City | Rome |"]


@pytest.mark.parametrize("stream", STREAMS)
def test_hold_withholds_a_transposed_tables_claim_on_each_of_its_lines(guard: Guard, stream: bool) -> None:
    text, found = _ask(guard(TABLE), TABLE, "hold", stream)
    answer, _, notes = text.partition(FOOTNOTES)
    assert answer == f"| | Eiffel Tower |\n|---|---|\n{WITHHELD}\n| Opened | 1889 |", text
    assert "Rome" not in answer and notes.count(f'"{ROME}" is contradicted') == 1
    assert found["action_taken"] == "held"


@pytest.mark.parametrize("stream", STREAMS)
def test_a_claim_drawn_from_two_sentences_is_placed_on_the_one_that_states_it(guard: Guard, stream: bool) -> None:
    text, found = _ask(guard(CURIE), CURIE, "flag", stream)
    assert text.partition(FOOTNOTES)[0] == CURIE
    claims = {c["claim"]: c for c in found["claims"]}
    prizes, born = claims[PRIZES], claims[BORN]
    assert CURIE[prizes["span"]["start"]:prizes["span"]["end"]] == "She won three Nobel Prizes."
    assert CURIE[born["span"]["start"]:born["span"]["end"]] == BORN
    assert [CURIE[s["start"]:s["end"]] for s in prizes["sources"]] == [BORN, "She won three Nobel Prizes."]


@pytest.mark.parametrize("stream", STREAMS)
def test_hold_withholds_a_claim_on_both_sentences_it_was_drawn_from(guard: Guard, stream: bool) -> None:
    text, found = _ask(guard(CURIE), CURIE, "hold", stream)
    answer, _, notes = text.partition(FOOTNOTES)
    assert answer == f"{BORN} {WITHHELD}", text
    assert notes.count(f'"{PRIZES}" is contradicted') == 1 and found["action_taken"] == "held"


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("policy", ["flag", "hold"])
def test_a_sentence_broken_across_two_lines_is_marked_and_withheld_on_both(guard: Guard, policy: str,
                                                                           stream: bool) -> None:
    text, found = _ask(guard(WRAPPED), WRAPPED, policy, stream)
    answer, _, notes = text.partition(FOOTNOTES)
    (claim,) = found["claims"]
    assert claim["label"] == "REFUTES" and notes.count(f'"{ROME}" is contradicted') == 1
    assert _marked(WRAPPED, claim) == WRAPPED.split("\n")
    assert answer == (WRAPPED if policy == "flag" else f"{WITHHELD}\n{WITHHELD}"), text
