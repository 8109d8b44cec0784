"""``GET /v1/health`` while the guard checks a chat of many short messages (a 50,000-message chat
once stalled health for 2-7 s). The service (scripted checker models) runs in threads of this process, as
the tests run it, the scripted upstream and the chat's client in processes of their own (a client in this
process would hold its interpreter lock while it writes the request's JSON, 0.17 s for 50,000 messages, which
is the benchmark's time, not the service's); health is asked every 20 ms from the start of the chat request to
its end, and the slowest answers are printed, with the chat request's own time.

    PYTHONPATH=. python benchmarks/guard_health_load.py [--messages 50000] [--stream]   # --messages 2: the floor
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

GOAL_MS = 100  # /v1/health under 100 ms while a 50,000-message chat is checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--stream", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    from tests.server.conftest import KEY, LiveServer, free_port
    from tests.server.guard_support import scripted_checker_app

    with tempfile.TemporaryDirectory() as folder:
        # The upstream in a process of its own, as a real one is: in this one its reading of the long request
        # would hold this process's interpreter lock, and the service's loop with it.
        port = free_port()
        upstream = subprocess.Popen([sys.executable, "-m", "tests.server.guard_support", "--port", str(port)])
        os.environ["FACTDEBATE_GUARD__UPSTREAM"] = f"http://127.0.0.1:{port}/v1"
        for _ in range(300):  # until the upstream answers
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        server = LiveServer(scripted_checker_app(Path(folder), [KEY])).__enter__()
        messages = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"message {n}"}
                    for n in range(args.messages - 1)] + [{"role": "user", "content": "Tell me about Paris."}]
        body = {"model": "m", "messages": messages, "stream": args.stream,
                "factdebate": {"tier": "fast", "method": "single"}}
        headers = {"Authorization": f"Bearer {KEY}"}
        waits: list[float] = []
        done = threading.Event()
        outcome: list[str] = []

        request = Path(folder) / "chat.json"
        request.write_text(json.dumps(body))
        client_code = ("import httpx, sys, time; body = open(sys.argv[1], 'rb').read(); t = time.perf_counter(); "
                       "r = httpx.post(sys.argv[2], content=body, headers={'Authorization': sys.argv[3], "
                       "'Content-Type': 'application/json'}, timeout=300); "
                       "p = '' if r.status_code == 200 else ': ' + r.text[:300]; "
                       "print(f'chat: {r.status_code} in {time.perf_counter() - t:.2f} s ({len(r.content)} bytes){p}')")

        def chat() -> None:
            sent = subprocess.run([sys.executable, "-c", client_code, str(request),
                                   f"{server.url}/v1/chat/completions", headers["Authorization"]],
                                  capture_output=True, text=True, check=False)
            outcome.append((sent.stdout or sent.stderr).strip())
            done.set()

        with httpx.Client(timeout=60) as client:
            client.get(f"{server.url}/v1/health")
            thread = threading.Thread(target=chat)
            thread.start()
            while not done.is_set():
                started = time.perf_counter()
                client.get(f"{server.url}/v1/health")
                waits.append(time.perf_counter() - started)
                time.sleep(0.02)
            thread.join()
        server.__exit__()
        upstream.terminate()
        upstream.wait(timeout=30)
    waits.sort()
    slowest = waits[-1] * 1000
    print(f"a chat of {args.messages:,} messages, {'streamed' if args.stream else 'plain'}; machine load (1 min) "
          f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(outcome[0])
    print(f"health asked {len(waits)} times: median {statistics.median(waits) * 1000:.0f} ms, "
          f"slowest {', '.join(f'{w * 1000:.0f}' for w in waits[-5:])} ms")
    # The goal holds only where the machine is idle: --messages 2 measures what health costs here at all.
    print(f"goal (every health answer under {GOAL_MS} ms): {'MET' if slowest < GOAL_MS else 'NOT MET'} "
          f"(slowest {slowest:.0f} ms)")


if __name__ == "__main__":
    main()
