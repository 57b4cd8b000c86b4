"""A push service in the test process: an HTTP server that receives the server's Web Push requests as
a browser maker's push service would, and browser-side keys that decrypt them.

- :class:`PushDevice`: what a browser holds for one subscription: its P-256 key pair and 16-byte auth
  secret (RFC 8291); :meth:`PushDevice.subscription` is its ``PushSubscription.toJSON()``, and
  :meth:`PushDevice.decrypt` opens an ``aes128gcm`` body (RFC 8188) with the private key, as the
  browser does (``http_ece``, the library pywebpush encrypts with).
- :class:`PushService`: the HTTP server (a thread) that keeps every request (path, headers, body) and
  answers each path with the status the test sets (201 by default; 410 for a subscription that ended).
- :func:`check_vapid`: the ``Authorization: vapid t=…, k=…`` header (RFC 8292) verified: the key is
  the server's, the ES256 signature holds, the audience is the push service's origin, the expiry is
  within a day, the subject is the configured one.
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class PushDevice:
    """One browser's subscription at :class:`PushService` ``base``: its keys and endpoint."""

    def __init__(self, base: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.path = f"/push/{secrets.token_urlsafe(12)}"
        self.endpoint = base + self.path

    def subscription(self) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64(point), "auth": b64(self.auth)},
        }

    def decrypt(self, body: bytes) -> dict[str, Any]:
        import http_ece  # type: ignore[import-untyped]

        plain = http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        found = json.loads(plain.decode("utf-8"))
        assert isinstance(found, dict)
        return found


@dataclass
class PushService:
    base: str = ""
    received: list[Received] = field(default_factory=list)
    status: dict[str, int] = field(default_factory=dict)  # path -> the answer (201 unless set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def to(self, device: PushDevice) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == device.path]

    def wait(self, device: PushDevice, count: int = 1, timeout: float = 30.0) -> list[Received]:
        """The requests to ``device``, once there are ``count`` (a bound for a failure only)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.to(device)
            if len(found) >= count:
                return found
            time.sleep(0.02)
        raise AssertionError(f"{count} push(es) to {device.path} never came; got {len(self.to(device))}")


@contextmanager
def push_service() -> Iterator[PushService]:
    service = PushService()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            with service.lock:
                service.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status = service.status.get(self.path, 201)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()


def check_vapid(received: Received, public_key: str, audience: str, subject: str | None) -> dict[str, Any]:
    """Verify the request's VAPID header (RFC 8292); the JWT's claims."""
    scheme, _, params = received.headers["authorization"].partition(" ")
    assert scheme == "vapid", received.headers["authorization"]
    found = dict(p.strip().split("=", 1) for p in params.split(","))
    assert found["k"] == public_key
    head, claims, signature = found["t"].split(".")
    assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64(signature)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public_key))
    key.verify(der, f"{head}.{claims}".encode("ascii"), ec.ECDSA(hashes.SHA256()))  # raises if forged
    body = json.loads(unb64(claims))
    assert body["aud"] == audience
    assert time.time() < body["exp"] <= time.time() + 86400
    assert body.get("sub") == subject
    return dict(body)
