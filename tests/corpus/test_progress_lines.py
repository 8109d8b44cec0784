"""Index progress off a terminal: a line every few seconds with the measured speed and the time left."""

from __future__ import annotations

import io

from rich.console import Console

from factdebate.core.types import Document
from factdebate.corpus.encoding_cost import encoding_costs, encoding_order
from factdebate.corpus.progress import _Stoppable, stage_reporter
from factdebate.util.progress import EVERY_S, WARM_UP_BATCHES, StageLines, TimeLeft, duration


def test_a_build_off_a_terminal_logs_its_progress_and_the_time_left_at_the_measured_speed() -> None:
    out = io.StringIO()
    now = [0.0]
    lines = StageLines(Console(file=out, width=200), clock=lambda: now[0])
    lines.stage("builtin: embeddings", 1000)
    for _ in range(10):  # 10 passages/s, 100 passages a step, 10 s apart
        now[0] += EVERY_S
        lines.advance(100)
    lines.done()
    text = out.getvalue().splitlines()
    assert text[0] == "builtin: embeddings: 1000 passages…"
    # the first batches carry the warm-up: no time left until one came after them
    assert text[1] == "builtin: embeddings: 100 of 1,000 passages (10%), 10.0/s, time left after the warm-up"
    assert all("after the warm-up" in line for line in text[1:1 + WARM_UP_BATCHES])
    assert text[5].startswith("builtin: embeddings: 500 of 1,000 passages (50%)") and "about 50 s left" in text[5]
    assert len(text) == 1 + 9 + 1  # the last batch is the "done" line, not a 100% one
    assert text[-1] == "builtin: embeddings: done in 100.0s"


def test_lines_come_no_more_often_than_the_interval() -> None:
    out = io.StringIO()
    now = [0.0]
    lines = StageLines(Console(file=out, width=200), clock=lambda: now[0])
    lines.stage("s", 10_000)
    for _ in range(100):
        now[0] += EVERY_S / 10
        lines.advance(1)
    assert len(out.getvalue().splitlines()) == 1 + 10


def test_a_pipe_gets_lines_and_durations_read_roughly() -> None:
    with stage_reporter(True, Console(file=io.StringIO())) as report:
        # Wrapped so that every step asks whether the command was interrupted.
        assert isinstance(report, _Stoppable) and isinstance(report._inner, StageLines)
    assert duration(0.2) == "about 1 s" and duration(89) == "about 89 s" and duration(890) == "about 15 min"
    assert duration(94) == "about 90 s" and duration(176) == "about 180 s" and duration(181) == "about 3 min"


def test_the_time_left_follows_the_recent_speed_when_the_encoder_warms_up() -> None:
    """The encoder's speed climbs (5 then 50 passages/s here); an estimate from the average
    since the start said 2.5x the time that was left. From the last interval it is within 1.5x."""
    out = io.StringIO()
    now = [0.0]
    lines = StageLines(Console(file=out, width=200), clock=lambda: now[0])
    total = 10_000
    lines.stage("builtin: embeddings", total)
    done = 0
    while done < total:
        now[0] += 1.0
        step = min(5 if now[0] <= 20 else 50, total - done)
        done += step
        lines.advance(step)
    printed = out.getvalue().splitlines()
    line_at_30 = printed[3]  # stage line, then t=10, t=20, t=30
    assert line_at_30.startswith("builtin: embeddings: 600 of 10,000 passages"), line_at_30
    assert "50.0/s" in line_at_30
    truth = (total - 600) / 50  # 188 s at the speed it kept
    left = line_at_30.split("about ")[1]
    said = float(left.split()[0]) * (60 if " min" in left else 1)
    assert truth / 1.5 <= said <= truth * 1.5, (said, truth)


def test_the_first_batch_which_carries_the_warm_up_gives_no_time_left() -> None:
    """Seen on a busy 2-core machine: a batch of 64 took about 20 s, the first one 30 s with the
    encoder's warm-up, so the first line (one batch, since the start) said 80 minutes for a 38-minute build."""
    out = io.StringIO()
    now = [0.0]
    lines = StageLines(Console(file=out, width=200), clock=lambda: now[0])
    total = 64 * 100
    lines.stage("builtin: embeddings", total)
    for batch in range(100):
        now[0] += 30.0 if batch == 0 else 10.0
        lines.advance(64)
    printed = out.getvalue().splitlines()
    assert printed[1].startswith("builtin: embeddings: 64 of 6,400 passages")
    assert "time left after the warm-up" in printed[1]
    first = next(n for n, line in enumerate(printed) if " left" in line and "warm-up" not in line)
    assert first == WARM_UP_BATCHES + 1  # one batch after the warm-up's
    truth = (total - 64 * first) / 6.4  # 64 passages every 10 s from here on
    assert truth / 1.5 <= _said(printed[first]) <= truth * 1.5, (printed[first], truth)


def _said(line: str) -> float:
    left = line.split("about ")[1]
    return float(left.split()[0]) * (60 if " min" in left else 1)


def test_the_time_left_counts_work_when_passages_go_longest_first() -> None:
    """The encoder takes passages longest first, so its passages/s climbs through the whole
    build (5 -> 50), and a window in passages said 1.9-3.2x the time left in a real build. Here the scripted
    encoder pads each batch to its longest passage and pays per token (its own per-batch cost, not the
    estimator's formula), from 1,100 characters down to 60; every estimate is within 1.5x of the truth while
    a minute or more is left."""
    docs = [Document(id=str(i), title="", text="x" * int(60 + 1040 * (1 - i / 3200) ** 3)) for i in range(3200)]
    ordered = encoding_order(docs)
    batches = [ordered[start:start + 64] for start in range(0, len(ordered), 64)]
    # seconds a batch: a fixed part, then per passage per padded token (about 4.5 characters a token here)
    times = [0.3 + 64 * (0.002 * (max(len(d.text) for d in batch) / 4.5 + 2)) for batch in batches]
    times[0] += 8.0  # the first batch carries the warm-up
    for costs, tolerance in ((encoding_costs(docs, 64), 1.5), (None, None)):
        out = io.StringIO()
        clock = [0.0]
        lines = StageLines(Console(file=out, width=200), clock=lambda c=clock: c[0])  # type: ignore[misc]
        lines.stage("builtin: embeddings", len(docs), costs)
        said_and_true = []
        for number, (batch, seconds) in enumerate(zip(batches, times, strict=True)):
            clock[0] += seconds
            before = len(out.getvalue().splitlines())
            lines.advance(len(batch))
            printed = out.getvalue().splitlines()
            if len(printed) > before and " left" in printed[-1] and "after the warm-up" not in printed[-1]:
                said_and_true.append((_said(printed[-1]), sum(times[number + 1:])))
        assert len(said_and_true) >= 5
        ratios = [said / true for said, true in said_and_true if true >= 60]  # "about 40 s" for 25 is fine
        if tolerance:
            assert all(1 / tolerance <= r <= tolerance for r in ratios), str([round(r, 2) for r in ratios])
        else:  # counted in passages, the first estimates say far too much: why the costs are passed
            assert ratios[0] > 2, ratios


def test_time_left_waits_for_a_batch_after_the_warm_up_and_costs_of_the_wrong_length_count_one_each() -> None:
    left = TimeLeft(4, [1.0, 1.0, 3.0, 3.0], now=0.0, warm_up=1)
    left.advance(1, now=5.0)
    assert left.seconds(5.0) is None  # the first batch alone: the warm-up
    left.advance(1, now=6.0)
    assert left.seconds(6.0) == 6.0  # 1 unit a second since the first batch, 6 units left
    uncounted = TimeLeft(4, [1.0], now=0.0, warm_up=1)  # not one cost per passage: passages count instead
    uncounted.advance(2, now=2.0)
    uncounted.advance(1, now=3.0)
    assert uncounted.seconds(3.0) == 1.0
