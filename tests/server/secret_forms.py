"""How a held secret may be written by an upstream or a checker that echoes it, and a check, independent of the
scrub's own reckoning, that a text gives none of it away: the secret as it is, URL-encoded (upper- and lower-case
escapes, ``+`` for a space), in hex, and in base64 (both alphabets, padded or not, alone or inside a longer
payload at each of the three byte alignments, short or long)."""

from __future__ import annotations

import base64
import re
from urllib.parse import quote, quote_plus

# Before the secret in a base64 payload: 3, 4 and 5 bytes put it at byte offset 0, 1 and 2 of a base64 group.
PREFIXES = (b"id=", b"key=", b"user:")
SUFFIX = b";n=1"
_RUN = re.compile(r"[A-Za-z0-9+/_-]{4,}")


def _lower_escapes(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), text)


def written(secret: str) -> dict[str, str]:
    """Each way of writing ``secret`` by name."""
    raw = secret.encode("utf-8")
    forms = {"as is": secret, "url": quote(secret, safe=""), "url lower": _lower_escapes(quote(secret, safe="")),
             "url plus": quote_plus(f"say {secret} now", safe=""), "hex": raw.hex(), "HEX": raw.hex().upper(),
             "base64 alone": base64.b64encode(raw).decode(), "base64url alone": base64.urlsafe_b64encode(raw).decode(),
             "base64 unpadded": base64.b64encode(raw).decode().rstrip("=")}
    for k, prefix in enumerate(PREFIXES):
        payload = prefix + raw + SUFFIX
        forms[f"base64 at offset {k}"] = base64.b64encode(payload).decode()
        forms[f"base64url unpadded at offset {k}"] = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    return forms


def gives_away(secret: str, text: str) -> str | None:
    """How ``text`` still gives ``secret`` away, or None: the secret or one of its plain encodings in it, or a
    run of base64 in it that decodes (at any of its four character offsets, either alphabet) to six bytes or more
    of the secret in a row."""
    for name, form in written(secret).items():
        if not name.startswith("base64") and form in text:
            return f"{name}: {form}"
    raw = secret.encode("utf-8")
    pieces = {raw[i:i + 6] for i in range(len(raw) - 5)}
    for run in _RUN.findall(text):
        run = run.replace("-", "+").replace("_", "/")
        for offset in range(4):
            part = run[offset:]
            part = part[:len(part) - len(part) % 4]
            try:
                decoded = base64.b64decode(part)
            except ValueError:
                continue
            if any(piece in decoded for piece in pieces):
                return f"base64 {run!r} decodes to part of it"
    return None
