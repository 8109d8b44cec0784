"""What the checks of one conversation share: settled verdicts, and the method's evidence memory scope.

Keyed by (caller, conversation id), so two API keys that send the same id share nothing. In process and
bounded (least recently used dropped): a restarted guard starts afresh, which costs calls, never correctness."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from factdebate.guard_engine.types import GuardClaim

MOST_CONVERSATIONS = 512
MOST_VERDICTS = 256  # per conversation


@dataclass
class Conversation:
    scope: str  # the method's caller scope (MERMAID: the memory namespace suffix)
    verdicts: OrderedDict[tuple[str, ...], GuardClaim] = field(default_factory=OrderedDict)

    def recall(self, key: tuple[str, ...]) -> GuardClaim | None:
        found = self.verdicts.get(key)
        if found is not None:
            self.verdicts.move_to_end(key)
        return found

    def keep(self, key: tuple[str, ...], claim: GuardClaim) -> None:
        self.verdicts[key] = claim
        while len(self.verdicts) > MOST_VERDICTS:
            self.verdicts.popitem(last=False)


_conversations: OrderedDict[tuple[str, str], Conversation] = OrderedDict()
_lock = threading.Lock()


def conversation(caller: str | None, conversation_id: str | None) -> Conversation | None:
    """The shared state of ``conversation_id`` for ``caller`` (None without an id)."""
    if conversation_id is None:
        return None
    key = (caller or "", conversation_id)
    with _lock:
        found = _conversations.get(key)
        if found is None:
            scope = "conv-" + hashlib.sha256("\0".join(key).encode()).hexdigest()[:20]
            found = _conversations[key] = Conversation(scope=scope)
        _conversations.move_to_end(key)
        while len(_conversations) > MOST_CONVERSATIONS:
            _conversations.popitem(last=False)
        return found
