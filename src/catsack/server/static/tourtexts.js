// Texts both tournament pages write: how fast a tournament goes, and a moment in the page's language.

import { date, t } from "/static/i18n.js";

/** A moment in the page's language, date and time ("12/5/26, 6:00 PM", "05.12.26, 18:00"). */
export function when(iso) {
  return date(iso, { dateStyle: "short", timeStyle: "short" });
}

/** How fast a tournament's games go: "60 s per move", or "turn-based, 24 h per move, rounds of 3 days". */
export function paceText(tour) {
  if (tour.pace === "turnbased") {
    return t("tour.turnBasedPace", { n: tour.move_hours, days: Math.round((tour.round_hours || 0) / 24) });
  }
  return t("tour.turnN", { n: tour.turn_seconds });
}
