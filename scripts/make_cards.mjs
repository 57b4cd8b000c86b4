// Writes the card pictures of the rules text (catsack.rulebook: the /rules page and the docs' rules
// pages): one SVG file per card and language (the labels of R, LD and SD differ by language).
//
//   node scripts/make_cards.mjs [DIR]      (DIR defaults to src/catsack/rulebook/img; writes DIR/<lang>
//                                           for each browser catalogue static/i18n/<lang>.json)
//
// The pictures are the browser client's own card art (src/catsack/server/static/cards.js, with
// the labels of static/i18n/<lang>.json), made standalone: the few colour rules they need are
// copied out of catsack.css and the paw pattern of the card back out of table.html, so the
// files never drift from the game's look. tests/test_rules_doc.py re-runs this script and
// compares (when node is installed).

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const staticDir = join(here, "..", "src", "catsack", "server", "static");
const out = process.argv[2] ?? join(here, "..", "src", "catsack", "rulebook", "img");
// Every language catsack speaks has a browser catalogue (tests/test_catalogues.py checks it against
// catsack.locales.LANGUAGES), so the catalogues name the languages.
const LANGS = readdirSync(join(staticDir, "i18n"))
  .filter((name) => name.endsWith(".json"))
  .map((name) => name.slice(0, -".json".length))
  .sort();

/** cards.js for one language: its i18n import replaced by a module holding that catalogue. */
async function cardsModule(lang) {
  const catalogue = readFileSync(join(staticDir, "i18n", `${lang}.json`), "utf8");
  const i18n =
    `const c = ${catalogue};\n` +
    `const lists = new Intl.ListFormat(${JSON.stringify(lang)}, { type: "conjunction" });\n` +
    `const plurals = new Intl.PluralRules(${JSON.stringify(lang)});\n` +
    "export function list(items) {\n" +
    "  return lists.format(items.map(String));\n" +
    "}\n" +
    "export function t(key, params = {}) {\n" +
    "  let v = c[key] ?? key;\n" +
    "  if (typeof v === 'object') v = v[plurals.select(Number(params.n))] ?? v.other;\n" +
    "  return v.replace(/\\{(\\w+)\\}/g, (w, n) => (n in params ? String(params[n]) : w));\n" +
    "}\n";
  const source = readFileSync(join(staticDir, "cards.js"), "utf8").replace(
    /from "\/static\/i18n\.js"/,
    `from "data:text/javascript,${encodeURIComponent(i18n)}"`,
  );
  // cards.js is an ES module without a package.json beside it: load its text as a module.
  return import("data:text/javascript," + encodeURIComponent(source));
}

// Only the single-line rules for the card's parts (.card-bg, .card-frame, .card-corner).
const css = readFileSync(join(staticDir, "catsack.css"), "utf8")
  .split("\n")
  .filter((line) => /^(\.kind-[a-z-]+ )?\.card-(bg|frame|corner) \{.*\}$/.test(line.trim()))
  .map((line) => line.trim().replace("font-family: inherit", "font-family: system-ui, sans-serif"))
  .join("\n");
const paws = readFileSync(join(staticDir, "table.html"), "utf8").match(/<pattern id="paws"[\s\S]*?<\/pattern>/)[0];

const TOKENS = ["+15", "+11", "+8", "+5", "+3", "-5", "-8", "R", "LD", "SD"];

/** The file name of a card's picture: card-p15.svg, card-m8.svg, card-R.svg, card-LD.svg. */
function fileName(token) {
  return `card-${token.replace("+", "p").replace("-", "m")}.svg`;
}

function standalone(svg, kindClass, title) {
  const body = svg.replace(/^<svg[^>]*>/, "").replace(/<\/svg>\s*$/, "");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="${kindClass}" width="60" height="84" viewBox="0 0 60 84" ` +
    `role="img" aria-label="${title}">\n<title>${title}</title>\n<style>\n${css}\n</style>${body}</svg>\n`
  );
}

for (const lang of LANGS) {
  const cards = await cardsModule(lang);
  const dir = join(out, lang);
  mkdirSync(dir, { recursive: true });
  for (const token of TOKENS) {
    const svg = standalone(cards.cardFaceSVG(token), cards.cardKindClass(token), cards.cardName(token));
    writeFileSync(join(dir, fileName(token)), svg);
  }
  const back = cards.cardBackSVG().replace(/^(<svg[^>]*>)/, `$1\n<defs>${paws}</defs>`);
  const title = JSON.parse(readFileSync(join(staticDir, "i18n", `${lang}.json`), "utf8"))["card.faceDown"];
  writeFileSync(join(dir, "card-back.svg"), standalone(back, "back", title));
}
