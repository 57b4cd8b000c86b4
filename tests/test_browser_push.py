"""Web Push in the browser: the account page turns notifications on for this device, the server's
push reaches a push service in the test process and is decrypted there with the subscription's keys,
and the service worker's push and click handlers, driven through the DevTools protocol
(``ServiceWorker.deliverPushMessage``), show that message and open its page.

A headless browser reaches no real push service, so the page's ``PushManager`` hands it a
subscription whose endpoint is the test's push service and whose keys the test holds (an init
script); everything after that is the site's own code: the page, the server, the worker. Playwright
drives Debian's Chromium against real `catsack serve` processes (tests/test_browser.py's fixtures).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from push_sink import PushDevice, PushService, b64, check_vapid, push_service
from test_browser import Player, Server, artifacts, browser, own_server, people, server  # noqa: F401  (fixtures)
from test_browser_accounts import WAIT_MS, dialogs, person, register, unique  # noqa: F401

pytestmark = pytest.mark.browser
pytest.importorskip("pywebpush")

from catsack.server.people.push import generate_keys  # noqa: E402

PRIVATE, PUBLIC = generate_keys()
SUBJECT = "mailto:games@example.org"

# The browser's side of a subscription, as a real push service would give it (the endpoint and keys
# are the test's): PushManager answers with it, kept in localStorage across reloads.
FAKE_PUSH_MANAGER = """
(() => {
  const sub = %s;
  const made = () => ({
    endpoint: sub.endpoint,
    toJSON: () => sub,
    unsubscribe: async () => { localStorage.removeItem("test-push"); return true; },
  });
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem("test-push") ? made() : null;
  };
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    localStorage.setItem("test-push-key", btoa(String.fromCharCode(...key)));
    localStorage.setItem("test-push", "1");
    return made();
  };
})();
"""


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as found:
        yield found


def push_env() -> dict[str, str]:
    return {
        "CATSACK_VAPID_PRIVATE_KEY": PRIVATE,
        "CATSACK_VAPID_SUBJECT": SUBJECT,
        "CATSACK_PUSH_HOSTS": "127.0.0.1",
        "CATSACK_PUSH_ALLOW_HTTP": "true",
        "CATSACK_PUSH_POLL_SECONDS": "0.2",
        "CATSACK_PUSH_AWAY_MINUTES": "0",
    }


def registration_id(player: Player, cdp: Any) -> str:
    """The service worker registration of the site (DevTools' ``ServiceWorker`` domain)."""
    found: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: found.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    player.page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    for _ in range(500):  # the events come with the next messages: wait for them, not for time
        ours = [r for r in found if r["scopeURL"] == player.base + "/" and not r["isDeleted"]]
        if ours:
            return str(ours[-1]["registrationId"])
        player.page.evaluate("1")
    raise AssertionError(f"no service worker registration for {player.base}: {found}")


# Run in the service worker: after each notification tagged 'turn:x' is shown, find it and click it
# in the same step; ``self.testClicked.next()`` answers whether the next one was clicked.
CLICK_WHEN_SHOWN = """
() => {
  const registration = self.registration;
  const show = registration.showNotification.bind(registration);
  const waiting = [];
  const results = [];
  self.testClicked = {
    next: () => results.length ? Promise.resolve(results.shift()) : new Promise((r) => waiting.push(r)),
  };
  registration.showNotification = async (title, options) => {
    await show(title, options);
    if (!options || options.tag !== "turn:x") return;
    const [shown] = await registration.getNotifications({ tag: "turn:x" });
    if (shown) self.dispatchEvent(new NotificationEvent("notificationclick", { notification: shown }));
    const answer = Boolean(shown);
    if (waiting.length) waiting.shift()(answer); else results.push(answer);
  };
}
"""


def wait_shown_alone(player: Player, want: dict[str, Any]) -> None:
    """Wait until the service worker shows exactly one notification, with the title, body, tag and page
    (``data.url``) of ``want`` where given. The check runs in one step in the page: a headless browser may
    dismiss a notification on its own a moment after it is shown, so it is never read again afterwards."""
    player.page.wait_for_function(
        "(want) => navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) =>"
        " ns.length === 1 && ['title', 'body', 'tag'].every((k) => !(k in want) || ns[0][k] === want[k])"
        " && (!('url' in want) || (ns[0].data && ns[0].data.url === want.url)))",
        arg=want,
    )


def test_notifications_turned_on_on_the_account_page_arrive_and_open_their_page(
    browser: Any,  # noqa: F811
    own_server: Callable[..., Server],  # noqa: F811
    service: PushService,
    dialogs: list[str],  # noqa: F811
) -> None:
    from playwright.sync_api import expect

    made = own_server(**push_env())
    device = PushDevice(service.base)
    player = Player(browser, made.base, locale="de-DE", viewport={"width": 1280, "height": 900})
    try:
        player.context.grant_permissions(["notifications"], origin=made.base)
        player.context.add_init_script(FAKE_PUSH_MANAGER % json.dumps(device.subscription()))
        page = player.page
        register(player, unique("push"))
        panel = page.locator("#push-panel")
        expect(panel).to_have_attribute("data-state", "off", timeout=WAIT_MS)
        expect(page.locator("#push-state")).to_have_text("Benachrichtigungen sind auf diesem Gerät aus.")

        # On for this device: the page subscribes with the server's key and hands the subscription over.
        page.click("#push-on")
        expect(panel).to_have_attribute("data-state", "on", timeout=WAIT_MS)
        key = page.evaluate("localStorage.getItem('test-push-key')")
        assert b64(base64.b64decode(key)) == PUBLIC
        expect(page.locator("#push-device-list li")).to_have_count(1)
        expect(page.locator("#push-device-list li")).to_contain_text("dieses Gerät")

        # A test push: the server encrypts and signs it, the push service holds it, the device decrypts it.
        page.click("#push-test")
        (got,) = service.wait(device)
        check_vapid(got, PUBLIC, service.base, SUBJECT)
        message = device.decrypt(got.body)
        assert message["kind"] == "test" and message["lang"] == "de"
        assert message["title"] == "Benachrichtigungen funktionieren"

        # The push service delivers it to the service worker, which shows it.
        cdp = player.context.new_cdp_session(page)
        reg = registration_id(player, cdp)
        delivery = {"origin": made.base, "registrationId": reg, "data": json.dumps(message)}
        cdp.send("ServiceWorker.deliverPushMessage", delivery)
        wait_shown_alone(player, {"title": message["title"], "body": message["body"], "tag": "test", "url": "/account"})

        # The same tag again replaces it (a push sent twice shows once); a link to another site is not followed.
        for n, url in enumerate(("/account", "https://elsewhere.example/x")):  # one after the other
            data = json.dumps({**message, "title": f"again {n}", "url": url})
            cdp.send("ServiceWorker.deliverPushMessage", {"origin": made.base, "registrationId": reg, "data": data})
            # the second: a link to another site becomes My games
            wait_shown_alone(player, {"title": f"again {n}", "url": "/account" if n == 0 else "/games"})

        # A click opens the notification's page in the open window of the site.
        turn = {**message, "kind": "turn", "title": "Du bist dran", "url": "/games", "tag": "turn:x"}
        (worker,) = [w for w in player.context.service_workers if w.url.startswith(made.base)]
        # The worker clicks the notification the moment its push handler has shown it (a headless
        # browser may dismiss a shown notification on its own a moment later); were it gone even
        # then, the push is delivered again.
        worker.evaluate(CLICK_WHEN_SHOWN)
        clicked = False
        for _ in range(5):
            delivery = {"origin": made.base, "registrationId": reg, "data": json.dumps(turn)}
            cdp.send("ServiceWorker.deliverPushMessage", delivery)
            clicked = worker.evaluate("() => self.testClicked.next()")
            if clicked:
                break
        assert clicked, "the turn notification was never found shown"
        page.wait_for_url(made.base + "/games")
        page.wait_for_function(
            "() => navigator.serviceWorker.ready.then((r) => r.getNotifications({tag: 'turn:x'}))"
            ".then((ns) => ns.length === 0)"
        )  # clicked: closed

        # Off for this device: the server forgets it.
        page.goto(made.base + "/account")
        expect(panel).to_have_attribute("data-state", "on", timeout=WAIT_MS)
        page.click("#push-off")
        expect(panel).to_have_attribute("data-state", "off", timeout=WAIT_MS)
        expect(page.locator("#push-device-list li")).to_have_count(0)
        errors = [e for e in player.errors if "NotificationEvent" not in e]
        assert errors == [], errors
    finally:
        player.close()


def test_the_account_page_names_the_setting_when_push_is_off(person: Callable[..., Player]) -> None:  # noqa: F811
    from playwright.sync_api import expect

    player = person()
    register(player, unique("nopush"))
    note = player.page.locator("#push-note")
    expect(note).to_contain_text("CATSACK_VAPID_PRIVATE_KEY", timeout=WAIT_MS)
    expect(player.page.locator("#push-on")).to_be_hidden()
    expect(player.page.locator("#push-prefs")).to_be_hidden()
