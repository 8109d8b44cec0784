"""Answers from other servers read within a size and a time limit, whichever client carries them.

A broken or hostile server can send a body with no end, trickle a byte under every per-read timeout, or send
a gzip bomb although ``identity`` was asked. Each read here counts bytes after decoding, stops at a limit and
holds the whole answer to a deadline; lines (an SSE stream's) are split in linear time, each held to a limit.
The failures, :class:`AnswerTooLarge` (an ``OSError``) and :class:`AnswerTooSlow` (a ``TimeoutError``), say
what was exceeded in words a caller may read."""

from __future__ import annotations

import time
import zlib
from collections.abc import AsyncIterator, Iterator

KIB = 1024
MIB = 1024 * KIB


def size_words(limit: int) -> str:
    """``limit`` bytes as a person reads it (``4 MiB``, ``7.1 MiB``, ``64 KiB``, ``900 bytes``)."""
    if limit >= MIB:
        return f"{limit / MIB:.1f}".removesuffix(".0") + " MiB"
    if limit >= KIB:
        return f"{limit / KIB:.1f}".removesuffix(".0") + " KiB"
    return f"{limit} bytes"


class AnswerPastLimit(OSError):
    """An answer cut off at one of its limits: :class:`AnswerTooLarge` or :class:`AnswerTooSlow`."""


class AnswerTooLarge(AnswerPastLimit):
    """An answer (or one line of it) longer than its limit: reading stopped there and the connection is closed."""

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"{what} is larger than {size_words(limit)}")
        self.limit = limit


class AnswerTooSlow(AnswerPastLimit, TimeoutError):
    """An answer that did not end within its deadline, however steadily its bytes came."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what} did not end within {seconds:g} s")
        self.seconds = seconds


class Decoder:
    """A body's ``Content-Encoding`` undone a piece at a time, zlib's ``max_length`` stopping a bomb at ``limit``."""

    def __init__(self, encoding: str, limit: int, what: str) -> None:
        coding = encoding.lower().strip()
        self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 32) if coding in ("gzip", "x-gzip") else \
            zlib.decompressobj() if coding == "deflate" else None
        self.left, self.limit, self.what = limit, limit, what

    def _counted(self, data: bytes) -> bytes:
        self.left -= len(data)
        if self.left < 0:
            raise AnswerTooLarge(self.what, self.limit)
        return data

    def decode(self, data: bytes) -> bytes:
        return b"".join(self.pieces(data))

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """``data`` decoded, a mebibyte at most a piece, so a reader that stops early inflated no more."""
        if self._zlib is None:
            yield self._counted(data)
            return
        while data:
            try:
                out = self._zlib.decompress(data, min(self.left + 1, MIB))
            except zlib.error as exc:
                raise ConnectionError(f"a compressed body that does not decode: {exc}") from exc
            data = self._zlib.unconsumed_tail
            if out:
                yield self._counted(out)
            elif data:  # nothing came out of what is left: it waits for more input
                break

    def flush(self) -> bytes:
        return self._counted(self._zlib.flush(self.left + 1)) if self._zlib is not None else b""


class Lines:
    """Bytes fed as they arrive, whole lines out (``\\r`` removed), each byte looked at once (joining a growing
    line per piece is quadratic); a line longer than ``limit`` raises."""

    def __init__(self, limit: int, what: str) -> None:
        self._pending = bytearray()
        self.limit, self.what = limit, what

    def feed(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            self._pending += data[start:end]
            self._check()
            line = bytes(self._pending)
            self._pending.clear()
            lines.append(line[:-1] if line.endswith(b"\r") else line)
            start = end + 1
        self._pending += data[start:]
        self._check()
        return lines

    def rest(self) -> bytes | None:
        """What came after the last line end (the body ended without one); None when nothing did."""
        if not self._pending:
            return None
        line = bytes(self._pending)
        self._pending.clear()
        return line[:-1] if line.endswith(b"\r") else line

    def _check(self) -> None:
        if len(self._pending) > self.limit:
            raise AnswerTooLarge(f"a line of {self.what}", self.limit)


class Deadline:
    """The moment an answer must have ended by (``time.monotonic()``), and what is left of it for each read."""

    def __init__(self, seconds: float, what: str) -> None:
        self.seconds, self.what = seconds, what
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left; :class:`AnswerTooSlow` once there are none."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise AnswerTooSlow(self.what, self.seconds)
        return left


async def lines_async(pieces: AsyncIterator[bytes], line_limit: int, what: str) -> AsyncIterator[str]:
    """The lines of a body arriving as ``pieces`` (decoded), each at most ``line_limit`` bytes, as UTF-8 text."""
    splitter = Lines(line_limit, what)
    async for data in pieces:
        for line in splitter.feed(data):
            yield line.decode("utf-8", "replace")
    if (rest := splitter.rest()) is not None:
        yield rest.decode("utf-8", "replace")
