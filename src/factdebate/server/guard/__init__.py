"""The guard's face on the service: reading a chat request, relaying the upstream's reply and writing the
checked answer (the check itself, its policy and its stream policy live in :mod:`factdebate.guard`)."""
