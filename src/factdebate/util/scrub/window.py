"""The scrub of a text that arrives in pieces (a streamed answer, a tool call's arguments): what the caller will
read, scrubbed as the caller will read it, over a window that spans the pieces.

A stream scrubbed piece by piece hands a caller a key written three characters a piece whole: no piece holds
it. :class:`ScrubWindow` holds back the end of what came that could still become part of a secret, a host or a
key-shaped token once more comes: the run after the last character that no such token holds (whitespace, or a
letter beyond ASCII that no held value has), with a ``Bearer``/``Basic`` just before it (the credential after
one is masked only with it), and the start of a held value that holds whitespace (a password with a space).
What comes before that is released, scrubbed (:func:`~factdebate.util.scrub.text.scrub_known` unless told
otherwise). :meth:`ScrubWindow.flush` releases the rest, at a boundary that will see no more text (the end of the
answer, before the chunk that ends it).

A secret written in two halves with text between them (:class:`~factdebate.util.scrub.forms.Halves`) is
masked as one text holding both would be: the window remembers each half it has seen (before the scrub, which
may mask a key-shaped first half by its shape alone) in :class:`SeenHalves`, one for the whole answer, and masks
a half once the other is known; a half whose other half has not come yet waits, with what follows it, for it.
A half alone leaves the window unmasked, at :meth:`ScrubWindow.flush` or once it is further back than the
bound below (its other half, if that comes later, is still masked).

What is held back is bounded: an unbroken run longer than :data:`MOST_HELD` characters (or twice the longest
form of a held value, if that is more) is scrubbed whole and released but for its last :data:`KEPT` characters,
which stay to be scrubbed with what follows (a held value that straddles the cut is then seen whole).
Releasing costs a bounded amount per piece: the run is found from the piece's end, never by reading the held
text again."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from factdebate.util.scrub.forms import Halves, halves_in, pattern, stream_terms
from factdebate.util.scrub.text import scrub_known
from factdebate.util.scrub.vocabulary import MASK

MOST_HELD = 4096  # an unbroken run of text held back at most (no key, host or encoded secret is this long)
KEPT = 256  # of a run released at the bound, the end held on to (longer than any key a provider issues)
_SCHEMES = ("Bearer ", "bearer ", "Basic ")  # the scrub masks what follows these only with them before it


@lru_cache(maxsize=16)
def _run(letters: str) -> re.Pattern[str]:
    """A token's characters from the start of a reversed text: printable ASCII, and any other letter that a held
    value holds (the characters a key-shaped pattern's case-blind match may take: Kelvin's K, the long s)."""
    return re.compile(f"[!-~\u017f\u212a{re.escape(letters)}]*")


def _run_length(piece: str, letters: str) -> int:
    """The characters at the end of ``piece`` that a token may hold, read from the end (at C speed)."""
    found = _run(letters).match(piece[::-1])
    return found.end() if found is not None else 0


class SeenHalves:
    """The halves of held secrets that one answer has shown so far, whichever of its texts showed them: a half
    is masked in what goes out after its other half has been seen."""

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def see(self, text: str, halves: Halves) -> None:
        """Remember the halves ``text`` holds (``text`` as it came, before any scrub)."""
        self._seen |= halves_in(text, halves)

    def unpaired(self, halves: Halves) -> list[str]:
        """The halves seen whose other half has not been."""
        return [h for h in self._seen if not halves.partners.get(h, frozenset()) & self._seen]

    def mask(self, text: str, halves: Halves) -> str:
        """``text`` with every half whose other half has been seen masked."""
        if not self._seen:  # as in most answers: nothing to look for
            return text
        others = {other for half in self._seen for other in halves.partners.get(half, ())}
        both = frozenset(h for h in others if h in text)
        return pattern(both, False).sub(MASK, text) if both else text


class ScrubWindow:
    """``feed`` each piece of a text as it comes (the text to show now back, scrubbed); ``flush`` at the end.
    ``seen``: the halves the answer's other texts have shown (one answer's windows share it)."""

    def __init__(self, clean: Callable[[str], str] = scrub_known, seen: SeenHalves | None = None) -> None:
        self._clean = clean
        self._held = ""
        self._run = 0  # the unbroken run at the end of what is held, in characters
        self._seen = SeenHalves() if seen is None else seen

    @property
    def held(self) -> str:
        """What is held back, unscrubbed."""
        return self._held

    def feed(self, piece: str) -> str:
        """The text that may be shown now, scrubbed: all that came so far but what could still become part of
        something the scrub masks."""
        if not piece:
            return ""
        terms = stream_terms()
        text = self._held + piece
        # Only where a half may end within the new piece: what was held before has been looked at.
        self._seen.see(text[max(0, len(self._held) - terms.longest):], terms.halves)
        run = _run_length(piece, terms.letters)
        self._run = run + self._run if run == len(piece) else run
        bound = max(MOST_HELD, 2 * terms.longest)
        if self._run > bound:
            return self._release_at_bound(text, max(KEPT, terms.longest), terms.halves)
        cut = _held_from(text, len(text) - self._run, terms.spaced)
        cut = self._before_unpaired(text, cut, max(0, len(text) - bound), terms.halves)
        self._held = text[cut:]
        return self._shown(text[:cut], terms.halves) if cut else ""

    def flush(self) -> str:
        """All that is held, scrubbed: nothing more comes."""
        text, self._held, self._run = self._held, "", 0
        return self._shown(text, stream_terms().halves) if text else ""

    def _shown(self, text: str, halves: Halves) -> str:
        return self._seen.mask(self._clean(text), halves)

    def _before_unpaired(self, text: str, cut: int, start: int, halves: Halves) -> int:
        """``cut``, or earlier: where a half whose other half has not come yet starts, if one starts before
        ``cut`` and not before ``start`` (the bound: further back, it goes out as it is)."""
        for half in self._seen.unpaired(halves):
            at = text.find(half, start, cut + len(half) - 1)
            if at != -1:
                cut = min(cut, at)
        return cut

    def _release_at_bound(self, text: str, kept: int, halves: Halves) -> str:
        """A run past the bound: scrubbed whole (a value inside it is seen whole), then all but its last ``kept``
        characters released; those are scrubbed again with what follows (scrubbing is idempotent)."""
        shown = self._shown(text, halves)
        cut = max(0, len(shown) - kept)
        self._held = shown[cut:]
        self._run = len(self._held)  # held back as one run: at most ``kept`` characters of it
        return shown[:cut]


def _held_from(text: str, cut: int, spaced: tuple[str, ...]) -> int:
    """Where the held-back end of ``text`` starts, given where its last unbroken run starts (``cut``): earlier
    by a ``Bearer``/``Basic`` before it, and by the start of a held value with whitespace in it that a cut there
    would split (one that ``text`` ends within, or one whole that ends past ``cut``)."""
    for scheme in _SCHEMES:
        if text.endswith(scheme, 0, cut):
            cut -= len(scheme)
            break
    for form in spaced:
        at = text.find(form[0], max(0, cut - len(form) + 1), cut)
        while at != -1:
            if form.startswith(text[at:at + len(form)]):
                return min(cut, _held_from(text, at, ()))  # a scheme before the value holds it too
            at = text.find(form[0], at + 1, cut)
    return cut
