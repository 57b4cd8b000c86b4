"""Text for each part of the play screen, computed from the human seat's view only (R23).

Every fact is written in words or marks, never by colour alone: face-down
cards read ``[??]``, the human's own face-down card ``(+5)``, passed seats say
"passed", the selected hand card is framed ``>+8<``. Styles only add emphasis.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text

from catsack.cards import Card
from catsack.game import ROUNDS, Game
from catsack.i18n import translations
from catsack.locales import DEFAULT_LANGUAGE
from catsack.narrative import Translations, card_label, final_table, is_you
from catsack.view import View

__all__ = [
    "bid_range",
    "final_table_lines",
    "hand_text",
    "hint_lines",
    "mouse_text",
    "noise_note",
    "players_text",
    "prompt_text",
    "row_text",
    "status_text",
]


def _phase(phase: str, t: Translations) -> str:
    if phase == "placement":
        return t.gettext("placing cards")
    if phase == "bidding":
        return t.gettext("bidding")
    if phase == "last choice":
        return t.gettext("last choice")
    if phase == "over":
        return t.gettext("game over")
    return phase


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _card(card: Card, t: Translations) -> str:
    """A card as the board writes it: a cat's value, the language's letters for the rabbit and dogs."""
    return card_label(card.token, t)


def bid_range(view: View) -> tuple[int, int] | None:
    """The lowest and highest legal bid for the viewer now, or ``None`` (R12, R15)."""
    bids = [m.amount for m in view.legal if m.is_bid]
    return (min(bids), max(bids)) if bids else None


def status_text(view: View, names: Sequence[str], lang: str = DEFAULT_LANGUAGE) -> Text:
    """Round n/9, the start player, the phase, who is to move and the bank."""
    tr = translations(lang)
    t = Text()
    t.append(tr.gettext("Round {round}/{rounds}").format(round=view.round, rounds=ROUNDS), style="bold")
    t.append(" | " + tr.gettext("Start: {name}").format(name=names[view.start]))
    t.append(f" | {_phase(view.phase, tr)}")
    if view.to_move is not None:
        who = tr.gettext("you") if view.to_move == view.seat else names[view.to_move]
        t.append(" | " + tr.gettext("To move: {name}").format(name=who), style="bold")
    t.append(" | " + tr.gettext("Bank: {bank}").format(bank=view.bank))
    return t


def _pile(cards: Sequence[Card], t: Translations) -> str:
    """A won pile grouped by card (``+11 R -5×2``), best cards first."""
    if not cards:
        return "-"
    counts = Counter(cards)
    return " ".join(_card(c, t) if counts[c] == 1 else f"{_card(c, t)}×{counts[c]}" for c in sorted(counts))


def players_text(view: View, names: Sequence[str], width: int = 80, lang: str = DEFAULT_LANGUAGE) -> Text:
    """One line per seat: to-move mark, name, money (R24), bid, status words, cat points, won pile."""
    tr = translations(lang)
    t = Text()
    # Names carry "(you)" or a bot's spec ("Ann (heuristic)"): as wide as they need, within reason.
    name_w = max(12, min(24, max(len(n) for n in names), width // 4))
    player, mice_h, bid_h = tr.pgettext("table", "Player"), tr.pgettext("table", "Mice"), tr.pgettext("table", "Bid")
    status_h, cats_h, pile_h = (
        tr.pgettext("table", "Status"),
        tr.pgettext("table", "Cats"),
        tr.pgettext("table", "Won pile"),
    )
    # Each column as wide as its heading in the player's language, and at least as the English one.
    mice_w, bid_w, status_w, cats_w = (
        max(4, len(mice_h)),
        max(3, len(bid_h)),
        max(15, len(status_h)),
        max(4, len(cats_h)),
    )
    heading = f"  {player:<{name_w}} {mice_h:>{mice_w}} {bid_h:>{bid_w}}  {status_h:<{status_w}} {cats_h:>{cats_w}}"
    t.append(f"{heading}  {pile_h}\n", style="bold")
    you_mark = tr.gettext("{name} (you)").format(name="")  # " (you)"
    for s in range(view.seats):
        mark = ">" if s == view.to_move else " "
        you = s == view.seat and not is_you(names[s], tr) and not names[s].endswith(you_mark)
        label = _short(tr.gettext("{name} (you)").format(name=names[s]) if you else names[s], name_w)
        money = view.money[s]
        mice = "?" if money is None else str(money)
        bid = str(view.bids[s]) if view.bids[s] else "-"
        words = []
        if s == view.start:
            words.append(tr.gettext("start"))
        if view.phase in ("bidding", "last choice"):
            if view.passed[s]:
                words.append(tr.gettext("passed"))
            elif view.high_bidder == s:
                words.append(tr.gettext("HIGH BID"))
        status = ",".join(words) or ""
        pile_w = max(4, width - (2 + name_w + 1 + mice_w + 1 + bid_w + 2 + status_w + 1 + cats_w + 2) - 1)
        cat_points = view.cat_points[s]
        line = Text(
            f"{mark} {label:<{name_w}} {mice:>{mice_w}} {bid:>{bid_w}}  {status:<{status_w}} {cat_points:>{cats_w}}  "
        )
        line.append(_short(_pile(view.won[s], tr), pile_w))
        if s == view.to_move:
            line.stylize("bold")
        if view.passed[s] and view.phase != "placement":
            line.stylize("dim")
        t.append_text(line)
        if s < view.seats - 1:
            t.append("\n")
    return t


def _row_slot(owner: int | None, card: Card | None, face_up: bool, names: Sequence[str], t: Translations) -> str:
    who = t.gettext("dummy") if owner is None else _short(names[owner], 6)
    if card is None:
        return f"[??] {who}"
    if not face_up:  # the viewer's own card, still face down to everyone else
        return f"({_card(card, t)}) {who}"
    return f"[{_card(card, t)}] {who}"


def row_text(view: View, names: Sequence[str], lang: str = DEFAULT_LANGUAGE) -> Text:
    """The row in order with who placed each card, empty slots still to fill, and the last round's row."""
    tr = translations(lang)
    t = Text(tr.gettext("Row:") + " ", style="bold")
    slots = [_row_slot(rc.owner, rc.card, rc.face_up, names, tr) for rc in view.row]
    if view.phase == "placement":
        # Seats still to place this round, clockwise from the next one (R10).
        placed = {rc.owner for rc in view.row if rc.owner is not None}
        missing = [(view.start + i) % view.seats for i in range(view.seats)]
        slots += [f"[  ] {_short(names[s], 6)}" for s in missing if s not in placed]
    t.append("  ".join(slots) if slots else tr.gettext("(empty)"))
    if view.rounds:
        last = view.rounds[-1]
        t.append("\n" + tr.gettext("Round {round}:").format(round=last.number) + " ", style="dim")
        cards = " ".join(_card(c, tr) for c in last.row)
        if last.buyer is None:
            t.append(f"{cards}  -> " + tr.gettext("void, back to the box"), style="dim")
        else:
            paid = tr.gettext("{name} paid {price}").format(name=names[last.buyer], price=last.price)
            if last.chased:
                chased = " ".join(_card(c, tr) for c in last.chased)
                paid += ", " + tr.gettext("dogs: {cards}").format(cards=chased)
            t.append(f"{cards}  -> {paid}", style="dim")
    return t


def mouse_text(view: View, names: Sequence[str], lang: str = DEFAULT_LANGUAGE) -> Text:
    """Mouse cards with what lies on them, what the next passer would get (R13), and the high bid."""
    tr = translations(lang)
    t = Text(tr.gettext("Mouse cards:") + " ", style="bold")
    if view.phase == "over":
        t.append("-")
    elif not any(view.mouse_card_mice) and view.phase != "placement":
        t.append(tr.gettext("empty - passers get nothing"))
    elif not any(view.mouse_card_mice):
        t.append(tr.gettext("empty this round - passers get nothing"))
    else:
        t.append(" ".join(f"[{m}]" if m else "[--]" for m in view.mouse_card_mice))
        if view.phase == "bidding":
            if view.next_payout:
                t.append("  " + tr.gettext("next passer gets {n}").format(n=view.next_payout))
            else:
                t.append("  " + tr.gettext("next passer gets nothing"))
    t.append("   " + tr.gettext("High bid:") + " ", style="bold")
    if view.high_bidder is None:
        t.append(tr.gettext("none"))
    else:
        t.append(tr.gettext("{bid} by {name}").format(bid=view.high_bid, name=names[view.high_bidder]))
    return t


def hand_text(view: View, selected: int | None, lang: str = DEFAULT_LANGUAGE) -> Text:
    """The hand numbered for the keys 1-9 (``3:+8``), the selected card framed (``3>+8<``); then the money."""
    tr = translations(lang)
    t = Text(tr.gettext("Your hand:") + " ", style="bold")
    if not view.hand:
        t.append(tr.gettext("(empty)"))
    for i, card in enumerate(view.hand):
        if i == selected:
            t.append(f"{i + 1}>{_card(card, tr)}<", style="reverse bold")
        else:
            t.append(f"{i + 1}:{_card(card, tr)} ")
        t.append(" ")
    if view.seat is not None:
        t.append(" " + tr.gettext("Mice: {n}").format(n=view.my_money), style="bold")
    return t


def prompt_text(view: View, names: Sequence[str], bid_amount: int | None, lang: str = DEFAULT_LANGUAGE) -> Text:
    """What the human can do now, with the legal bid range (R12, R15)."""
    tr = translations(lang)
    t = Text()
    if view.is_over:
        t.append(tr.gettext("Game over."), style="bold")
        return t
    if view.to_move != view.seat:
        t.append(tr.gettext("Waiting for {name}...").format(name=names[view.to_move or 0]))
        return t
    t.append(tr.gettext("Your turn:") + " ", style="bold")
    if view.phase == "placement":
        t.append(tr.gettext("pick a card (1-9 or arrows), Enter places it face down."))
    elif view.phase == "last choice":
        t.append(tr.gettext("nobody bid. Enter buys the row for 1 mouse, p passes (void round)."))
    else:
        rng = bid_range(view)
        if rng is None:
            t.append(tr.gettext("you cannot beat the high bid {high}: press p to pass.").format(high=view.high_bid))
        else:
            lo, hi = rng
            amount = bid_amount if bid_amount is not None else lo
            # i18n: the bid being typed is shown between the two parts: "bid [ 12 ] (legal 12-21; ...".
            before = tr.gettext("bid ")
            after = tr.gettext(" (legal {low}-{high}; digits, +/-, Enter) or p to pass")
            t.append(before)
            t.append(f"[ {amount} ]", style="reverse bold")
            t.append(after.format(low=lo, high=hi))
    return t


def noise_note(lang: str = DEFAULT_LANGUAGE) -> str:
    """The note under the hint's values, as the browser's hint panel says it."""
    return translations(lang).gettext(
        "± is the noise of each value (a standard error of the search's mean); ≈ marks the moves as good as the "
        "best within that noise."
    )


def hint_lines(
    best: str | None,
    values: dict[str, float],
    beliefs: Sequence[dict[str, float] | None],
    view: View,
    names: Sequence[str],
    note: str,
    *,
    noise: dict[str, float] | None = None,
    equal: Sequence[str] = (),
    sentences: dict[str, list[str]] | None = None,
    lang: str = DEFAULT_LANGUAGE,
) -> list[str]:
    """The hint panel: suggestion, its sentences, move values with their noise (±) and the moves as good as
    the best (≈), then P(card) for every face-down row card.

    ``sentences`` holds the analysis's sentences per language; those of ``lang`` are shown (English when
    it has none). Moves and numbers are written the language's way ("bid 3", "miser 3"; "+3.5", "+3,5").
    """
    from catsack.i18n import move_words, number, percent

    tr = translations(lang)
    out = []
    noise = noise or {}
    if best is not None:
        out.append(tr.gettext("Suggestion (strong bot): {move}").format(move=move_words(best, tr)))
        said = (sentences or {}).get(lang) or (sentences or {}).get(DEFAULT_LANGUAGE) or []
        out.extend(said)
        if values:
            as_good = set(equal) - {best}
            top = sorted(values.items(), key=lambda kv: -kv[1])[: max(6, len(as_good) + 1)]
            out.append(tr.gettext("Values:"))
            for move, value in top:
                spread = f" ±{number(noise[move], lang)}" if move in noise else ""
                mark = " ≈" if move in as_good else ""
                out.append(f" {move_words(move, tr):<12} {number(value, lang, signed=True)}{spread}{mark}")
            if noise:
                out.append(noise_note(lang))
    if note:
        out.append(note)
    out.append("")
    out.append(tr.gettext("Face-down cards (probability of each card):"))
    shown = False
    for pos, dist in enumerate(beliefs):
        if dist is None:
            continue
        shown = True
        owner = view.row[pos].owner if pos < len(view.row) else None
        who = tr.gettext("dummy") if owner is None else names[owner]
        # Group cards of equal probability so a uniform belief fits on one line.
        groups: dict[str, list[str]] = {}
        for tok, p in sorted(dist.items(), key=lambda kv: (-kv[1], Card.parse(kv[0]))):
            if p > 0:
                groups.setdefault(percent(round(p, 2), lang), []).append(card_label(tok, tr))
        cards = "; ".join(f"{pct} {' '.join(toks)}" for pct, toks in groups.items())
        out.append(f" #{pos + 1} {who}: {cards}")
    if not shown:
        out.append(" " + tr.gettext("(none: every card you cannot see is still in a hand)"))
    return out


def final_table_lines(game: Game, names: Sequence[str], lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """Rank, score, cats, money and the won pile sorted best card first (R21, R22)."""
    tr = translations(lang)
    return final_table(game, names, tr, pile=lambda cards: _pile(cards, tr))
