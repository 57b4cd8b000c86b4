// Friends: search players by name, follow (one-way) or block them, see who of those you follow is
// online and their games in play (watch links), and challenge friends to a new table.

import { api, fill, h } from "/static/api.js";
import "/static/days.js";
import { errorText, languagePicker, t, translatePage } from "/static/i18n.js";
import { BOT_LEVELS } from "/static/render.js";

const $ = (id) => document.getElementById(id);

function say(text, ok = false) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
  banner.classList.toggle("ok", ok);
}

async function act(path, name, done) {
  try {
    await api(path, { method: "POST", body: { name } });
    say(done, true);
    await load();
  } catch (err) {
    say(errorText(err));
  }
}

function personActions(name, following) {
  return h(
    "span",
    { class: "friend-actions" },
    following
      ? h("button", { class: "button small", type: "button", onclick: () => act("/api/friends/unfollow", name, t("days.unfollowed", { name })) }, t("days.unfollow"))
      : h("button", { class: "button small primary follow-button", type: "button", onclick: () => act("/api/friends/follow", name, t("days.followed", { name })) }, t("days.follow")),
    h("button", { class: "button small danger block-button", type: "button", onclick: () => act("/api/friends/block", name, t("days.blockedName", { name })) }, t("days.block")),
    h("a", { class: "button small ghost", href: `/u/${encodeURIComponent(name)}` }, t("days.profile")),
  );
}

let followingNames = new Set();

function personItem(person) {
  return h(
    "li",
    { class: "table-item friend-item", dataset: { name: person.name } },
    h("span", { class: `table-link presence ${person.online ? "online" : "offline"}` }, person.name, " ", h("small", { class: "muted" }, person.online ? t("days.online") : t("days.offline"))),
    personActions(person.name, true),
    person.games.length
      ? h(
          "ul",
          { class: "friend-games" },
          person.games.map((g) =>
            h(
              "li",
              {},
              h("a", { href: `/t/${encodeURIComponent(g.table)}` }, g.name),
              " · ",
              g.to_move_name ? t("days.theirMove", { name: g.to_move_name }) : "",
              g.turn_based ? ` · ${t("days.perMove", { n: g.turn_based.move_hours })}` : ` · ${t("days.realTime")}`,
            ),
          ),
        )
      : null,
  );
}

async function load() {
  let answer;
  try {
    answer = await api("/api/friends");
  } catch (err) {
    if (err.status === 401) {
      $("guest-note").hidden = false;
      return;
    }
    throw err;
  }
  followingNames = new Set(answer.following.map((p) => p.name));
  fill($("following"), answer.following.length ? answer.following.map(personItem) : h("li", { class: "muted" }, t("days.noFollowing")));
  fill(
    $("blocked"),
    answer.blocked.length
      ? answer.blocked.map((name) =>
          h("li", { class: "table-item" }, h("span", { class: "table-link" }, name), h("button", { class: "button small", type: "button", onclick: () => act("/api/friends/unblock", name, t("days.unblocked", { name })) }, t("days.unblock"))),
        )
      : h("li", { class: "muted" }, t("days.noBlocked")),
  );
  document.body.dataset.loaded = String(Number(document.body.dataset.loaded ?? 0) + 1);
}

async function search(event) {
  event.preventDefault();
  const q = $("search").value.trim();
  if (!q) return;
  try {
    const answer = await api(`/api/players/search?q=${encodeURIComponent(q)}`);
    fill(
      $("search-results"),
      answer.players.length
        ? answer.players.map((p) => h("li", { class: "table-item", dataset: { name: p.name } }, h("span", { class: "table-link" }, p.name), personActions(p.name, followingNames.has(p.name))))
        : h("li", { class: "muted" }, t("days.noneFound")),
    );
  } catch (err) {
    say(errorText(err));
  }
}

async function challenge(event) {
  event.preventDefault();
  const error = $("challenge-error");
  error.hidden = true;
  const invitees = $("invitees").value.split(/[,\s]+/).map((s) => s.trim()).filter(Boolean);
  const days = document.querySelector('input[name="ch-pace"]:checked')?.value === "days";
  const body = {
    invitees,
    seats: Number(document.querySelector('input[name="ch-seats"]:checked')?.value ?? 4),
    bot: $("ch-bot").value,
    rated: $("ch-rated").checked,
    turn_based: days ? { move_hours: Number($("ch-move-hours").value), bank_hours: Number($("ch-bank-hours").value) } : null,
  };
  try {
    await api("/api/challenges", { method: "POST", body });
    say(t("days.challengeSent"), true);
    $("invitees").value = "";
  } catch (err) {
    error.textContent = errorText(err);
    error.hidden = false;
  }
}

translatePage();
document.title = `${t("days.friends")} — ${t("brand")}`;
$("lang-slot").append(languagePicker());
for (const level of BOT_LEVELS) $("ch-bot").append(h("option", { value: level, selected: level === "expert:normal" }, t(`bot.${level}`)));
$("search-form").addEventListener("submit", search);
$("challenge-form").addEventListener("submit", challenge);
const asked = new URLSearchParams(window.location.search).get("challenge");
if (asked) $("invitees").value = asked;
try {
  await load();
} catch (err) {
  say(errorText(err));
}
