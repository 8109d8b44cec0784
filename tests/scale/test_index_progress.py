"""The driver's progress lines: the pace counts this run's work only, and the time left comes from
documents where shards know their size, from shards where they do not."""

from __future__ import annotations

import io

from rich.console import Console

from factdebate.corpus.shards import Shard
from factdebate.util.progress import ShardLines, short_duration


def test_the_time_left_comes_from_this_runs_pace() -> None:
    shards = [Shard("/a.jsonl", "jsonl", 1 + 10 * n, 11 + 10 * n, documents=10) for n in range(3)] + [
        Shard("/a.jsonl", "jsonl", 31, 61, documents=30)]
    out = io.StringIO()
    progress = ShardLines("big", shards, {shards[0].key: {}}, Console(file=out, width=200))
    progress.starting(resumed=True, replaced=False, workers=2)
    progress.shard_done({"shard": shards[1].key, "passages": 25})
    # 10 of this run's documents in 10 s, 40 left: 40 s, whatever the earlier run did
    assert progress.line(10.0) == "2/4 shards, 25 passages, 2.5 passages/s, about 40s left"
    text = out.getvalue()
    assert "4 shards (60 documents) on 2 Ray workers" in text and "resuming: 1 shards were written" in text


def test_shards_of_unknown_size_are_counted_as_shards() -> None:
    shards = [Shard(f"/{n}.csv", "csv") for n in range(4)]
    progress = ShardLines("csv", shards, {}, None)
    progress.shard_done({"shard": shards[0].key, "passages": 10})
    assert progress.eta(5.0) == 15.0 and short_duration(3725) == "1h02m" and short_duration(75) == "1m15s"
