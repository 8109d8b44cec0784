"""The guard's doors on the service, one per wire: the OpenAI chat proxy (``openai_chat/``, its door in
``openai_chat/door.py``), LiteLLM's generic guardrail API (``litellm.py``) and the text check
(``text.py``); MCP's tools are ``server/mcp/``'s. Each door reads its request, makes the one call
(guard_engine/call.py through :mod:`factdebate.engine`) and writes its answer. What the doors share sits here: the
OpenAI conversation every door reads (``chat_request.py``), the service as the call's host (``host.py``), the
operator's upstream (``upstream.py``) and the result beside an answer (``result_view.py``)."""
