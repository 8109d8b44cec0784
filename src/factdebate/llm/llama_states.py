"""A llama.cpp model that remembers recent KV states, so a prompt extending an earlier call skips the
shared part even when other calls ran in between.

With one context and calls interleaved (two debaters answer, then each answer is re-asked), llama.cpp's
own prefix reuse only sees the last call, so every re-ask re-reads its whole prompt; prompt evaluation is
most of what the embedded model costs. llama-cpp-python has a state cache for this, but each of its states
also copies the logits of every position (about 200 MB per 1,000 tokens with a 49k vocabulary) and
restoring one scans the whole logits matrix: slower than it saves. Logits are never read back here (a
restored state is always decoded again from at least one token), so these states keep only the KV data.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Any


def prefix_cached_llama(capacity_bytes: int, before_step: Callable[[], None] | None = None, **kwargs: Any) -> Any:
    """A ``llama_cpp.Llama`` (built with ``kwargs``) with a RAM state cache of ``capacity_bytes``.
    ``before_step`` is called before each batch of a prompt and before each generated token, in the thread that
    runs the model: it stops the call by raising (Ctrl-C, a caller gone past its deadline). Stopping between
    batches leaves the model's state whole: what was evaluated is recorded, and the next call reuses it."""
    import llama_cpp
    import numpy as np
    from llama_cpp import Llama, LlamaRAMCache, LlamaState

    class PrefixCachedLlama(Llama):
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
