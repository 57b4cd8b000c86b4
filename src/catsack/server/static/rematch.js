// "Play again" and "Replay and analysis" on the table page's final panel.
//
// The first "Play again" makes the rematch table on the server; everyone still at the old
// table gets a `rematch` frame and joins it with one click, back at their own seat.

import { api, h, saveSeat } from "/static/api.js";
import { errorText, t } from "/static/i18n.js";
import { announce } from "/static/live.js";

const POLL_MS = 5000;

let offer = null; // the last `rematch` frame: {table, by, invite}
let polling = null;

/** Remember a rematch offer (a `rematch` frame from the server). */
export function noteRematch(frame) {
  if (typeof frame?.table === "string") offer = frame;
}

/** Take our seat at the rematch table (made now if nobody asked yet) and go there. */
export async function playAgain(tableId, seat, button) {
  if (button) button.disabled = true;
  try {
    const next = await api(`/api/tables/${encodeURIComponent(tableId)}/rematch`, { method: "POST", token: seat.token });
    if (next.token !== null && next.seat !== null) saveSeat(next.table, next.seat, next.token, seat.name);
    window.location.assign(`/t/${encodeURIComponent(next.table)}`);
  } catch (err) {
    if (button) {
      button.disabled = false;
      const text = errorText(err);
      button.title = text;
      button.after(h("span", { class: "form-error" }, ` ${text}`));
      announce(text);
    }
  }
}

/** Ask the server now and then whether the table has its rematch: the `rematch` frame reaches only
 * the connections of the server process where "Play again" was pressed, and none after a reload. */
function watchRematch(final, tableId, seat) {
  if (polling || offer) return;
  const look = async () => {
    try {
      const next = await api(`/api/tables/${encodeURIComponent(tableId)}/rematch`);
      if (next?.table && !offer) {
        offer = { table: next.table, by: null, invite: `/t/${encodeURIComponent(next.table)}` };
        addReviewButtons(final, tableId, seat);
      }
    } catch {
      // the table page reports connection trouble itself
    }
    if (offer) {
      clearInterval(polling);
      polling = true; // found: stop for good
    }
  };
  polling = setInterval(look, POLL_MS);
  look();
}

/** Add the review and rematch controls to the drawn final panel (`seat`: {seat, token, name} or null). */
export function addReviewButtons(final, tableId, seat) {
  for (const id of ["play-again", "replay-link", "rematch-offer"]) final.querySelector(`#${id}`)?.remove(); // redrawn
  const links = final.querySelector(".final-links") ?? final;
  links.prepend(
    h("a", { class: "button", id: "replay-link", href: `/replay/${encodeURIComponent(tableId)}` }, t("review.replay")),
  );
  if (seat?.token) {
    // One gold button: "Play again", or joining the rematch once someone made it.
    const again = h("button", { class: offer ? "button" : "button primary", type: "button", id: "play-again" }, t("review.playAgain"));
    again.addEventListener("click", () => playAgain(tableId, seat, again));
    links.prepend(again);
  }
  watchRematch(final, tableId, seat);
  if (offer) {
    const by = offer.by ? t("review.wantsAgain", { name: offer.by }) : t("review.newGame");
    if (!offer.said) announce(by, "notice");
    offer.said = true;
    final.append(
      h(
        "p",
        { class: "final-links rematch-offer", id: "rematch-offer" },
        h("span", {}, by),
        seat?.token
          ? h("button", { class: "button primary small", type: "button", onclick: (e) => playAgain(tableId, seat, e.currentTarget) }, t("review.join"))
          : h("a", { class: "button small", href: offer.invite }, t("review.goTo")),
      ),
    );
  }
}
