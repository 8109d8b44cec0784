"""Model backends, for the service (see facade/__init__.py): making one, its stream setting, the breaker
that knows which model servers are down, the embedded model's caution (``near_chance``, a module, and its
``CLAIMS`` and ``with_model_warnings``), transcripts of model calls, and the library's prompt templates."""

from factdebate.llm import breaker, make_backend, near_chance
from factdebate.llm.base import Backend
from factdebate.llm.near_chance import CLAIMS, with_model_warnings
from factdebate.llm.openai_stream import StreamSetting
from factdebate.llm.transcript import DEFAULT_CHARS, transcribing
from factdebate.prompts import render

__all__ = [
    "CLAIMS", "DEFAULT_CHARS", "Backend", "StreamSetting", "breaker", "make_backend", "near_chance", "render",
    "transcribing", "with_model_warnings",
]
