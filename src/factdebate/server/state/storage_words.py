"""A storage failure as a caller reads it: the library notes which part of the service's storage could not
write and why (``STORAGE``, with the file or server in its reason); a caller is told only what kind of
failure it was."""

from __future__ import annotations


def public_reason(reason: str) -> str:
    """What a caller is told of a storage failure: what kind it is, never the file or server it was on."""
    lowered = reason.lower()
    if "full" in lowered or "no space" in lowered or "quota" in lowered:
        return "the service's disk is full"
    if "read-only" in lowered or "readonly" in lowered:
        return "the service's storage is read-only"
    return "the service's storage cannot be written"
