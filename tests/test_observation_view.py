"""``Observer.decode`` reads back what ``encode`` wrote, for every registered game: during
random play, each seat's decoded view gives the facts of the game state that the seat may
see (its hand, the piles, the table slot by slot, the seats' hand sizes, scores, buys and
flags, the round, the phase and the turn), with seats relative to it."""

from __future__ import annotations

import numpy as np
import pytest
from test_env_common import GAMES

from rummy_env.state import Phase

PHASE_NAMES = {Phase.DRAW: "draw", Phase.PLAY: "play", Phase.GOING_DOWN: "going_down", Phase.BUY: "buy"}


def rotated(values: list, seat: int) -> list:
    return list(values[seat:]) + list(values[:seat])


def check_view(raw, seat: int) -> None:
    st, observer = raw.game_state, raw.observer
    view = observer.decode(observer.encode(st, seat))
    n, N = raw.rules.num_players, raw.rules.deck.card_set.num_naturals
    assert view.counts("hand") == list(st.hands[seat])
    assert view.counts("discard_pile") == list(st.discard_counts)
    top = "discard_order" if view.has("discard_order") else "discard_top"
    assert view.face(top) == (st.discard[-1] if st.discard else -1)
    if view.has("discard_order"):
        depth = min(len(st.discard), raw.layout.max_deep_draw)
        assert view.discard_order(depth) == st.discard[::-1][:depth]
    for rel in range(1, n):
        assert view.known_of(rel) == list(st.known[(seat + rel) % n])
    assert view.hand_sizes == rotated(st.hand_sizes, seat)
    assert view.scores == rotated(st.scores, seat)
    assert view.turns == st.turns and view.stock_size == len(st.stock)
    assert view.index("round") == st.round and view.index("dealer") == (st.dealer - seat) % n
    assert view.face("taken_face") == st.taken_face
    if st.phase == Phase.GAME_OVER:
        assert view.phase == "over"
    else:
        assert view.phase == PHASE_NAMES[st.phase]
        assert view.index("to_act") == (raw.engine.to_act(st) - seat) % n
    if raw.rules.contract_play is None:
        assert view.flags("gone_out") == [rel == (st.went_out - seat) % n and st.went_out >= 0 for rel in range(n)]
        return
    assert view.flags("gone_down") == [turn >= 0 for turn in rotated(st.down_turn, seat)]
    slots = view.table_slots()
    assert len(slots) == len(st.table)
    for slot, tm in zip(slots, st.table):
        meld = tm.meld
        assert slot.owner == (tm.owner - seat) % n and slot.is_set == (meld.kind == "set")
        assert sorted(slot.naturals) == sorted(meld.naturals) and all(f < N for f in slot.naturals)
        if meld.kind == "set":
            assert slot.set_wilds == meld.wilds and slot.represents == ()
        else:
            R = raw.rules.deck.card_set.num_ranks
            assert slot.represents == tuple(sorted(meld.suit * R + q % R for q in meld.wild_positions(R)))
    if view.has("buys"):
        assert view.buys == rotated(st.buys, seat)
        assert view.face("buy_offer") == (st.discard[-1] if st.phase == Phase.BUY else -1)


@pytest.mark.parametrize("game", GAMES)
def test_decode_reads_back_what_encode_wrote(game: str):
    spec = GAMES[game]
    n = spec.player_counts[-1]
    env = spec.module.env(num_players=n, max_turns_per_round=40)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    raw = env.unwrapped
    checked = 0
    for step, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if step % 3 == 0:
            for seat in range(n):
                check_view(raw, seat)
                checked += 1
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 100
