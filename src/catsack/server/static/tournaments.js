// The tournament list (upcoming, running, finished) and the form that creates one (accounts only).

import { api, h } from "/static/api.js";
import { errorText, languagePicker, t, translatePage } from "/static/i18n.js";
import { BOT_LEVELS, botLevelName } from "/static/render.js";
import { currentAccount } from "/static/session.js";
import { paceText, when } from "/static/tourtexts.js";

const $ = (id) => document.getElementById(id);

/** One line of the list: name, seats, round, entries and the options that matter. */
export function tournamentItem(tour) {
  const arena = tour.format === "arena";
  const facts = [
    t("players.n", { n: tour.seats }),
    arena
      ? `${t("arena.tag")}, ${t("arena.window", { n: tour.minutes })}`
      : tour.status === "running"
        ? t("tour.roundOf", { n: tour.round, of: tour.rounds })
        : t("tour.nRounds", { n: tour.rounds }),
    t("tour.nEntries", { n: tour.entries }),
  ];
  facts.push(paceText(tour));
  if (tour.status === "upcoming" && tour.starts) facts.push(t("tour.startsOn", { when: when(tour.starts) }));
  if (tour.rated) facts.push(t("lobby.ratedTag"));
  if (tour.duplicate) facts.push(t("tour.duplicateTag"));
  if (tour.status === "cancelled") facts.push(t("tour.cancelled"));
  return h(
    "li",
    { class: "table-item" },
    h("a", { href: tour.url, class: "table-link" }, tour.name),
    h("span", { class: "table-meta" }, facts.join(" · ")),
  );
}

async function refresh() {
  const lists = await api("/api/tournaments");
  for (const group of ["upcoming", "running", "finished"]) {
    const items = lists[group].map(tournamentItem);
    $(group).replaceChildren(...(items.length ? items : [h("li", { class: "hint" }, t("tour.none"))]));
  }
}

async function create(event) {
  event.preventDefault();
  const error = $("create-error");
  error.hidden = true;
  const arena = document.querySelector("input[name=t-format]:checked").value === "arena";
  const bots = arena ? 0 : Number($("t-bots").value) || 0;
  const pace = arena ? "realtime" : document.querySelector("input[name=t-pace]:checked").value;
  const format = arena
    ? {
        format: "arena",
        minutes: Number($("t-minutes").value),
        bots_after: $("t-bots-after").value ? Number($("t-bots-after").value) : null,
      }
    : {};
  const paced =
    pace === "turnbased"
      ? {
          move_hours: Number($("t-move-hours").value),
          bank_hours: Number($("t-bank-hours").value),
          round_hours: 24 * Number($("t-round-days").value),
        }
      : { turn_seconds: Number($("t-turn").value) };
  let startsAt = null;
  if (document.querySelector("input[name=t-start]:checked").value === "at") {
    const chosen = new Date($("t-starts").value); // the browser's local time, sent with its offset (UTC)
    if (Number.isNaN(chosen.getTime())) {
      error.textContent = t("tour.startTimeMissing");
      error.hidden = false;
      return;
    }
    startsAt = chosen.toISOString();
  }
  try {
    const tour = await api("/api/tournaments", {
      method: "POST",
      body: {
        name: $("t-name").value,
        seats: Number($("t-seats").value),
        rounds: Number($("t-rounds").value),
        pace,
        ...paced,
        starts_at: startsAt,
        rated: $("t-rated").checked,
        duplicate: !arena && $("t-duplicate").checked,
        ...format,
        bots: Array(bots).fill($("t-level").value),
        min_finished: $("t-min").value ? Number($("t-min").value) : null,
      },
    });
    window.location.href = tour.url;
  } catch (err) {
    error.textContent = errorText(err);
    error.hidden = false;
  }
}

async function main() {
  translatePage();
  document.title = `${t("tour.title")} — ${t("brand")}`;
  $("lang-slot").append(languagePicker());
  $("t-level").replaceChildren(...BOT_LEVELS.map((level) => h("option", { value: level }, botLevelName(level))));
  $("t-level").value = "heuristic";
  const account = await currentAccount();
  $("create-form").hidden = !account;
  $("create-login").hidden = Boolean(account);
  $("create-form").addEventListener("submit", create);
  const showChoices = () => {
    const arena = document.querySelector("input[name=t-format]:checked").value === "arena";
    $("t-arena").hidden = !arena;
    for (const el of document.querySelectorAll(".swiss-only")) el.hidden = arena;
    if (arena) document.querySelector("input[name=t-pace][value=realtime]").checked = true;
    const days = document.querySelector("input[name=t-pace]:checked").value === "turnbased";
    $("t-days").hidden = !days;
    $("t-turn-field").hidden = days;
    $("t-starts-field").hidden = document.querySelector("input[name=t-start]:checked").value !== "at";
  };
  for (const input of document.querySelectorAll("input[name=t-pace], input[name=t-start], input[name=t-format]")) {
    input.addEventListener("change", showChoices);
  }
  showChoices();
  try {
    await refresh();
  } catch (err) {
    $("banner").textContent = errorText(err);
    $("banner").hidden = false;
  }
  document.body.dataset.ready = "yes";
}

await main();
