"""Telegram's Bot API, scripted on loopback, for OpenClaw's Telegram channel in tests/server/guard/test_openclaw.py:
the one part of the channel path that cannot be reached offline is the chat service itself, so this plays it.
OpenClaw's channel (its grammY client, pointed here by ``channels.telegram.apiRoot``) polls ``getUpdates`` for what
users write and calls ``sendMessage``, ``editMessageText`` and ``deleteMessage`` on their chats; this keeps each
chat as a Telegram client would show it (HTML parse mode rendered to its text), and every text that was ever on
screen. Other methods (``getMe``, ``setMyCommands``, ``sendChatAction``, ...) are answered as Telegram answers
them, with nothing kept."""

from __future__ import annotations

import contextlib
import html
import json
import re
import threading
import time
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT_ID = 123456789
TOKEN = f"{BOT_ID}:factdebate-test-token"  # Telegram's shape (<bot id>:<secret>), which OpenClaw checks
_BOT = {"id": BOT_ID, "is_bot": True, "first_name": "factdebate test", "username": "factdebate_test_bot"}
_CHATTER = ("getUpdates", "sendChatAction")  # calls made while a run is still going: not a sign it ended
_TAG = re.compile(r"<[^>]+>")


def _rendered(text: str, parse_mode: str | None) -> str:
    """What a Telegram client shows for a message's text: HTML's tags dropped and its entities read."""
    return html.unescape(_TAG.sub("", text)) if parse_mode == "HTML" else text


class BotApi:
    """The scripted Bot API's state: users' messages waiting for ``getUpdates``, and each chat's messages."""

    def __init__(self) -> None:
        self.url = ""
        self._changed = threading.Condition()
        self._updates: list[dict[str, Any]] = []
        self._chats: dict[int, dict[int, str]] = {}  # chat id -> message id -> text shown
        self._ever: dict[int, list[str]] = {}  # chat id -> every text shown, edits and deleted ones included
        self._next_message = 1
        self._last_call = time.monotonic()  # the last call other than _CHATTER

    def say(self, user: int, text: str) -> None:
        """``user`` writes ``text`` to the bot in their private chat (its id is the user's, as on Telegram)."""
        with self._changed:
            update_id = len(self._updates) + 1
            person = {"id": user, "is_bot": False, "first_name": f"user {user}"}
            self._updates.append({"update_id": update_id, "message": {
                "message_id": 100_000 + update_id, "date": int(time.time()), "text": text, "from": person,
                "chat": {**person, "type": "private"}}})
            self._changed.notify_all()

    def chats_when_done(self, users: Iterable[int], quiet_s: float, timeout_s: float) -> dict[int, list[str]]:
        """Each user's chat as shown once every one has a message from the bot and the bot has done nothing but
        poll and type for ``quiet_s`` (a run's last delivery may come after OpenClaw logs it processed)."""
        users = list(users)
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while True:
                now = time.monotonic()
                if all(self._chats.get(u) for u in users) and now - self._last_call >= quiet_s:
                    return {u: list(self._chats[u].values()) for u in users}
                assert now < deadline, f"the bot answered only {self._chats} within {timeout_s} s"
                self._changed.wait(min(quiet_s, deadline - now))

    def ever_shown(self, user: int) -> list[str]:
        """Every text the user's chat showed, in order: sent, edited, later deleted or not."""
        with self._changed:
            return list(self._ever.get(user, []))

    def answer(self, method: str, body: dict[str, Any]) -> Any:
        """The ``result`` Telegram gives for ``method`` called with ``body``."""
        if method not in _CHATTER:
            with self._changed:
                self._last_call = time.monotonic()
        if method == "getMe":
            return {**_BOT, "can_join_groups": False, "can_read_all_group_messages": False,
                    "supports_inline_queries": False}
        if method == "getUpdates":  # long polling: held until a message is waiting or the poll's timeout
            offset = int(body.get("offset") or 0)
            ends = time.monotonic() + min(float(body.get("timeout") or 0), 30)
            with self._changed:
                while not (waiting := [u for u in self._updates if u["update_id"] >= offset]):
                    if time.monotonic() >= ends:
                        break
                    self._changed.wait(ends - time.monotonic())
                return waiting
        if method in ("sendMessage", "editMessageText", "deleteMessage"):
            chat = int(body["chat_id"])
            with self._changed:
                shown = self._chats.setdefault(chat, {})
                if method == "deleteMessage":
                    shown.pop(int(body["message_id"]), None)
                    self._changed.notify_all()
                    return True
                if method == "sendMessage":
                    message_id, self._next_message = self._next_message, self._next_message + 1
                else:
                    message_id = int(body["message_id"])
                shown[message_id] = _rendered(str(body.get("text", "")), body.get("parse_mode"))
                self._ever.setdefault(chat, []).append(shown[message_id])
                self._changed.notify_all()
            return {"message_id": message_id, "date": int(time.time()), "chat": {"id": chat, "type": "private"},
                    "from": _BOT, "text": body.get("text", "")}
        if method == "getMyCommands":
            return []
        return True


class _Handler(BaseHTTPRequestHandler):
    """``POST /bot<token>/<method>`` with a JSON body (grammY's form for text), answered ``{"ok": true, ...}``."""

    protocol_version = "HTTP/1.1"  # grammY keeps its connections alive
    api: BotApi

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw and "json" in self.headers.get("content-type", "") else {}
        token, _, method = self.path.removeprefix("/bot").partition("/")
        if token != TOKEN:
            reply = {"ok": False, "error_code": 401, "description": "Unauthorized"}
        else:
            reply = {"ok": True, "result": self.api.answer(method.split("?")[0], body)}
        data = json.dumps(reply).encode()
        self.send_response(200 if reply["ok"] else 401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):  # the gateway stopped with a poll held open
            self.wfile.write(data)

    do_GET = do_POST

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def bot_api() -> Iterator[BotApi]:
    """The scripted Bot API on a loopback port (its root URL in ``url``) while the block runs."""
    api = BotApi()
    handler = type("Handler", (_Handler,), {"api": api})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True  # a poll held open does not keep the test waiting at the end
    threading.Thread(target=server.serve_forever, daemon=True).start()
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
