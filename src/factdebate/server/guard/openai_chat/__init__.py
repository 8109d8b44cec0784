"""The OpenAI Chat Completions wire: ``door.py`` is the route (``POST /v1/chat/completions``), which reads the
request, makes the one call and writes the answer whole (``answer.py``) or as a stream (``stream.py`` relays,
``chunks.py`` decides each chunk's fate; ``overloaded_*`` when there was no room to check), and
``shed_gate.py`` answers its 503 before the app's middleware when the CPU forecast says so."""
