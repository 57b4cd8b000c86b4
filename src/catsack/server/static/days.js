// On every page: the "My games" link with its badge (games waiting for your move and challenges
// waiting for your answer), a browser notification when a turn-based game starts waiting for you
// while any catsack tab is open, the installable app's service worker, and the days/hours clock.

import { t } from "/static/i18n.js";

const POLL_VISIBLE_MS = 15_000;
const POLL_HIDDEN_MS = 60_000;
const ACCOUNT_KEY = "catsack:account"; // session.js: set while an account is logged in here

/** Time left as the clock shows it: days and hours, hours and minutes, or minutes. */
export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return t("days.dh", { d, h });
  if (h) return t("days.hm", { h, m });
  return t("days.m", { m });
}

function loggedInHere() {
  try {
    return Boolean(window.localStorage.getItem(ACCOUNT_KEY));
  } catch {
    return false;
  }
}

function badgeLink() {
  let link = document.getElementById("mygames-link");
  if (link) return link;
  const bar = document.querySelector(".topbar");
  if (!bar) return null;
  link = document.createElement("a");
  link.id = "mygames-link";
  link.className = "button small mygames-link";
  link.href = "/games";
  // The same icon style as the top bar's other links; on a phone only the icon and the badge show.
  link.insertAdjacentHTML(
    "afterbegin",
    '<svg class="topbar-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">' +
      '<rect x="3" y="5" width="11" height="15" rx="2" fill="none" stroke="currentColor" stroke-width="2"/>' +
      '<path d="M10 5V4a2 2 0 0 1 2-2h7a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2h-5" fill="none" stroke="currentColor" stroke-width="2"/></svg>',
  );
  link.setAttribute("aria-label", t("days.myGames"));
  const text = document.createElement("span");
  text.className = "mygames-text";
  text.textContent = t("days.myGames");
  const badge = document.createElement("span");
  badge.id = "mygames-badge";
  badge.className = "badge mygames-badge";
  badge.hidden = true;
  link.append(text, " ", badge);
  bar.insertBefore(link, document.getElementById("lang-slot"));
  return link;
}

let waitingTurnBased = null; // ids of turn-based games waiting for this account, as last seen

function notifyNew(games) {
  const now = new Set(games.map((g) => g.table));
  if (waitingTurnBased !== null && "Notification" in window && Notification.permission === "granted") {
    for (const game of games) {
      if (waitingTurnBased.has(game.table) || window.location.pathname === `/t/${game.table}`) continue;
      // One tag per game: several open tabs make one notification, not one each.
      const note = new Notification(t("days.notifyTitle"), {
        body: t("days.notifyBody", { table: game.name }),
        tag: `catsack-turn-${game.table}`,
        icon: "/static/icon-192.png",
      });
      note.onclick = () => {
        window.focus();
        window.location.assign(`/t/${encodeURIComponent(game.table)}`);
      };
    }
  }
  waitingTurnBased = now;
}

/** Ask the server once: refresh the badge, notify, and tell the page (My games listens). */
export async function refresh() {
  if (!loggedInHere()) return null;
  let summary;
  try {
    const response = await fetch("/api/mygames/summary", { headers: { Accept: "application/json" } });
    if (!response.ok) return null;
    summary = await response.json();
  } catch {
    return null;
  }
  if (!summary.account) {
    document.getElementById("mygames-link")?.remove();
    return summary;
  }
  const link = badgeLink();
  if (link) {
    const n = summary.your_turn + summary.invitations;
    const badge = document.getElementById("mygames-badge");
    badge.textContent = String(n);
    badge.hidden = n === 0;
    link.title = t("days.badgeTitle", { turns: summary.your_turn, invitations: summary.invitations });
    document.body.dataset.myGames = String(n);
  }
  notifyNew(summary.turn_based ?? []);
  window.dispatchEvent(new CustomEvent("catsack:mygames", { detail: summary }));
  return summary;
}

function schedule() {
  setTimeout(
    async () => {
      await refresh();
      schedule();
    },
    document.hidden ? POLL_HIDDEN_MS : POLL_VISIBLE_MS,
  );
}

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // no service worker (a private window, plain http on another host): the site works without it
  });
}
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) refresh();
});
refresh();
schedule();
