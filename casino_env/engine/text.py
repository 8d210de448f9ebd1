"""Plain-text pictures of a state, for the demo, ``print(state)`` and the env's ansi render."""

from __future__ import annotations


def describe_state(st, viewer: int | None = None) -> str:
    """A few lines: scores, the table with builds (value, owner), hands, piles, stock.

    With ``viewer`` set, other seats' hands show only how many cards they hold, and the cut
    card (V-hun-cut) only if the viewer has seen it.
    """
    r = st.rules
    d = r.deck
    lines = [f"{r.variant} · {r.players} players"
             + (f" ({r.teams()})" if r.partnerships else "")
             + f" · dealer {st.dealer} · stock {len(st.stock_ids)}"
             + (" · last deal" if not st.stock_ids else "")]
    lines.append("scores " + "  ".join(f"side {i}: {s}" for i, s in enumerate(st.scores))
                 + (f"  (last hand {list(st.hand_points)})" if st.hand_points is not None else ""))
    table = d.strs(st.loose_mask)
    for b in st.builds:
        kind = "multiple" if b.multiple else "single"
        table.append(f"[{'+'.join(d.strs(b.cards))} = {b.value} {kind}, seat {b.owner}]")
    lines.append("table  " + (" ".join(table) if table else "(empty)"))
    from .view import shown_cut

    cut = shown_cut(st, viewer)  # V-hun-cut: the non-dealer has seen the stock's bottom card
    if cut is not None:
        lines.append(f"cut    {d.names[cut[0]]} (bottom of the stock, seen by seat "
                     f"{cut[1]}; the dealer gets it in the last deal)")
    for seat in range(r.players):
        mark = ">" if seat == st.current and not st.game_over else " "
        if viewer is None or viewer == seat:
            cards = " ".join(d.strs(st.hand_masks[seat])) or "-"
        else:
            cards = f"{st.hand_masks[seat].bit_count()} cards"
        lines.append(f"{mark} seat {seat}: {cards}")
    piles = "  ".join(f"side {i}: {p.bit_count()} cards"
                      + (f", {st.sweeps[i]} sweeps" if r.sweeps else "")
                      + (f", top {st.pile_top(i)}" if st.pile_ids and p else "")
                      for i, p in enumerate(st.pile_masks))
    lines.append("piles  " + piles)
    if st.events:
        lines.append("in play " + ", ".join(f"side {side} {item} {pts:+d}"
                                            for side, item, pts in st.events))
    if st.pending_orange is not None:
        lines.append(f"seat {st.pending_orange} may call the missed orange")
    if st.game_over:
        lines.append(f"game over: side {st.winner} wins")
    return "\n".join(lines)
