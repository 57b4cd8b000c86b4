"""The bot arena in the browser (docs/bot-api.md): a person creates a bot account on the account page,
sees its API token once (a reload shows it no more), the token opens the bots' WebSocket, revoking
it on the page closes it, and the bot's profile shows it as a bot with its owner. Playwright drives
Debian's Chromium against a real `catsack serve` (the fixtures of tests/test_browser.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from test_browser import Player, artifacts, browser, people, server  # noqa: F401  (fixtures)
from test_browser_accounts import WAIT_MS, dialogs, person, register, unique  # noqa: F401  (fixtures)

websockets = pytest.importorskip("websockets")


def _hello(base: str, token: str) -> dict[str, object]:
    """The server's hello on the bots' socket with ``token`` (raises when the handshake is refused)."""
    from websockets.sync.client import connect

    url = base.replace("http", "ws", 1) + "/api/bot/ws"
    with connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        message: dict[str, object] = json.loads(ws.recv(10))
        return message


def test_a_bot_account_and_its_token_shown_once(person: Callable[..., Player]) -> None:  # noqa: F811
    from playwright.sync_api import expect
    from websockets.exceptions import InvalidStatus

    ann = person()
    owner = unique("Owner")
    register(ann, owner)
    page = ann.page
    bot = unique("Bot")
    expect(page.locator("#bots-none")).to_be_visible(timeout=WAIT_MS)
    page.fill("#bots-name", bot)
    page.click("#bots-form button[type=submit]")
    token_box = page.locator("#bots-token")
    expect(token_box).to_be_visible(timeout=WAIT_MS)
    token = token_box.input_value()
    assert token.startswith("cbt_")
    row = page.locator("#bots-list li", has_text=bot)
    expect(row).to_contain_text("bot")  # marked as a bot
    expect(row).to_contain_text("not connected")
    # The token opens the bots' socket.
    assert _hello(ann.base, token)["bot"] == bot
    # Shown once: after a reload the page lists the bot without any token.
    page.reload()
    expect(page.locator("#bots-list li", has_text=bot)).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#bots-token-panel")).to_be_hidden()
    assert token not in page.content()
    # Revoked on the page: refused from then on.
    page.locator("#bots-list li", has_text=bot).get_by_role("button").click()
    expect(page.locator("#bots-list li", has_text=bot)).to_contain_text("token revoked", timeout=WAIT_MS)
    with pytest.raises(InvalidStatus) as refused:
        _hello(ann.base, token)
    assert refused.value.response.status_code == 401
    # Its profile shows it as a bot, with a link to its owner's.
    page.goto(f"{ann.base}/u/{bot}")
    marked = page.locator("#p-bot")
    expect(marked).to_be_visible(timeout=WAIT_MS)
    expect(marked.locator(".badge")).to_have_text("bot")
    expect(marked).to_contain_text(f"a bot account of {owner}")
    expect(marked.locator("a")).to_have_attribute("href", f"/u/{owner}")
    page.goto(f"{ann.base}/u/{owner}")
    expect(page.locator("#p-stats")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#p-bot")).to_be_hidden()
