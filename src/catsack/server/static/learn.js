// The guided first game's start page (/learn): one click makes a new guided table and sits
// the learner down; the table page then shows the coach. Starting again makes a new game.

import { api, loadName, saveSeat } from "/static/api.js";
import { saveLesson } from "/static/coach.js";
import { errorText, languagePicker, rulesUrl, t, translatePage } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);

async function begin(event) {
  event.preventDefault();
  const error = $("learn-error");
  const button = $("learn-start");
  const name = $("learn-name").value.trim() || t("learn.defaultName");
  error.hidden = true;
  button.disabled = true;
  try {
    const game = await api("/api/learn", { method: "POST", body: { name, table: t("learn.tableName") } });
    saveSeat(game.table, game.seat, game.token, name);
    saveLesson(game.table, { script: game.script, seen: [] });
    window.location.assign(`/t/${encodeURIComponent(game.table)}`);
  } catch (err) {
    error.textContent = t("learn.failed", { detail: errorText(err) });
    error.hidden = false;
    button.disabled = false;
  }
}

translatePage();
document.title = `${t("learn.title")} — ${t("brand")}`;
$("lang-slot").replaceChildren(languagePicker());
$("rules-link").href = rulesUrl();
$("learn-name").value = $("learn-name").value || loadName(); // keep what was typed before the script ran
$("learn-form").addEventListener("submit", begin);
