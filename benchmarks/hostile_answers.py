"""What one broken upstream answer costs the guard: its process's memory (resident now, and its peak) before and
after each misbehaviour of tests/hostile_server.py, how long the caller waited and what it was told, and
``/v1/health``'s latency while the flood is under way.

The guard runs in a process of its own (uvicorn, scripted checker models, the service's default limits:
guard.max_message_chars 100,000, max_choices 4, upstream_timeout_s lowered to ``--timeout``), so its memory is
read from /proc without this script's. Run: ``.venv/bin/python benchmarks/hostile_answers.py``; ``--json``
writes the rows."""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.hostile_server import HostileServer  # noqa: E402

KEY = "bench-key-0123456789"
CHAT = {"model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}],
        "factdebate": {"tier": "fast", "method": "single"}}
KINDS = ("flood", "lying_length", "gzip_bomb", "long_line", "trickle", "trickle_head")


def serve(port: int, upstream: str) -> None:
    """The guard alone in this process (``--serve``)."""
    import uvicorn

    from benchmarks.guard import guard_app, responder
    from factdebate.llm.scripted import ScriptedBackend

    app = guard_app(Path(tempfile.mkdtemp()), upstream, ScriptedBackend(responder(), record=False), KEY)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def memory_mb(pid: int) -> tuple[float, float]:
    """Resident and peak resident memory of ``pid`` in MB (VmRSS, VmHWM)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str) -> None:
    for _ in range(600):
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit("the guard did not start")


def one_kind(kind: str, stream: bool, timeout: float) -> dict[str, Any]:
    with HostileServer(kind, pause=0.2) as upstream:
        port = free_port()
        env = {**os.environ, "FACTDEBATE_GUARD__UPSTREAM_TIMEOUT_S": str(timeout),
               "FACTDEBATE_GUARD__UPSTREAM_STREAM_S": str(timeout * 2), "PYTHONPATH": str(ROOT)}
        guard = subprocess.Popen([sys.executable, __file__, "--serve", "--port", str(port), "--upstream",
                                  upstream.url], env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_ready(url)
            before, _ = memory_mb(guard.pid)
            health: list[float] = []
            done = threading.Event()
            reply: dict[str, Any] = {}

            def ask() -> None:
                started = time.monotonic()
                answer = httpx.post(f"{url}/v1/chat/completions", json={**CHAT, "stream": stream},
                                    headers={"Authorization": f"Bearer {KEY}"}, timeout=120)
                reply.update(seconds=time.monotonic() - started, status=answer.status_code, text=answer.text)
                done.set()

            threading.Thread(target=ask, daemon=True).start()
            with httpx.Client(timeout=10) as client:  # one client: a new one per ask costs tens of ms itself
                while not done.is_set():
                    started = time.monotonic()
                    client.get(f"{url}/v1/health")
                    health.append((time.monotonic() - started) * 1000)
                    time.sleep(0.01)
            now, peak = memory_mb(guard.pid)
            message = reply["text"]
            if '"message":"' in message:
                message = message.split('"message":"', 1)[1].split('"', 1)[0]
            return {"kind": kind, "stream": stream, "status": reply["status"], "seconds": round(reply["seconds"], 2),
                    "said": message[:120], "upstream_sent_mb": round(upstream.sent / 2**20, 1),
                    "rss_before_mb": round(before, 1), "rss_after_mb": round(now, 1), "peak_mb": round(peak, 1),
                    "health_ms_median": round(statistics.median(health), 1) if health else None,
                    "health_ms_max": round(max(health), 1) if health else None, "health_asks": len(health)}
        finally:
            guard.terminate()
            guard.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--upstream", default="", help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=5.0, help="guard.upstream_timeout_s (streams: twice it)")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args()
    if args.serve:
        serve(args.port, args.upstream)
        return
    rows = [one_kind(kind, stream, args.timeout) for kind in KINDS for stream in (False, True)]
    for row in rows:
        print(json.dumps(row))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
