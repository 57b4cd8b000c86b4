"""A real SMTP server in the test process (aiosmtpd) that keeps every message it receives, and the
settings that point a catsack server at it."""

from __future__ import annotations

import email
import email.policy
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from typing import Any

import pytest


class Sink:
    """The SMTP server's handler: every message accepted, kept in order."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.raw: list[bytes] = []  # each message's bytes as the SMTP server received them
        self.refuse = False  # an outage: answer every message with a temporary failure
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse:
            return "451 4.3.0 try again later"
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        with self.lock:
            self.messages.append(msg)
            self.raw.append(bytes(envelope.content))
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if m["To"] == address]

    def wait(self, pred: Callable[[list[EmailMessage]], Any], what: str, timeout: float = 30.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                got = pred(list(self.messages))
            if got:
                return got
            time.sleep(0.02)
        raise AssertionError(f"no mail: {what}; received {[m['Subject'] for m in self.messages]}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def smtp_sink() -> Iterator[tuple[Sink, int]]:
    """An SMTP server on a free port of 127.0.0.1: ``(sink, port)``."""
    pytest.importorskip("aiosmtpd")
    from aiosmtpd.controller import Controller

    sink = Sink()
    port = _free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield sink, port
    finally:
        controller.stop()


def mail_settings(port: int) -> dict[str, Any]:
    """Settings for a server that mails through the sink at once (no away time, a quick queue)."""
    return {
        "smtp_host": "127.0.0.1",
        "smtp_port": port,
        "smtp_from": "catsack <games@catsack.test>",
        "smtp_starttls": False,
        "mail_poll_seconds": 0.05,
        "mail_away_minutes": 0.0,
        "public_url": "http://testserver",
    }
