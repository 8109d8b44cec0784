"""A llama.cpp model that remembers recent KV states, so a prompt extending an earlier call skips the
shared part even when other calls ran in between.

With one context and calls interleaved (two debaters answer, then each answer is re-asked), llama.cpp's
own prefix reuse only sees the last call, so every re-ask re-reads its whole prompt; prompt evaluation is
most of what the embedded model costs. llama-cpp-python has a state cache for this, but each of its states
also copies the logits of every position (about 200 MB per 1,000 tokens with a 49k vocabulary) and
restoring one scans the whole logits matrix: slower than it saves. Logits are never read back here (a
restored state is always decoded again from at least one token), so these states keep only the KV data.

A greedy call held to a grammar asks the grammar about the best token first, as llama.cpp's own sampler
does, and about the whole vocabulary only when it rejects that token. The grammar only masks what it
rejects, so the token chosen is the same; llama-cpp-python's sampler chain instead checks all 151,936 of
Qwen2.5's tokens before every token (about 23 ms a token with a JSON schema on this machine).

Both reach into llama-cpp-python's private members (``Llama._init_sampler``, ``_model``, ``_ctx``, ``_sampler``,
``_seed``, ``_requires_eval``, ``LlamaGrammar._grammar`` and ``_root``): tests/llm/test_llama_private_members.py
checks each on the installed release, so list there any other one used here.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence
from typing import Any

# The sampling settings under which greedy decoding is the plain argmax of the logits: no penalty or
# custom processor reorders them first. Left out, each is llama-cpp-python's default, which is neutral.
_NEUTRAL = {"repeat_penalty": 1.0, "frequency_penalty": 0.0, "presence_penalty": 0.0, "logits_processor": None}


class GreedyGrammar:
    """A grammar sampler asked about the argmax token alone, and about every token only when it rejects it."""

    def __init__(self, vocab: Any, grammar: Any, n_vocab: int) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self._n_vocab = n_vocab
        self._sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar._grammar.encode("utf-8"),
                                                             grammar._root.encode("utf-8"))
        if not self._sampler:
            raise ValueError("llama.cpp could not build the grammar's sampler")

    def pick(self, logits: Any) -> int:
        """The best token ``logits`` give that the grammar accepts next; the grammar then takes it."""
        import numpy as np

        lib = self._lib
        token = int(np.argmax(logits))
        one = (lib.llama_token_data * 1)(lib.llama_token_data(token, float(logits[token]), 0.0))
        lib.llama_sampler_apply(self._sampler, ctypes.byref(lib.llama_token_data_array(one, 1, -1, False)))
        if math.isinf(one[0].logit):  # rejected: the grammar masks the whole vocabulary, as without this class
            every = (lib.llama_token_data * self._n_vocab)()
            view = np.ctypeslib.as_array(every)
            view["id"] = np.arange(self._n_vocab, dtype=np.intc)
            view["logit"] = logits
            lib.llama_sampler_apply(self._sampler, ctypes.byref(
                lib.llama_token_data_array(every, self._n_vocab, -1, False)))
            token = int(np.argmax(view["logit"]))
        lib.llama_sampler_accept(self._sampler, token)
        return token

    def close(self) -> None:
        if self._sampler:
            self._lib.llama_sampler_free(self._sampler)
            self._sampler = None


def prefix_cached_llama(capacity_bytes: int, before_step: Callable[[], None] | None = None, **kwargs: Any) -> Any:
    """A ``llama_cpp.Llama`` (built with ``kwargs``) with a RAM state cache of ``capacity_bytes``.
    ``before_step`` is called before each batch of a prompt and before each generated token, in the thread that
    runs the model: it stops the call by raising (Ctrl-C, a caller gone past its deadline). Stopping between
    batches leaves the model's state whole: what was evaluated is recorded, and the next call reuses it."""
    import llama_cpp
    import numpy as np
    from llama_cpp import Llama, LlamaRAMCache, LlamaState

    class PrefixCachedLlama(Llama):
        _greedy_grammar: GreedyGrammar | None = None
        # Set by a caller that scores a constrained answer's choices (llm/llama_cpp.py): the logits of the call's
        # first sampled token are then kept in ``first_step`` (a copy: the context overwrites its own).
        first_step_wanted: bool = False
        first_step: Any = None

        def _init_sampler(self, *args: Any, **kwargs: Any) -> Any:
            self.first_step = None
            if self._greedy_grammar is not None:
                self._greedy_grammar.close()
                self._greedy_grammar = None
            grammar = kwargs.get("grammar")
            greedy = kwargs.get("temp") == 0.0 and all(kwargs.get(k, v) == v for k, v in _NEUTRAL.items())
            if not args and grammar is not None and greedy:
                self._greedy_grammar = GreedyGrammar(self._model.vocab, grammar, self.n_vocab())
                kwargs["grammar"] = None
            return super()._init_sampler(*args, **kwargs)

        def sample(self, *args: Any, **kwargs: Any) -> int:
            checker = self._greedy_grammar
            if checker is None or self._sampler is None or args:
                return int(super().sample(*args, **kwargs))
            idx = kwargs.get("idx")
            logits = llama_cpp.llama_get_logits_ith(self._ctx.ctx, -1 if idx is None else idx - self.n_tokens)
            row = np.ctypeslib.as_array(logits, shape=(self.n_vocab(),))
            if self.first_step_wanted and self.first_step is None:
                self.first_step = row.copy()
            return checker.pick(row)

        def use_threads(self, threads: int) -> None:
            """Reads prompts and writes tokens with ``threads`` from the next step on. llama-cpp-python has no
            public setter (``Llama.n_threads`` is read once, when the context is made): the low-level binding
            ``llama_cpp.llama_set_n_threads`` sets the context's counts, which each decode reads
            (tests/llm/test_llama_cpp.py fails if it goes)."""
            if threads == self.n_threads == self.n_threads_batch:
                return
            llama_cpp.llama_set_n_threads(self.ctx, threads, threads)
            self.n_threads = self.n_threads_batch = threads
            # What a copy of this model (``__getstate__``) is made with.
            self.context_params.n_threads = self.context_params.n_threads_batch = threads

        def eval(self, tokens: Sequence[int]) -> None:
            for start in range(0, len(tokens), self.n_batch):
                if before_step is not None:
                    before_step()
                super().eval(tokens[start:start + self.n_batch])

        def save_state(self) -> LlamaState:
            size = llama_cpp.llama_state_get_size(self._ctx.ctx)
            buffer = (ctypes.c_uint8 * int(size))()
            written = int(llama_cpp.llama_state_get_data(self._ctx.ctx, buffer, size))
            return LlamaState(input_ids=self.input_ids.copy(), scores=np.empty((0, 0), dtype=np.single),
                              n_tokens=self.n_tokens, llama_state=bytes(buffer)[:written],
                              llama_state_size=written, seed=self._seed)

        def load_state(self, state: LlamaState) -> None:
            data = (ctypes.c_uint8 * state.llama_state_size).from_buffer_copy(state.llama_state)
            if llama_cpp.llama_state_set_data(self._ctx.ctx, data, state.llama_state_size) != state.llama_state_size:
                raise RuntimeError("llama.cpp could not restore a cached state")
            self.input_ids = state.input_ids.copy()
            self.n_tokens = state.n_tokens
            self._seed = state.seed
            self._requires_eval = True  # the logits are stale: the next prompt decodes at least one token

    model = PrefixCachedLlama(**kwargs)
    model.set_cache(LlamaRAMCache(capacity_bytes=capacity_bytes))
    return model
