"""util/bounded_body.py on its own: a gzip bomb stops at the limit, lines split across pieces, a line over its
limit and a Content-Length that is no length."""

from __future__ import annotations

import asyncio
import zlib

import pytest

from factdebate.util.bounded_body import (
    MIB,
    AnswerTooLarge,
    AnswerTooSlow,
    Deadline,
    Decoder,
    Lines,
    declared_too_large,
    read_async,
    size_words,
)
from tests.hostile_server import bomb


def test_a_gzip_bomb_stops_at_the_limit_having_made_no_more_than_it() -> None:
    decoder = Decoder("gzip", MIB, "the answer")
    body = bomb()
    made = 0
    with pytest.raises(AnswerTooLarge, match="the answer is larger than 1 MiB"):
        for start in range(0, len(body), 65536):
            made += len(decoder.decode(body[start:start + 65536]))
    assert made <= MIB


def test_a_compressed_body_within_the_limit_comes_out_whole() -> None:
    text = b'{"choices": []}' * 1000
    squeezer = zlib.compressobj(wbits=31)
    body = squeezer.compress(text) + squeezer.flush()
    decoder = Decoder("gzip", len(text), "the answer")
    assert b"".join(decoder.decode(body[i:i + 7]) for i in range(0, len(body), 7)) + decoder.flush() == text


def test_lines_split_across_pieces_whatever_their_size() -> None:
    lines = Lines(100, "the stream")
    out: list[bytes] = []
    for byte in b"data: one\r\n\r\ndata: two\n":
        out += lines.feed(bytes([byte]))
    assert out == [b"data: one", b"", b"data: two"]
    assert lines.feed(b"tail") == [] and lines.rest() == b"tail" and lines.rest() is None


def test_a_line_longer_than_its_limit_raises_before_it_ends() -> None:
    lines = Lines(1000, "the stream")
    with pytest.raises(AnswerTooLarge, match="a line of the stream is larger than 1000 bytes"):
        for _ in range(100):
            lines.feed(b"x" * 64)


@pytest.mark.parametrize("length", ["-5", "1e3", "12, 13", "\u00b2", " "])
def test_a_content_length_that_is_no_whole_number_is_a_broken_answer(length: str) -> None:
    with pytest.raises(ConnectionError, match="Content-Length"):
        declared_too_large(length, MIB, "the answer")


def test_a_declared_length_over_the_limit_is_refused_before_any_byte() -> None:
    declared_too_large("1048576", MIB, "the answer")
    with pytest.raises(AnswerTooLarge):
        declared_too_large("1000000000000", MIB, "the answer")


async def test_a_body_that_trickles_under_every_read_timeout_ends_at_its_deadline() -> None:
    async def trickle() -> object:
        while True:
            await asyncio.sleep(0.05)
            yield b" "

    started = asyncio.get_running_loop().time()
    with pytest.raises(AnswerTooSlow, match=r"the answer did not end within 0\.3 s"):
        await read_async(trickle(), "", MIB, Deadline(0.3, "the answer"))  # type: ignore[arg-type]
    assert asyncio.get_running_loop().time() - started < 2


def test_sizes_read_as_people_write_them() -> None:
    sizes = (4 * MIB, 7447 * 1024, 64 * 1024, 900)
    assert [size_words(n) for n in sizes] == ["4 MiB", "7.3 MiB", "64 KiB", "900 bytes"]
