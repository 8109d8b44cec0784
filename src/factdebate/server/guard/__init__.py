"""The guard's face on the service: reading a chat request, relaying the upstream's reply and writing the
checked answer, with one module per wire format (chat_request, chat_answer, chat_chunks,
overloaded_chunks, revision); the check itself, its policy and its stream policy are the library's,
reached through :mod:`factdebate.facade`."""
