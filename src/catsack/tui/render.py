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
from catsack.view import View

__all__ = [
    "bid_range",
    "final_table_lines",
    "hand_text",
    "hint_lines",
    "mouse_text",
    "players_text",
    "prompt_text",
    "row_text",
    "status_text",
]

_PHASE_WORDS = {"placement": "placing cards", "bidding": "bidding", "last choice": "last choice", "over": "game over"}


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def bid_range(view: View) -> tuple[int, int] | None:
    """The lowest and highest legal bid for the viewer now, or ``None`` (R12, R15)."""
    bids = [m.amount for m in view.legal if m.is_bid]
    return (min(bids), max(bids)) if bids else None


def status_text(view: View, names: Sequence[str]) -> Text:
    """Round n/9, the start player, the phase, who is to move and the bank."""
    t = Text()
    t.append(f"Round {view.round}/{ROUNDS}", style="bold")
    t.append(f" | Start: {names[view.start]}")
    t.append(f" | {_PHASE_WORDS.get(view.phase, view.phase)}")
    if view.to_move is not None:
        who = "you" if view.to_move == view.seat else names[view.to_move]
        t.append(f" | To move: {who}", style="bold")
    t.append(f" | Bank: {view.bank}")
    return t


def _pile(cards: Sequence[Card]) -> str:
    """A won pile grouped by card (``+11 R -5x2``), best cards first."""
    if not cards:
        return "-"
    counts = Counter(cards)
    return " ".join(str(c) if counts[c] == 1 else f"{c}x{counts[c]}" for c in sorted(counts))


def players_text(view: View, names: Sequence[str], width: int = 80) -> Text:
    """One line per seat: to-move mark, name, money (R24), bid, status words, cat points, won pile."""
    t = Text()
    # Names carry "(you)" or a bot's spec ("Ann (heuristic)"): as wide as they need, within reason.
    name_w = max(12, min(24, max(len(n) for n in names), width // 4))
    t.append(f"  {'Player':<{name_w}} {'Mice':>4} {'Bid':>3}  {'Status':<15} {'Cats':>4}  Won pile\n", style="bold")
    for s in range(view.seats):
        mark = ">" if s == view.to_move else " "
        you = s == view.seat and names[s].lower() != "you" and not names[s].endswith(" (you)")
        label = _short(names[s] + (" (you)" if you else ""), name_w)
        money = view.money[s]
        mice = "?" if money is None else str(money)
        bid = str(view.bids[s]) if view.bids[s] else "-"
        words = []
        if s == view.start:
            words.append("start")
        if view.phase in ("bidding", "last choice"):
            if view.passed[s]:
                words.append("passed")
            elif view.high_bidder == s:
                words.append("HIGH BID")
        status = ",".join(words) or ""
        pile_w = max(4, width - (2 + name_w + 1 + 4 + 1 + 3 + 2 + 15 + 1 + 4 + 2) - 1)
        line = Text(f"{mark} {label:<{name_w}} {mice:>4} {bid:>3}  {status:<15} {view.cat_points[s]:>4}  ")
        line.append(_short(_pile(view.won[s]), pile_w))
        if s == view.to_move:
            line.stylize("bold")
        if view.passed[s] and view.phase != "placement":
            line.stylize("dim")
        t.append_text(line)
        if s < view.seats - 1:
            t.append("\n")
    return t


def _row_slot(owner: int | None, card: Card | None, face_up: bool, names: Sequence[str], seat: int | None) -> str:
    who = "dummy" if owner is None else _short(names[owner], 6)
    if card is None:
        return f"[??] {who}"
    if not face_up:  # the viewer's own card, still face down to everyone else
        return f"({card}) {who}"
    return f"[{card}] {who}"


def row_text(view: View, names: Sequence[str]) -> Text:
    """The row in order with who placed each card, empty slots still to fill, and the last round's row."""
    t = Text("Row: ", style="bold")
    slots = [_row_slot(rc.owner, rc.card, rc.face_up, names, view.seat) for rc in view.row]
    if view.phase == "placement":
        # Seats still to place this round, clockwise from the next one (R10).
        placed = {rc.owner for rc in view.row if rc.owner is not None}
        missing = [(view.start + i) % view.seats for i in range(view.seats)]
        slots += [f"[  ] {_short(names[s], 6)}" for s in missing if s not in placed]
    t.append("  ".join(slots) if slots else "(empty)")
    if view.rounds:
        last = view.rounds[-1]
        t.append(f"\nRound {last.number}: ", style="dim")
        cards = " ".join(str(c) for c in last.row)
        if last.buyer is None:
            t.append(f"{cards}  -> void, back to the box", style="dim")
        else:
            extra = f", dogs: {' '.join(str(c) for c in last.chased)}" if last.chased else ""
            t.append(f"{cards}  -> {names[last.buyer]} paid {last.price}{extra}", style="dim")
    return t


def mouse_text(view: View, names: Sequence[str]) -> Text:
    """Mouse cards with what lies on them, what the next passer would get (R13), and the high bid."""
    t = Text("Mouse cards: ", style="bold")
    if view.phase == "over":
        t.append("-")
    elif not any(view.mouse_card_mice) and view.phase != "placement":
        t.append("empty - passers get nothing")
    elif not any(view.mouse_card_mice):
        t.append("empty this round - passers get nothing")
    else:
        t.append(" ".join(f"[{m}]" if m else "[--]" for m in view.mouse_card_mice))
        if view.phase == "bidding":
            t.append(f"  next passer gets {view.next_payout}" if view.next_payout else "  next passer gets nothing")
    t.append("   High bid: ", style="bold")
    if view.high_bidder is None:
        t.append("none")
    else:
        t.append(f"{view.high_bid} by {names[view.high_bidder]}")
    return t


def hand_text(view: View, selected: int | None) -> Text:
    """The hand numbered for the keys 1-9 (``3:+8``), the selected card framed (``3>+8<``); then the money."""
    t = Text("Your hand: ", style="bold")
    if not view.hand:
        t.append("(empty)")
    for i, card in enumerate(view.hand):
        if i == selected:
            t.append(f"{i + 1}>{card}<", style="reverse bold")
        else:
            t.append(f"{i + 1}:{card} ")
        t.append(" ")
    if view.seat is not None:
        t.append(f" Mice: {view.my_money}", style="bold")
    return t


def prompt_text(view: View, names: Sequence[str], bid_amount: int | None) -> Text:
    """What the human can do now, with the legal bid range (R12, R15)."""
    t = Text()
    if view.is_over:
        t.append("Game over.", style="bold")
        return t
    if view.to_move != view.seat:
        t.append(f"Waiting for {names[view.to_move or 0]}...")
        return t
    t.append("Your turn: ", style="bold")
    if view.phase == "placement":
        t.append("pick a card (1-9 or arrows), Enter places it face down.")
    elif view.phase == "last choice":
        t.append("nobody bid. Enter buys the row for 1 mouse, p passes (void round).")
    else:
        rng = bid_range(view)
        if rng is None:
            t.append(f"you cannot beat the high bid {view.high_bid}: press p to pass.")
        else:
            lo, hi = rng
            amount = bid_amount if bid_amount is not None else lo
            t.append("bid ")
            t.append(f"[ {amount} ]", style="reverse bold")
            t.append(f" (legal {lo}-{hi}; digits, +/-, Enter) or p to pass")
    return t


def hint_lines(
    best: str | None,
    values: dict[str, float],
    beliefs: Sequence[dict[str, float] | None],
    view: View,
    names: Sequence[str],
    note: str,
) -> list[str]:
    """The hint panel: suggestion and move values, then P(card) for every face-down row card."""
    out = []
    if best is not None:
        out.append(f"Suggestion (strong bot): {best}")
        if values:
            top = sorted(values.items(), key=lambda kv: -kv[1])[:6]
            out.append("Values: " + ", ".join(f"{m} {v:+.1f}" for m, v in top))
    if note:
        out.append(note)
    out.append("")
    out.append("Face-down cards (probability of each card):")
    shown = False
    for pos, dist in enumerate(beliefs):
        if dist is None:
            continue
        shown = True
        owner = view.row[pos].owner if pos < len(view.row) else None
        who = "dummy" if owner is None else names[owner]
        # Group cards of equal probability so a uniform belief fits on one line.
        groups: dict[str, list[str]] = {}
        for tok, p in sorted(dist.items(), key=lambda kv: (-kv[1], Card.parse(kv[0]))):
            if p > 0:
                groups.setdefault(f"{p * 100:.0f}%", []).append(tok)
        cards = "; ".join(f"{pct} {' '.join(toks)}" for pct, toks in groups.items())
        out.append(f" #{pos + 1} {who}: {cards}")
    if not shown:
        out.append(" (none: every card you cannot see is still in a hand)")
    return out


def final_table_lines(game: Game, names: Sequence[str]) -> list[str]:
    """Rank, score, cats, money and the won pile sorted best card first (R21, R22; papercut 12)."""
    scores, cats, money, ranks = game.scores(), game.cat_points(), game.money, game.ranking()
    width = max(len(n) for n in names)
    out = [f"{'rank':>4}  {'player':<{width}}  {'score':>5}  {'cats':>4}  {'mice':>4}  won pile"]
    for s in sorted(range(game.seats), key=lambda i: (ranks[i], i)):
        pile = _pile(game.won(s))
        out.append(f"{ranks[s]:>4}  {names[s]:<{width}}  {scores[s]:>5}  {cats[s]:>4}  {money[s]:>4}  {pile}")
    return out
