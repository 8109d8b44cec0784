"""One smoke test of the real llama.cpp backend on the shipped SmolLM2 model (skipped only when the model
package or llama-cpp-python is not installed, which scripts/setup.sh always installs)."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.llama_cpp import LlamaCppBackend, builtin_model_path
from factdebate.methods.kit.common import LABEL_CHOICES
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.helpers import BagOfWordsEncoder, StaticTool

pytestmark = pytest.mark.skipif(
    builtin_model_path() is None or importlib.util.find_spec("llama_cpp") is None,
    reason="built-in model or llama-cpp-python not installed (run scripts/setup.sh)")


@pytest.fixture(scope="module")
def _models_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("llama-data"))


@pytest.fixture(autouse=True)
def _shared_data_dir(_models_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One data directory for this module, so the built-in model's F16 copy (270 MB) is made once."""
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", _models_dir)


async def test_builtin_model_generates_and_respects_a_choice_grammar() -> None:
    backend = LlamaCppBackend("builtin")
    free = await backend.complete([{"role": "user", "content": "Name the capital of France."}],
                                  GenParams(max_tokens=16))
    assert free.text.strip() and free.prompt_tokens > 0 and free.completion_tokens > 0
    constrained = await backend.complete([{"role": "user", "content": "Is Paris in France? Answer."}],
                                         GenParams(max_tokens=8, choices=LABEL_CHOICES))
    assert constrained.text in LABEL_CHOICES


async def test_react_step_grammar_yields_a_valid_action_on_the_real_model() -> None:
    from factdebate.methods.baselines.react import STEP_GRAMMAR, parse_action

    backend = LlamaCppBackend("builtin")
    reply = await backend.complete([{"role": "user", "content": "Claim: Paris is in France. Thought, then Action."}],
                                   GenParams(max_tokens=160, grammar=STEP_GRAMMAR))
    assert parse_action(reply.text) is not None, reply.text


async def test_moderation_grammar_yields_a_decision_on_the_real_model() -> None:
    from factdebate.methods.baselines.mad import MODERATION_GRAMMAR, parse_moderation

    backend = LlamaCppBackend("builtin")
    reply = await backend.complete([{"role": "user", "content": "Side A: Paris is in France. Side B: it is not. "
                                                                 "Is one side more convincing?"}],
                                   GenParams(max_tokens=160, grammar=MODERATION_GRAMMAR))
    assert parse_moderation(reply.text) is not None, reply.text


async def test_a_schema_held_reply_thinks_before_it_acts_on_the_real_model() -> None:
    """The grammar keeps the schema's key order: MERMAID's step writes its thought before its action."""
    from factdebate.methods.mermaid.executor import step_schema
    from factdebate.tools.toolset import ToolSchema

    search = ToolSchema("search", "Search the web.", {"type": "object", "properties": {"query": {"type": "string"}},
                                                      "required": ["query"]})
    reply = await LlamaCppBackend("builtin").complete(
        [{"role": "user", "content": "Claim: Paris is in France. Reply with a JSON step."}],
        GenParams(max_tokens=120, json_schema=step_schema([search], three_way=False)))
    keys = [key for key in ('"thought"', '"action"', '"answer"', '"name"', '"reason"', '"input"') if key in reply.text]
    assert keys[0] == '"thought"' and sorted(keys, key=reply.text.index) == keys, reply.text


async def test_one_round_of_tool_mad_runs_end_to_end_on_the_real_model() -> None:
    settings = load_settings(overrides={"llm": {"debater": "llama-cpp:builtin", "cache": False},
                                        "methods": {"tool-mad": {"rounds": 1}}}, environ={})
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, tool_factory=lambda kind: tools[kind],
                                encoder_factory=BagOfWordsEncoder)
    verdict = await run_claim("Paris is the capital of France.", settings, resources)
    assert len(verdict.rounds) == 1 and verdict.decided_by in ("consensus", "judge")
    assert all(t.response for t in verdict.rounds[0].turns)
    assert verdict.usage.llm_calls >= 3 and verdict.usage.prompt_tokens > 0
    assert verdict.usage_by_role["debater"].llm_calls >= 2


def test_builtin_runs_an_f16_copy_made_once_and_builtin_q4_the_shipped_file() -> None:
    from factdebate.util.paths import data_dir

    first = LlamaCppBackend("builtin")
    copy = data_dir() / "models" / "SmolLM2-135M-Instruct.F16.gguf"
    assert first.path == str(copy) and copy.stat().st_size > 2 * builtin_model_path().stat().st_size  # type: ignore[union-attr]
    made = copy.stat().st_mtime_ns
    assert LlamaCppBackend("builtin").path == str(copy) and copy.stat().st_mtime_ns == made  # reused
    assert LlamaCppBackend("builtin-q4").path == str(builtin_model_path())
    assert not list(copy.parent.glob("*.partial"))


def test_thread_count_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.util.errors import ConfigError

    monkeypatch.setenv("FACTDEBATE_LLAMA_THREADS", "1")
    assert LlamaCppBackend("builtin-q4").threads == 1
    monkeypatch.setenv("FACTDEBATE_LLAMA_THREADS", "two")
    with pytest.raises(ConfigError, match="FACTDEBATE_LLAMA_THREADS"):
        LlamaCppBackend("builtin-q4")


async def test_each_run_traces_the_thread_count_the_model_runs_with(monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.core.runtime import RunRecorder, recording
    from factdebate.llm.llama_threads import LiveThreads

    monkeypatch.delenv("FACTDEBATE_LLAMA_THREADS", raising=False)
    monkeypatch.setattr(LlamaCppBackend, "_live", LiveThreads(cores_of=lambda: 2, busy_of=lambda _: (1.0, "fake")))
    backend = LlamaCppBackend("builtin-q4")
    for _ in range(2):  # the model loads for the first run; the second is told too, once
        events: list[dict[str, Any]] = []
        with recording(RunRecorder(sinks=[events.append])):
            for _ in range(2):
                await backend.complete([{"role": "user", "content": "Hi"}], GenParams(max_tokens=1))
        threads = [e for e in events if e["event"] == "llm_threads"]
        assert len(threads) == 1 and threads[0]["threads"] >= 1
        assert threads[0]["reason"]


class _Load:
    """A fake load reader on 2 cores and a clock for its readings' age."""

    def __init__(self, busy: float) -> None:
        self.busy, self.now = busy, 0.0

    def live(self) -> Any:
        from factdebate.llm.llama_threads import LiveThreads

        return LiveThreads(cores_of=lambda: 2, busy_of=lambda _: (self.busy, "a fake reading"), clock=lambda: self.now)


@pytest.fixture
def own_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in Q4 model loaded by the test itself (not one another test left loaded), dropped after it."""
    monkeypatch.delenv("FACTDEBATE_LLAMA_THREADS", raising=False)
    for name in ("_models", "_locks", "_choices"):
        monkeypatch.setattr(LlamaCppBackend, name, {})


def _context_threads(backend: LlamaCppBackend) -> tuple[int, int]:
    """The thread counts llama.cpp's context decodes with: tokens, then prompts."""
    import llama_cpp

    ctx = LlamaCppBackend._models[(backend.path, backend.n_ctx)].ctx
    return llama_cpp.llama_n_threads(ctx), llama_cpp.llama_n_threads_batch(ctx)


@pytest.mark.usefixtures("own_model")
async def test_a_model_loaded_on_a_busy_machine_runs_on_both_cores_once_the_load_falls(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Loaded at load 8 on 2 cores, the model runs with 1 thread; once the load falls and the reading is old,
    the next call generates with 2, and the run's trace says so."""
    from factdebate.core.runtime import RunRecorder, recording
    from factdebate.llm.llama_threads import REREAD_S

    load = _Load(busy=8.0)
    monkeypatch.setattr(LlamaCppBackend, "_live", load.live())
    backend = LlamaCppBackend("builtin-q4")
    events: list[dict[str, Any]] = []
    ask: list[Message] = [{"role": "user", "content": "Name the capital of France."}]
    with recording(RunRecorder(sinks=[events.append])):
        await backend.complete(ask, GenParams(max_tokens=4))
        assert _context_threads(backend) == (1, 1)
        load.busy = 0.0
        await backend.complete(ask, GenParams(max_tokens=4))
        assert _context_threads(backend) == (1, 1)  # the reading is still young
        load.now = REREAD_S
        after = await backend.complete(ask, GenParams(max_tokens=16))
        assert _context_threads(backend) == (2, 2)
    assert after.text.strip() and after.completion_tokens > 0
    traced = [e for e in events if e["event"] == "llm_threads"]
    assert [e["threads"] for e in traced] == [1, 2]
    assert "8.0 busy (a fake reading)" in traced[0]["reason"] and "0.0 busy" in traced[1]["reason"]


@pytest.mark.usefixtures("own_model")
async def test_the_operator_s_thread_count_wins_over_an_idle_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    from factdebate.core.runtime import RunRecorder, recording

    monkeypatch.setattr(LlamaCppBackend, "_live", _Load(busy=0.0).live())
    monkeypatch.setenv("FACTDEBATE_LLAMA_THREADS", "1")
    backend = LlamaCppBackend("builtin-q4")
    events: list[dict[str, Any]] = []
    with recording(RunRecorder(sinks=[events.append])):
        reply = await backend.complete([{"role": "user", "content": "Hi"}], GenParams(max_tokens=4))
    assert reply.completion_tokens > 0 and _context_threads(backend) == (1, 1)
    assert [(e["threads"], e["reason"]) for e in events if e["event"] == "llm_threads"] == [
        (1, "set by FACTDEBATE_LLAMA_THREADS")]


def test_the_low_level_binding_that_sets_a_loaded_model_s_threads_is_there() -> None:
    """llama-cpp-python has no public setter for a loaded model's threads; llm/llama_states.py calls the
    binding of llama.cpp's ``llama_set_n_threads`` on ``Llama.ctx``, and would fail at the first call without them."""
    import llama_cpp

    assert callable(llama_cpp.llama_set_n_threads) and callable(llama_cpp.llama_n_threads)
    assert isinstance(getattr(llama_cpp.Llama, "ctx", None), property)


def test_state_cache_restores_an_interleaved_prefix_and_answers_the_same() -> None:
    from llama_cpp import Llama

    from factdebate.llm.llama_states import prefix_cached_llama

    # One thread for prompts and tokens: llama-cpp-python's default gives prompts every core, whose threads
    # spin while the suite's other workers hold them (11 CPU-s in a loaded run against 2.7 alone).
    options = {"model_path": str(builtin_model_path()), "n_ctx": 2048, "n_threads": 1, "n_threads_batch": 1,
               "verbose": False}
    cached, plain = prefix_cached_llama(1 << 28, **options), Llama(**options)
    restored: list[int] = []
    original = cached.load_state
    cached.load_state = lambda state: (restored.append(state.n_tokens), original(state))[1]

    def conversation(llm: Llama) -> list[str]:
        def ask(messages: list[dict[str, str]]) -> str:
            out = llm.create_chat_completion(messages=messages, temperature=0, max_tokens=12)
            return str(out["choices"][0]["message"]["content"])

        first = [{"role": "user", "content": "Evidence: Lyon is a city in France. Is Lyon in France?"}]
        second = [{"role": "user", "content": "Evidence: Porto is a city in Portugal. Is Porto in Spain?"}]
        answers = [ask(first), ask(second)]
        # The re-ask extends the first conversation while the context holds the second one.
        answers.append(ask([*first, {"role": "assistant", "content": answers[0]},
                            {"role": "user", "content": "One word: yes or no?"}]))
        return answers

    assert conversation(cached) == conversation(plain)
    assert len(restored) == 1 and restored[0] > 20  # the first conversation's state was restored


def test_a_greedy_grammar_call_writes_what_the_full_vocabulary_check_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from llama_cpp import Llama

    from factdebate.llm import llama_states
    from factdebate.llm.llama_cpp import _compiled, _schema_grammar

    options = {"model_path": str(builtin_model_path()), "n_ctx": 2048, "n_threads": 1, "n_threads_batch": 1,
               "verbose": False}
    schema = {"type": "object", "additionalProperties": False, "required": ["claims"],
              "properties": {"claims": {"type": "array", "minItems": 1, "maxItems": 3, "items": {
                  "type": "object", "additionalProperties": False, "required": ["claim", "label"],
                  "properties": {"claim": {"type": "string", "maxLength": 60},
                                 "label": {"type": "string", "enum": ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]}}}}}}
    messages = [{"role": "user", "content": "Evidence: Lyon is a city in France. Answer: Lyon is in Spain and "
                                            "has two rivers. Split the answer into claims, label each, in JSON."}]
    picks: list[bool] = []
    original = llama_states.GreedyGrammar.pick

    def pick(self: llama_states.GreedyGrammar, logits: Any) -> int:
        token = original(self, logits)
        picks.append(token == int(logits.argmax()))
        return token

    monkeypatch.setattr(llama_states.GreedyGrammar, "pick", pick)
    answers = []
    for llm in (llama_states.prefix_cached_llama(1 << 28, **options), Llama(**options)):
        grammar = _compiled(_schema_grammar(json.dumps(schema)))
        out = llm.create_chat_completion(messages=messages, temperature=0, max_tokens=80, grammar=grammar)
        answers.append(out["choices"][0]["message"]["content"])
    assert answers[0] == answers[1]
    json.loads(answers[0])
    # Both ways were taken: the best token accepted as it is, and a rejected one replaced by the grammar's.
    assert True in picks and False in picks


async def test_a_reply_ends_where_the_caller_says_and_the_rest_is_never_written() -> None:
    schema = {"type": "object", "additionalProperties": False, "required": ["claims"],
              "properties": {"claims": {"type": "array", "minItems": 3, "maxItems": 3, "items": {
                  "type": "object", "additionalProperties": False, "required": ["claim"],
                  "properties": {"claim": {"type": "string", "maxLength": 40}}}}}}
    seen: list[str] = []

    def ended(text: str) -> str | None:
        seen.append(text)
        # The list closed after the first claim's object.
        return text[:text.index("}") + 1] + "]}" if text.count("}") == 1 else None

    backend = LlamaCppBackend("builtin")
    messages: list[Message] = [{"role": "user", "content": "List three facts about Paris as JSON claims."}]
    whole = await backend.complete(messages, GenParams(max_tokens=200, json_schema=schema))
    cut = await backend.complete(messages, GenParams(max_tokens=200, json_schema=schema, ended=ended))
    assert len(json.loads(whole.text)["claims"]) == 3
    assert cut.finish_reason == "ended" and len(json.loads(cut.text)["claims"]) == 1
    assert whole.text.startswith(cut.text[:-2])  # the same tokens, up to where it ended
    assert 0 < cut.completion_tokens < whole.completion_tokens and cut.prompt_tokens == whole.prompt_tokens
    assert seen and all("}" in s for s in seen)


async def test_reasoning_and_verdict_come_in_one_held_generation() -> None:
    from factdebate.llm.model import LLM
    from factdebate.methods.kit.common import labelled_answer
    from factdebate.prompts import render

    backend = LlamaCppBackend("builtin")
    llm = LLM(backend, "debater")
    prompt = render("debate_answer", agent_desc="agent without tools", claim="Paris is in Italy.", others=[],
                    documents=[], answer_sentences=None)
    answer = await labelled_answer(llm, prompt, agent="a", round=1)
    assert answer.label is not None and answer.retries == 0 and answer.constrained
    assert answer.response.splitlines()[-1].startswith("Verdict: ")


async def test_tools_hold_the_in_process_model_to_one_well_formed_call() -> None:
    from factdebate.llm.base import ToolSchema

    tool = ToolSchema("search", "Search an encyclopedia.",
                      {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
    reply = await LlamaCppBackend("builtin").complete(
        [{"role": "user", "content": "Find out where Paris is. Call the search tool."}],
        GenParams(max_tokens=64, tools=(tool,)))
    assert len(reply.tool_calls) == 1 and reply.tool_calls[0].name == "search", reply.text
    assert isinstance(reply.tool_calls[0].arguments.get("query"), str)


async def test_a_scored_choice_call_gives_each_choice_s_probability_and_its_answer_is_the_likeliest() -> None:
    backend = LlamaCppBackend("builtin")
    choices = ("states", "contradicts", "neither")
    messages: list[Message] = [{"role": "user", "content": "Passage: Paris is the capital of France. Statement: "
                                "Paris is the capital of France. Does the passage state the statement, contradict "
                                "it, or neither? Answer with one word."}]
    scored = await backend.complete(messages, GenParams(max_tokens=8, choices=choices, choice_scores=True))
    assert scored.choice_probs is not None and set(scored.choice_probs) == set(choices)
    assert abs(sum(scored.choice_probs.values()) - 1.0) < 1e-6
    assert all(0.0 <= p <= 1.0 for p in scored.choice_probs.values())
    # The greedy answer starts on the likeliest first step, and the choices' first tokens are distinct here.
    assert scored.text == max(scored.choice_probs, key=lambda c: scored.choice_probs[c])  # type: ignore[index]
    plain = await backend.complete(messages, GenParams(max_tokens=8, choices=choices))
    assert plain.text == scored.text and plain.choice_probs is None


def test_choices_sharing_a_prefix_count_only_the_tokens_that_begin_one_of_them() -> None:
    backend = LlamaCppBackend("builtin")
    llm = backend._model()
    found = backend._choice_tokens(llm, ("yes", "yesterday", "no"))
    # "y", "ye", "yes" begin both of the first two: none of them is counted for either
    pieces = [llm.tokenize(p.encode(), add_bos=False, special=False) for p in ("y", "ye", "yes")]
    shared = {int(tokens[0]) for tokens in pieces if len(tokens) == 1}
    assert shared and not shared & set(found["yes"]) and not shared & set(found["yesterday"])
    assert found["no"]
