"""Index progress off a terminal: a line every few seconds with the measured speed and the time left."""

from __future__ import annotations

import io

from rich.console import Console

from factdebate.corpus.progress import LINE_EVERY_S, _Lines, duration, stage_reporter


def test_a_build_off_a_terminal_logs_its_progress_and_the_time_left_at_the_measured_speed() -> None:
    out = io.StringIO()
    now = [0.0]
    lines = _Lines(Console(file=out, width=200), clock=lambda: now[0])
    lines.stage("builtin: embeddings", 1000)
    for _ in range(10):  # 10 passages/s, 100 passages a step, 10 s apart
        now[0] += LINE_EVERY_S
        lines.advance(100)
    lines.done()
    text = out.getvalue().splitlines()
    assert text[0] == "builtin: embeddings: 1000 passages…"
    # one batch so far, which carried the warm-up: no time left until the next (issue 50)
    assert text[1] == "builtin: embeddings: 100 of 1,000 passages (10%), 10.0/s, time left after the next batch"
    assert text[2].startswith("builtin: embeddings: 200 of 1,000 passages (20%)") and "about 80 s left" in text[2]
    assert len(text) == 1 + 9 + 1  # the last batch is the "done" line, not a 100% one
    assert text[-1] == "builtin: embeddings: done in 100.0s"


def test_lines_come_no_more_often_than_the_interval() -> None:
    out = io.StringIO()
    now = [0.0]
    lines = _Lines(Console(file=out, width=200), clock=lambda: now[0])
    lines.stage("s", 10_000)
    for _ in range(100):
        now[0] += LINE_EVERY_S / 10
        lines.advance(1)
    assert len(out.getvalue().splitlines()) == 1 + 10


def test_a_pipe_gets_lines_and_durations_read_roughly() -> None:
    with stage_reporter(True, Console(file=io.StringIO())) as report:
        assert isinstance(report, _Lines)
    assert duration(0.2) == "about 1 s" and duration(89) == "about 89 s" and duration(890) == "about 15 min"


def test_the_time_left_follows_the_recent_speed_when_the_encoder_warms_up() -> None:
    """Issue 50, item 2: the encoder's speed climbs (5 then 50 passages/s here); an estimate from the average
    since the start said 2.5x the time that was left. From the last interval it is within 1.5x."""
    out = io.StringIO()
    now = [0.0]
    lines = _Lines(Console(file=out, width=200), clock=lambda: now[0])
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
    """Seen on a busy 2-core machine (issue 50): a batch of 64 took about 20 s, the first one 30 s with the
    encoder's warm-up, so the first line (one batch, since the start) said 80 minutes for a 38-minute build."""
    out = io.StringIO()
    now = [0.0]
    lines = _Lines(Console(file=out, width=200), clock=lambda: now[0])
    total = 64 * 100
    lines.stage("builtin: embeddings", total)
    for batch in range(100):
        now[0] += 30.0 if batch == 0 else 10.0
        lines.advance(64)
    printed = out.getvalue().splitlines()
    assert printed[1].startswith("builtin: embeddings: 64 of 6,400 passages") and "at this speed" not in printed[1]
    assert "time left after the next batch" in printed[1], printed[1]
    truth = (total - 128) / 6.4  # 64 passages every 10 s from here on
    left = printed[2].split("about ")[1]
    said = float(left.split()[0]) * (60 if " min" in left else 1)
    assert truth / 1.5 <= said <= truth * 1.5, (printed[2], truth)
