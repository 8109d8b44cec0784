"""NeMo runs init() before it builds its models, and reads no OPENAI_BASE_URL itself: here it does."""

import os
from typing import Any


def init(app: Any) -> None:
    """An ``openai`` model without a ``base_url`` of its own is sent to OPENAI_BASE_URL when it is set (a local
    OpenAI-compatible server: vLLM, llama.cpp, Ollama), as factdebate's ``openai:`` models are."""
    base_url = os.environ.get("OPENAI_BASE_URL", "").strip()
    if not base_url:
        return
    for model in app.config.models:
        if model.engine == "openai" and not (model.parameters or {}).get("base_url"):
            model.parameters = {**(model.parameters or {}), "base_url": base_url}
