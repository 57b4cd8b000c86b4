// The page's one live region: what a screen reader should hear as it happens goes here, once.
//
// Every other part of a page (status line, log, coach, preview, hint, chat) is plain text that a
// reader can move to; only #live is announced. Each announcement is a new paragraph, so a screen
// reader speaks the addition alone (aria-relevant="additions"), and old ones are dropped quietly.

const KEEP = 40;
let count = 0;

/** The region (#live in the page's HTML: a live region must exist before text is added to it). */
function region() {
  let el = document.getElementById("live");
  if (!el) {
    el = document.createElement("div");
    el.id = "live";
    el.className = "visually-hidden";
    el.setAttribute("aria-live", "polite");
    el.setAttribute("aria-relevant", "additions");
    document.body.append(el);
  }
  return el;
}

/** Say `text` once. Each paragraph carries its number (data-n) and what it is (data-kind: "event",
 * "turn", "answer", "notice"...), so that a reader's tools and the tests can follow them. */
export function announce(text, kind = "notice") {
  if (!text) return;
  const el = region();
  count += 1;
  const p = document.createElement("p");
  p.dataset.n = String(count);
  p.dataset.kind = kind;
  p.textContent = text;
  el.append(p);
  while (el.childElementCount > KEEP) el.firstElementChild.remove();
}
