"""Which corpora a caller of the service may search: the built-in one, the operator's configured default, and
those the operator offers (``allowed_corpora`` to every key, ``key_corpora`` to one key).

A corpus is whatever the operator indexed under that name: one tenant's documents, an internal wiki. A
caller who could name any of them would read them through the evidence of its verdicts. The refusal is the
same whether the named corpus exists or not, and it lists only the corpora this caller may search, so it
tells nothing of the others."""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.util.errors import ConfigError

ANY_CORPUS = "*"


class CorpusAccess:
    def __init__(self, searched: Sequence[str], allowed: list[str] | None = None,
                 per_key: dict[str, list[str]] | None = None) -> None:
        """``searched``: the corpora the operator's settings search (``RetrievalSettings.corpora``)."""
        self.shared = list(dict.fromkeys([*searched, *(allowed or [])]))
        self.per_key = {key: list(names) for key, names in (per_key or {}).items()}

    def offered(self, caller: str | None) -> list[str]:
        """The corpora ``caller`` (an API key's id; ``None``: a face without keys) may search."""
        own = self.per_key.get(caller, []) if caller is not None else []
        return [name for name in dict.fromkeys([*self.shared, *own]) if name != ANY_CORPUS]

    def check(self, corpus: str, caller: str | None) -> None:
        own = self.per_key.get(caller, []) if caller is not None else []
        if ANY_CORPUS in self.shared or ANY_CORPUS in own or corpus in self.shared or corpus in own:
            return
        raise ConfigError(f"corpus '{corpus}' is not offered to this caller "
                          f"(offered: {', '.join(self.offered(caller))})")
