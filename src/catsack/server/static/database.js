// The game database: each month's dump of finished public games with its size, games and SHA-256.

import { api, h } from "/static/api.js";
import { date, errorText, languagePicker, num, t, translatePage } from "/static/i18n.js";

translatePage();
document.title = `${t("db.title")} — ${t("brand")}`;
document.getElementById("lang-slot").append(languagePicker());

/** A size in bytes as people read it: bytes, KiB or MiB (the exact count in the title). */
function size(bytes) {
  if (bytes < 1024) return t("db.bytes", { n: bytes });
  if (bytes < 1024 * 1024) return t("db.kib", { n: num(bytes / 1024, 1) });
  return t("db.mib", { n: num(bytes / (1024 * 1024), 1) });
}

/** A time stamp without words ("10/12/2026, 12:00"): the same in every language's check. */
function stamp(iso) {
  return date(iso, { dateStyle: "short", timeStyle: "short" });
}

const body = document.getElementById("dumps");
const summary = document.getElementById("db-summary");
try {
  const listing = await api("/api/database");
  summary.textContent = t("db.summary", { n: listing.games, time: stamp(listing.updated) });
  body.replaceChildren(
    ...listing.dumps.map((d) =>
      h(
        "tr",
        { "data-month": d.month, "data-complete": d.complete ? "yes" : "no" },
        h("th", { scope: "row" }, d.complete ? d.month : t("db.soFar", { month: d.month })),
        h("td", { class: "db-games" }, num(d.games)),
        h("td", { class: "db-size", title: t("db.bytes", { n: d.bytes }), "data-bytes": String(d.bytes) }, size(d.bytes)),
        h(
          "td",
          { class: "db-file-cell" },
          h("a", { href: d.url, download: d.file, class: "db-file" }, h("code", {}, d.file)),
          h("span", { class: "db-sha-label" }, t("db.sha")),
          h("code", { class: "db-sha" }, d.sha256),
        ),
      ),
    ),
  );
  if (listing.games === 0) summary.textContent = t("db.empty");
} catch (err) {
  body.replaceChildren(h("tr", {}, h("td", { colspan: 4, class: "form-error", role: "alert" }, errorText(err))));
}
document.body.dataset.ready = "yes";
