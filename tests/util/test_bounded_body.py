"""util/bounded_body.py on its own: a gzip bomb stops at the limit, lines split across pieces, a line over its
limit."""

from __future__ import annotations

import zlib

import pytest

from factdebate.util.bounded_body import (
    MIB,
    AnswerTooLarge,
    Decoder,
    Lines,
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


def test_sizes_read_as_people_write_them() -> None:
    sizes = (4 * MIB, 7447 * 1024, 64 * 1024, 900)
    assert [size_words(n) for n in sizes] == ["4 MiB", "7.3 MiB", "64 KiB", "900 bytes"]
