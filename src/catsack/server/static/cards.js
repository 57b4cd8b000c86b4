// Card art for the ten pet cards (R1) and the card back, drawn as inline SVG.
//
// Every picture is built from constants and catalogue labels only (never from received
// text), so the markup can be inserted as HTML safely.

import { list, t } from "/static/i18n.js";

/** The spoken name of a card token: "cat +15", "rabbit", "large dog" (in the page's language). */
export function cardName(token) {
  if (token === "R" || token === "LD" || token === "SD") return t(`card.${token}`);
  return t("card.cat", { value: token.replace("-", "−") });
}

/** Cards named in a sentence: "cat +11, rabbit and large dog" (or "nothing"), in the page's language. */
export function cardNames(tokens) {
  return tokens.length ? list(tokens.map(cardName)) : t("nothing");
}

/** The short label printed on a card: the cat's value, or the page language's letter(s) for R, LD, SD. */
export function cardLabel(token) {
  if (token === "R" || token === "LD" || token === "SD") return t(`tok.${token}`);
  return token.replace("-", "−");
}

function kindOf(token) {
  if (token === "R") return "rabbit";
  if (token === "LD" || token === "SD") return "dog";
  return token.startsWith("+") ? "cat-good" : "cat-bad";
}

function catFace(good, value) {
  // Bigger positive cats look happier, negative cats grumpier.
  const fur = good ? "#f2a23a" : "#56506a";
  const stripe = good ? "#c9741a" : "#3a3549";
  const eye = good ? "#2b7a3d" : "#d8e04a";
  const mouth = good ? "M25 55 Q30 59 35 55" : "M25 58 Q30 54 35 58";
  const size = 0.82 + Math.min(Math.abs(value), 15) / 60;
  return `
    <g transform="translate(30 48) scale(${size.toFixed(3)}) translate(-30 -48)">
      <path d="M15 43 L17 25 L27 35 Z" fill="${fur}" stroke="${stripe}" stroke-width="1.2"/>
      <path d="M45 43 L43 25 L33 35 Z" fill="${fur}" stroke="${stripe}" stroke-width="1.2"/>
      <path d="M18 40 L19 29 L25 35 Z" fill="#f7c9c0"/>
      <path d="M42 40 L41 29 L35 35 Z" fill="#f7c9c0"/>
      <ellipse cx="30" cy="47" rx="16" ry="13.5" fill="${fur}" stroke="${stripe}" stroke-width="1.2"/>
      <path d="M26 35 L27 40 M30 34 L30 40 M34 35 L33 40" stroke="${stripe}" stroke-width="1.6" stroke-linecap="round"/>
      <ellipse cx="24" cy="46" rx="2.8" ry="${good ? 3.4 : 1.6}" fill="${eye}"/>
      <ellipse cx="36" cy="46" rx="2.8" ry="${good ? 3.4 : 1.6}" fill="${eye}"/>
      <ellipse cx="24" cy="46" rx="0.9" ry="${good ? 2.6 : 1.2}" fill="#111"/>
      <ellipse cx="36" cy="46" rx="0.9" ry="${good ? 2.6 : 1.2}" fill="#111"/>
      ${good ? "" : '<path d="M20 41 L27 43 M40 41 L33 43" stroke="#111" stroke-width="1.3"/>'}
      <path d="M28.5 51 L31.5 51 L30 53 Z" fill="#d86a7a"/>
      <path d="${mouth}" fill="none" stroke="#222" stroke-width="1.1" stroke-linecap="round"/>
      <path d="M13 50 L22 52 M13 54 L22 54 M47 50 L38 52 M47 54 L38 54" stroke="#eee" stroke-width="0.7"/>
    </g>`;
}

function rabbitFace() {
  return `
    <ellipse cx="24" cy="30" rx="4.6" ry="13" fill="#f4f1ea" stroke="#9a9488" stroke-width="1" transform="rotate(-10 24 30)"/>
    <ellipse cx="36" cy="30" rx="4.6" ry="13" fill="#f4f1ea" stroke="#9a9488" stroke-width="1" transform="rotate(10 36 30)"/>
    <ellipse cx="24" cy="31" rx="2" ry="9" fill="#f2b8c0" transform="rotate(-10 24 31)"/>
    <ellipse cx="36" cy="31" rx="2" ry="9" fill="#f2b8c0" transform="rotate(10 36 31)"/>
    <ellipse cx="30" cy="51" rx="13" ry="11.5" fill="#f4f1ea" stroke="#9a9488" stroke-width="1"/>
    <circle cx="25" cy="49" r="2" fill="#3b2a2a"/>
    <circle cx="35" cy="49" r="2" fill="#3b2a2a"/>
    <ellipse cx="30" cy="54" rx="2" ry="1.4" fill="#e38a9a"/>
    <path d="M30 55.5 L30 57.5 M27.5 58.5 Q30 60 32.5 58.5" stroke="#555" stroke-width="0.9" fill="none"/>`;
}

function dogFace(large) {
  const fur = large ? "#8a5a34" : "#c89a62";
  const ear = large ? "#5a3820" : "#8c6436";
  const scale = large ? 1.08 : 0.84;
  return `
    <g transform="translate(30 48) scale(${scale}) translate(-30 -48)">
      <ellipse cx="16" cy="44" rx="5.5" ry="12" fill="${ear}" transform="rotate(18 16 44)"/>
      <ellipse cx="44" cy="44" rx="5.5" ry="12" fill="${ear}" transform="rotate(-18 44 44)"/>
      <ellipse cx="30" cy="45" rx="14" ry="14.5" fill="${fur}" stroke="${ear}" stroke-width="1.2"/>
      <ellipse cx="30" cy="53" rx="8" ry="6" fill="#efe0c8"/>
      <circle cx="24.5" cy="42" r="2.3" fill="#1d1208"/>
      <circle cx="35.5" cy="42" r="2.3" fill="#1d1208"/>
      <circle cx="25.2" cy="41.3" r="0.7" fill="#fff"/>
      <circle cx="36.2" cy="41.3" r="0.7" fill="#fff"/>
      <ellipse cx="30" cy="50" rx="3.4" ry="2.4" fill="#1d1208"/>
      <path d="M30 52.5 L30 55 M26.5 56 Q30 58.5 33.5 56" stroke="#1d1208" stroke-width="1" fill="none"/>
      ${large ? '<path d="M31 57 Q32 61 34 58" fill="#d8606a"/>' : ""}
    </g>`;
}

/** SVG markup for the face of a card token. */
export function cardFaceSVG(token) {
  const kind = kindOf(token);
  let figure;
  if (kind === "rabbit") figure = rabbitFace();
  else if (kind === "dog") figure = dogFace(token === "LD");
  else figure = catFace(kind === "cat-good", Number(token));
  const label = cardLabel(token);
  return `<svg class="card-art" viewBox="0 0 60 84" aria-hidden="true" focusable="false">
    <rect class="card-bg" x="1" y="1" width="58" height="82" rx="6"/>
    <rect class="card-frame" x="4" y="4" width="52" height="76" rx="4"/>
    <text class="card-corner" x="7" y="16">${label}</text>
    <text class="card-corner" x="53" y="76" text-anchor="end">${label}</text>
    ${figure}
  </svg>`;
}

/** SVG markup for the back of a card (its paw pattern "#paws" is defined once per page). */
export function cardBackSVG() {
  return `<svg class="card-art" viewBox="0 0 60 84" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="58" height="82" rx="6" fill="#7a1f2b"/>
    <rect x="4" y="4" width="52" height="76" rx="4" fill="url(#paws)" stroke="#e8c26a" stroke-width="1.2"/>
    <path d="M22 36 Q30 28 38 36 L42 60 Q30 66 18 60 Z" fill="#c9a36a" stroke="#5a3d1c" stroke-width="1.2"/>
    <path d="M22 36 Q30 40 38 36" fill="none" stroke="#5a3d1c" stroke-width="1.4"/>
    <text x="30" y="56" text-anchor="middle" font-size="12" font-weight="700" fill="#5a3d1c">?</text>
  </svg>`;
}

/** A CSS class naming the card's kind, for colours. */
export function cardKindClass(token) {
  return `kind-${kindOf(token)}`;
}
