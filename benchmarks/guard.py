"""The chat guard's latency, measured through HTTP as a client sees it (``POST /v1/chat/completions``).

A scripted upstream model (tests/server/guard_support.py: a first-token latency, then one word per
``--token-delay``) and scripted checker models answering each call after ``--latency`` seconds, both served
by uvicorn in this process. It reports, as medians over ``--repeats`` alternating runs:

- time to first token through the guard ÷ directly from the upstream (goal ≤ 1.05);
- per tier (fast, standard, deep as the starting tier): seconds from the answer's last token to the chunk that
  carries every verdict, against that tier's critical-path bound, the time the same check takes for the
  answer's last sentence alone (``POST /v1/guard/check``: it cannot start before the last token, and nothing
  can decide it faster than its own chain of calls); goal ≤ 1.2;
- model calls per claim per tier (extraction and corrections included) and the share of claims each tier
  settles (a refuted claim goes up a tier while one is left).

``--hold N`` (default 200; 0 skips it) streams N scripted replies (seeded, 3 to 7 sentences, a quarter of them
false, half opening with a greeting) under ``policy: hold``, and a sample of them under ``flag`` for comparison,
each also directly from the upstream, and reports: refuted sentences shown before their verdict (read with
``X-Factdebate-Verdicts: each``; goal 0 under hold), time to first token under hold ÷ directly (goal ≤ 1.10,
split by whether the reply opens with a sentence that has something to check), and the delay hold adds to each
sentence (when it is shown through the guard minus when it was complete in the direct stream) against the
fast tier's p95 (a sentence checked alone, ``POST /v1/guard/check``, its own seconds).

``--processes`` measures time to first token again with the upstream and ``factdebate serve`` in processes of
their own. ``--llama`` repeats the time-to-first-token and fast-tier figures with llama-cpp-python's server
on the shipped SmolLM2 as both the upstream and the checker (one model server doing both, so the seconds are
indicative).

    .venv/bin/python benchmarks/guard.py --repeats 15
    .venv/bin/python benchmarks/guard.py --repeats 1 --hold 200
    .venv/bin/python benchmarks/guard.py --no-scripted --processes --repeats 15
    .venv/bin/python benchmarks/guard.py --no-scripted --llama --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ANSWER = ("Hello there! Paris is the capital of France. The Louvre is a museum in Paris. "
          "The Eiffel Tower is in Rome. The Seine flows through Paris.")
QUESTION = [{"role": "user", "content": "Tell me about Paris."}]
TIERS = ("fast", "standard", "deep")
_SENTENCE = re.compile(r"[^.!?]*[A-Za-z][^.!?]*[.!?]")
MAX_TOKENS = 64  # the real model's answers stay short (the scripted upstream ignores it)


def responder() -> Any:
    """tests/guard/support.py's checker (Rome is refuted at every tier, the rest supported), with claims that
    are the sentences of the text given, so a streamed answer's parts yield their own claims (asked apart or in
    the fast tier's window call)."""
    from tests.guard.support import extracting_by

    def extracted(prompt: str) -> str:
        text = prompt.split("\nText:\n", 1)[-1].rsplit("\n\nReply with", 1)[0]
        return json.dumps({"claims": [s.strip() for s in _SENTENCE.findall(text) if "Hello" not in s]})

    return extracting_by(extracted)


def ttft(url: str, key: str, options: dict[str, Any] | None = None) -> float:
    body: dict[str, Any] = {"model": "m", "messages": QUESTION, "stream": True, "max_tokens": MAX_TOKENS}
    if options is not None:
        body["factdebate"] = options
    started = time.perf_counter()
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=300,
                      headers={"Authorization": f"Bearer {key}"}) as reply:
        for line in reply.iter_lines():
            if line.startswith("data: {") and '"content": "' in line.replace('":"', '": "') and '"content": ""' \
                    not in line.replace('":"', '": "'):
                return time.perf_counter() - started
    raise RuntimeError("no token came")


def ttfts(direct_url: str, guard_url: str, key: str, args: argparse.Namespace, pairs: int | None = None,
          tier: str = "fast") -> tuple[list[float], list[float]]:
    """Times to first token, direct and through the guard, taken in turns whose order alternates (a model
    server that reuses the previous prompt's cache favours whichever goes second)."""
    direct, through = [], []
    for number in range(pairs or args.repeats):
        pair = [lambda: direct.append(ttft(direct_url, key)),
                lambda: through.append(ttft(guard_url, key, {"tier": tier, "method": args.method}))]
        for take in pair if number % 2 else reversed(pair):
            take()
    return direct, through


def streamed(url: str, key: str, options: dict[str, Any]) -> tuple[float, dict[str, Any], list[tuple[str, float]]]:
    """(seconds from the last token to the verdicts' chunk, the factdebate object, each sentence with how many
    seconds before the last token it was complete: followed by a space, or the answer's end for the last)."""
    body = {"model": "m", "messages": QUESTION, "stream": True, "max_tokens": MAX_TOKENS, "factdebate": options}
    last, text, arrivals = 0.0, "", list[tuple[int, float]]()
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=600,
                      headers={"Authorization": f"Bearer {key}"}) as reply:
        for line in reply.iter_lines():
            if not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            if "factdebate" in chunk:
                done = time.perf_counter() - last
                ready = []
                for match in _SENTENCE.finditer(text):
                    end = match.end() + 1  # the space after it
                    when = next((t for length, t in arrivals if length >= end), last)
                    ready.append((match.group().strip(), last - when))
                return done, chunk["factdebate"], ready
            content = "".join((c.get("delta") or {}).get("content") or "" for c in chunk.get("choices") or [])
            if content:
                last = time.perf_counter()
                text += content
                arrivals.append((len(text), last))
    raise RuntimeError(f"no verdicts came: {reply.status_code}")


def alone(url: str, key: str, text: str, options: dict[str, Any]) -> float:
    """Seconds the check of ``text`` alone takes, as the check itself counts them (``usage.seconds``: from its
    start to its verdicts, without the request around it)."""
    reply = httpx.post(f"{url}/v1/guard/check", json={"text": text, "question": QUESTION[0]["content"],
                                                      "factdebate": options},
                       headers={"Authorization": f"Bearer {key}"}, timeout=600)
    reply.raise_for_status()
    return float(reply.json()["usage"]["seconds"])


def guard_app(work: Path, upstream_url: str, backend: Any, key: str, *more_keys: str) -> Any:
    from factdebate.server.app import create_app
    from tests.server.conftest import PLAIN, offline_build

    os.environ["FACTDEBATE_GUARD__UPSTREAM"] = upstream_url
    return create_app(api_keys=[key, *more_keys], defaults=PLAIN, db_path=work / "service.sqlite",
                      rate_limit_per_minute=0, claims_per_minute=0,
                      build=lambda settings: offline_build(settings, backend))


def run_tiers(url: str, key: str, repeats: int, method: str) -> list[dict[str, Any]]:
    """Each tier's figures. The bound: every sentence's check, run alone, starting when the sentence was
    complete; the latest of those ends, counted from the last token (a sentence checked faster alone than the
    stream gave it time is no bound; the last sentence always is)."""
    rows = []
    for tier in TIERS:
        options = {"tier": tier, "method": method, "deadline_s": 120}
        after, bound, calls, settled = [], [], [], Counter[str]()
        claims = 0
        for _ in range(repeats):
            seconds, found, ready = streamed(url, key, options)
            after.append(seconds)
            bound.append(max(alone(url, key, sentence, options) - early for sentence, early in ready))
            claims += len(found["claims"])
            calls.append(found["usage"]["model_calls"] / max(1, len(found["claims"])))
            settled.update(c["tier"] or c["status"] for c in found["claims"])
        rows.append({"tier": tier, "after_last_token_s": statistics.median(after),
                     "bound_s": statistics.median(bound),
                     "ratio": statistics.median(a / b for a, b in zip(after, bound, strict=True)),
                     "calls_per_claim": statistics.median(calls),
                     "settled": {name: round(count / claims, 2) for name, count in sorted(settled.items())}})
    return rows


def scripted(args: argparse.Namespace, key: str, work: Path) -> None:
    from factdebate.llm.scripted import ScriptedBackend
    from tests.server.conftest import LiveServer
    from tests.server.guard_support import Upstream, upstream_app

    upstream = Upstream(answer=ANSWER, latency=args.first, token_delay=args.token_delay)
    backend = ScriptedBackend(responder(), latency=args.latency, record=False)
    with LiveServer(upstream_app(upstream)) as model, LiveServer(guard_app(work, f"{model.url}/v1", backend,
                                                                           key)) as guard:
        if args.hold:
            hold_figures(args, key, model.url, guard.url, upstream)
        if args.hold_only:
            return
        direct, through = ttfts(model.url, guard.url, key, args)
        print(f"scripted: ttft direct={statistics.median(direct):.4f}s guard={statistics.median(through):.4f}s "
              f"ratio={statistics.median(through) / statistics.median(direct):.3f} "
              f"(upstream first token {args.first}s, {args.token_delay}s a word; checker {args.latency}s a call)")
        for row in run_tiers(guard.url, key, args.repeats, args.method):
            print(f"scripted: tier={row['tier']} after_last_token={row['after_last_token_s']:.3f}s "
                  f"bound={row['bound_s']:.3f}s ratio={row['ratio']:.3f} "
                  f"calls_per_claim={row['calls_per_claim']:.2f} settled={row['settled']}")


TRUE_SENTENCES = ("Paris is the capital of France.", "The Louvre is a museum in Paris.",
                  "The Seine flows through Paris.", "The Eiffel Tower opened in 1889.",
                  "Montmartre is a hill in Paris.", "The Pantheon stands in the Latin Quarter.")
FALSE_SENTENCES = ("The Eiffel Tower is in Rome.", "The Louvre stands in Rome.", "The Seine flows through Rome.",
                   "Notre-Dame is a cathedral in Rome.")
OPENERS = ("Hello there!", "Great question!", "Hi!")
FOOTNOTES = "\n\n---\nFact check:"


def replies(count: int, seed: int = 47) -> list[str]:
    """``count`` scripted replies: 3 to 7 sentences, each false with probability 1/4, half of them opening with
    a greeting (which has nothing to check)."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        said = [rng.choice(FALSE_SENTENCES) if rng.random() < 0.25 else rng.choice(TRUE_SENTENCES)
                for _ in range(rng.randint(3, 7))]
        if rng.random() < 0.5:
            said.insert(0, rng.choice(OPENERS))
        out.append(" ".join(said))
    return out


def timed_stream(url: str, key: str, options: dict[str, Any] | None) -> tuple[list[tuple[float, str, Any]], float]:
    """Every piece of a stream with the seconds since the request when it arrived: ("text", content) and, through
    the guard, ("claim", verdict) and ("result", factdebate); and the time to the first text."""
    body: dict[str, Any] = {"model": "m", "messages": QUESTION, "stream": True, "max_tokens": MAX_TOKENS}
    headers = {"Authorization": f"Bearer {key}"}
    if options is not None:
        body["factdebate"] = options
        headers["X-Factdebate-Verdicts"] = "each"
    events: list[tuple[float, str, Any]] = []
    first = float("nan")
    started = time.perf_counter()
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=300, headers=headers) as reply:
        for line in reply.iter_lines():
            if not line.startswith("data: {"):
                continue
            now = time.perf_counter() - started
            chunk = json.loads(line[6:])
            if "factdebate_claim" in chunk:
                events.append((now, "claim", chunk["factdebate_claim"]))
            if "factdebate" in chunk:
                events.append((now, "result", chunk["factdebate"]))
            content = "".join((c.get("delta") or {}).get("content") or "" for c in chunk.get("choices") or [])
            if content:
                if first != first:  # nan: the first text
                    first = now
                events.append((now, "text", content))
    return events, first


def shown_at(events: list[tuple[float, str, Any]], sentence: str) -> float | None:
    """When ``sentence`` was first whole in the streamed answer (the footnotes after it left out)."""
    text = ""
    for when, kind, item in events:
        if kind != "text":
            continue
        text += item
        if sentence in text.split(FOOTNOTES)[0]:
            return when
    return None


def shown_before_verdict(events: list[tuple[float, str, Any]], reply: str) -> tuple[int, int]:
    """(refuted claims whose sentence was in the answer's text before their verdict came, refuted claims)."""
    early = refuted = 0
    for n, (_, kind, claim) in enumerate(events):
        if kind != "claim" or claim["label"] != "REFUTES":
            continue
        refuted += 1
        span = claim.get("span")
        said = reply[span["start"]:span["end"]] if span else claim["claim"]
        before = "".join(item for _, k, item in events[:n] if k == "text").split(FOOTNOTES)[0]
        early += said in before
    return early, refuted


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def hold_figures(args: argparse.Namespace, key: str, model_url: str, guard_url: str, upstream: Any) -> None:
    """The hold policy over ``args.hold`` scripted replies (and ``flag`` over a sample of them)."""
    options = {"tier": "fast", "method": "single", "policy": "hold", "deadline_s": 60}
    every = replies(args.hold)
    early = refuted = false_said = false_shown = false_supported = unchecked = 0
    ratios: dict[str, list[float]] = {"opens with a greeting": [], "opens with a fact": []}
    # Replies that open with a fact: seconds from the direct first token to that sentence's end (the stream
    # gives no less), and from there to the first token through the guard (the sentence's check).
    completion: list[float] = []
    check_wait: list[float] = []
    added: list[float] = []
    fast: list[float] = []
    for number, reply in enumerate(every):
        upstream.answer = reply
        direct, direct_first = timed_stream(model_url, key, None)
        held, held_first = timed_stream(guard_url, key, options)
        if held[-1][1] != "result" or held[-1][2]["action_taken"] == "blocked":
            raise RuntimeError(f"reply {number}: the stream did not end with its verdicts: {held[-1]}")
        e, r = shown_before_verdict(held, reply)
        early, refuted = early + e, refuted + r
        # Every false sentence, whatever its verdict: was its text shown? (The scripted standard tier supports
        # three of the four false sentences after the fast tier refuted them: a repeat of one shown after that
        # is the check's final word, counted apart.)
        answer = "".join(item for _, kind, item in held if kind == "text").split(FOOTNOTES)[0]
        final = {c["claim"]: c for c in held[-1][2]["claims"]}
        for said in (s for s in FALSE_SENTENCES if s in reply):
            false_said += 1
            if said in answer:
                supported = final.get(said, {}).get("label") == "SUPPORTS"
                false_supported, false_shown = false_supported + supported, false_shown + (not supported)
        unchecked += sum(c["status"] != "checked" for c in held[-1][2]["claims"])
        opener = "opens with a greeting" if reply.startswith(OPENERS) else "opens with a fact"
        ratios[opener].append(held_first / direct_first)
        if opener == "opens with a fact":
            complete = shown_at(direct, _SENTENCE.findall(reply)[0].strip())
            if complete is not None:
                completion.append(complete - direct_first)
                check_wait.append(held_first - complete)
        for sentence in _SENTENCE.findall(reply):
            sentence = sentence.strip()
            if sentence in FALSE_SENTENCES or sentence.startswith(OPENERS):
                continue
            through, alone_at = shown_at(held, sentence), shown_at(direct, sentence)
            if through is not None and alone_at is not None:
                added.append(through - alone_at)
        if number % 4 == 0:  # the fast tier alone, on one sentence of every fourth reply
            checkable = [s.strip() for s in _SENTENCE.findall(reply) if not s.strip().startswith(OPENERS)]
            fast.append(alone(guard_url, key, checkable[0], {"tier": "fast", "method": "single"}))
    sample = every[:args.hold // 4]
    flag_early = flag_refuted = 0
    for reply in sample:
        upstream.answer = reply
        events, _ = timed_stream(guard_url, key, {**options, "policy": "flag"})
        e, r = shown_before_verdict(events, reply)
        flag_early, flag_refuted = flag_early + e, flag_refuted + r
    p95 = percentile(fast, 0.95)
    print(f"hold: {len(every)} replies, {refuted} refuted claims; shown before their verdict: {early} under hold, "
          f"{flag_early} of {flag_refuted} under flag ({len(sample)} of the replies); false sentences (distinct "
          f"per reply) {false_said}, shown under hold while not supported {false_shown}, shown once a later tier "
          f"supported them {false_supported}; claims not checked {unchecked}")
    for opener, values in ratios.items():
        print(f"hold: ttft hold/direct ({opener}, {len(values)} replies): median {statistics.median(values):.3f}, "
              f"p95 {percentile(values, 0.95):.3f}")
    print(f"hold: replies opening with a fact ({len(completion)}): direct first token to the first sentence's end "
          f"median {statistics.median(completion):.3f}s, p95 {percentile(completion, 0.95):.3f}s; from there to the "
          f"first token under hold median {statistics.median(check_wait):.3f}s, "
          f"p95 {percentile(check_wait, 0.95):.3f}s")
    print(f"hold: added delay per sentence shown ({len(added)} sentences): median {statistics.median(added):.3f}s, "
          f"p95 {percentile(added, 0.95):.3f}s; fast tier alone ({len(fast)} sentences): median "
          f"{statistics.median(fast):.3f}s, p95 {p95:.3f}s; added p95 / fast p95 = {percentile(added, 0.95) / p95:.2f}")


def llama(args: argparse.Namespace, key: str, work: Path) -> None:
    from factdebate.llm.llama_cpp import builtin_model_path
    from factdebate.llm.openai_compat import OpenAIBackend
    from tests.server.conftest import LiveServer, free_port

    port = free_port()
    log = (work / "llama.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(builtin_model_path()),
                                "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--model_alias",
                                "smollm2", "--seed", "0"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{url}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"llama.cpp server did not start; see {log.name}")
            time.sleep(0.5)
        backend = OpenAIBackend("smollm2", base_url=f"{url}/v1")
        with LiveServer(guard_app(work, f"{url}/v1", backend, key)) as guard:
            ttfts(url, guard.url, key, args, pairs=1)  # warm-up: the server's first prompt takes seconds more
            direct, through = ttfts(url, guard.url, key, args, pairs=3 * args.repeats)
            print("llama: ttft pairs (s):", " ".join(f"{d:.3f}/{t:.3f}" for d, t in zip(direct, through, strict=True)))
            after, calls, settled = [], [], Counter[str]()
            for _ in range(args.repeats):
                seconds, found, _ = streamed(guard.url, key, {"tier": "fast", "method": args.method,
                                                              "deadline_s": 120})
                after.append(seconds)
                calls.append(found["usage"]["model_calls"] / max(1, len(found["claims"])))
                settled.update(c["tier"] or c["status"] for c in found["claims"])
            print(f"llama: ttft direct={statistics.median(direct):.3f}s guard={statistics.median(through):.3f}s "
                  f"ratio={statistics.median(through) / statistics.median(direct):.3f} "
                  f"after_last_token(fast)={statistics.median(after):.2f}s "
                  f"calls_per_claim={statistics.median(calls):.2f} settled={dict(settled)}")
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def _up(url: str, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError(f"{what} did not start")
        time.sleep(0.2)


def processes(args: argparse.Namespace, key: str, work: Path) -> None:
    """Time to first token with the upstream and the guard each in a process of its own, as they run in use
    (`factdebate serve --guard-upstream`): no thread of the benchmark competes with them for one interpreter."""
    from tests.server.conftest import free_port

    model_port, guard_port = free_port(), free_port()
    model = subprocess.Popen([sys.executable, "-m", "tests.server.guard_support", "--port", str(model_port),
                              "--answer", ANSWER, "--latency", str(args.first), "--token-delay", str(args.token_delay)],
                             cwd=Path(__file__).resolve().parents[1], stderr=subprocess.DEVNULL)
    exe = str(Path(sys.executable).with_name("factdebate"))
    guard = subprocess.Popen([exe, "serve", "--no-auth", "--port", str(guard_port), "--llm",
                              f"scripted:agree@{args.latency}", "--agents", "none,none", "--no-scoring", "--no-cache",
                              "--guard-upstream", f"http://127.0.0.1:{model_port}/v1"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        model_url, guard_url = f"http://127.0.0.1:{model_port}", f"http://127.0.0.1:{guard_port}"
        _up(model_url + "/docs", model, "the scripted model")
        _up(guard_url + "/v1/health", guard, "factdebate serve")
        # The standard tier: with agents none,none it searches nothing, so no index is built meanwhile.
        ttfts(model_url, guard_url, key, args, pairs=1, tier="standard")  # warm-up
        direct, through = ttfts(model_url, guard_url, key, args, pairs=args.repeats, tier="standard")
        print(f"processes: ttft direct={statistics.median(direct):.4f}s guard={statistics.median(through):.4f}s "
              f"ratio={statistics.median(through) / statistics.median(direct):.3f}")
    finally:
        for process in (guard, model):
            process.terminate()
            process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per checker model call")
    parser.add_argument("--first", type=float, default=0.3, help="upstream seconds before the first token")
    parser.add_argument("--token-delay", type=float, default=0.02, help="upstream seconds between words")
    parser.add_argument("--method", default="tool-mad", help="the standard and deep tiers' method")
    parser.add_argument("--llama", action="store_true", help="also against llama.cpp's server (indicative)")
    parser.add_argument("--no-scripted", action="store_true")
    parser.add_argument("--hold", type=int, default=200, help="scripted replies streamed under policy hold "
                        "(0: none)")
    parser.add_argument("--hold-only", action="store_true", help="only the hold figures of the scripted run")
    parser.add_argument("--processes", action="store_true", help="also time to first token with the upstream and "
                        "`factdebate serve` in processes of their own")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    key = "bench-key-0123456789"
    work = Path(tempfile.mkdtemp(prefix="guard-bench-"))
    if not args.no_scripted:
        scripted(args, key, work)
    if args.processes:
        processes(args, key, work)
    if args.llama:
        llama(args, key, work)


if __name__ == "__main__":
    main()
