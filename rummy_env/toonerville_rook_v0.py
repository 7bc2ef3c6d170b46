"""
# Toonerville Rook

| Creation           | `rummy_env.toonerville_rook_v0.env()` or `pettingzoo.make("aec", "rummy/toonerville_rook-v0")` |
|--------------------|------------------------------------------------------|
| Actions            | Discrete                                             |
| Parallel API       | No                                                   |
| Agents             | `['player_0', ..., 'player_{n-1}']`, n = 3..5 (default 4) |
| Action Shape       | (1,)                                                 |
| Action Values      | Discrete(A): 5,515 / 6,587 / 7,491 for 3 / 4 / 5 players (defaults) |
| Observation Shape  | (8n² + 984n + 308,): 3,332 / 4,372 / 5,428 for 3 / 4 / 5 players |
| Observation Values | [0, `high`]: `observation_space(agent)["observation"].high` bounds every entry |

Eleven rounds of contract rummy with Rook cards (docs/rules/toonerville_rook.md#summary): one 57-card
Rook deck per player (colours R Y G B numbered 1..14, and one Rook, wild), all shuffled
together. To go down a player lays at least the round's contract; after that they may lay
down further melds of any kind and lay off cards on any meld on the table. When the player
to act draws from the stock, the others may **buy** the top discard out of turn (it comes
with a penalty card from the stock). The round ends when a hand is empty; every other hand
scores its cards (1..9: 5, 10..14: 10, Rook: 25). Lowest total after round 11 wins; ties
share the win.

| round | cards | contract | | round | cards | contract |
|---|---|---|---|---|---|---|
| 1 | 12 | 2 sets | | 7 | 12 | 4 sets |
| 2 | 12 | 1 run + 1 set | | 8 | 12 | 3 runs |
| 3 | 12 | 2 runs | | 9 | 15 | 5 sets |
| 4 | 12 | 3 sets | | 10 | 16 | 4 runs |
| 5 | 12 | 1 run + 2 sets | | 11 | 14 | 2 runs + 2 sets, the last card may not be discarded |
| 6 | 12 | 2 runs + 1 set | | | | |

Sets: 3 or more cards of one number, any colours, duplicates allowed, no maximum. Runs: 4
or more of one colour in order, 1 low and 14 high, never wrapping (no 13-14-1). Every meld
holds a natural. The Rook in a run may be swapped by any player on their turn (it must go
straight back into a meld that turn); a Rook in a set stays there.

## Configuration

`env(num_players=4, render_mode=None, reward_mode="relative", max_buys_per_round=None,
max_table_melds=None, max_turns_per_round=400)`. `max_buys_per_round` caps each player's
buys per round (`None`: unlimited). `max_table_melds` (meld slots) defaults to 8 per
player. A round that reaches `max_turns_per_round` turns ends as a dead round (buy
questions are not turns); the episode always ends after round 11 and is never truncated.
`backend=None` plays on the compiled core; `backend="python"` (or
`RUMMY_ENV_BACKEND=python`) on the Python reference engine, which plays identically
(docs/architecture.md).

## Action space

A flat `Discrete(A)`, the same in every state; each id has one meaning and one text. With
F = 57 faces (56 naturals and the Rook `ROOK`, face 56) and M = `max_table_melds`, the
blocks are (offsets for 4 players with the defaults):

| block        | offset (4p) | size            | text                                       |
|--------------|-------------|-----------------|--------------------------------------------|
| draw_stock   | 0           | 1               | `draw stock`                               |
| draw_discard | 1           | 1               | `draw discard` (the top card)              |
| buy          | 2           | 2               | `buy` (2), `pass` (3): the buy question    |
| discard      | 4           | 57              | `discard 7R`, by face                      |
| meld_set     | 61          | 14 x 177 (3p) / 14 x 189 (4-5p) | `meld set 5 RYG`, `meld set 5 RRY`, `meld set 12 RB +2` |
| meld_run     | 2707        | 264             | `meld run G 11 14`                         |
| lay_off      | 2971        | M x 57          | `lay off 7R on 2`: id = offset + slot x 57 + face |
| swap         | 2971 + 57M  | M x 56          | `swap 7R on 2`: id = offset + slot x 56 + face |

Faces are `colour * 14 + number - 1` with colours R, Y, G, B (`1R` = 0, `14B` = 55,
`ROOK` = 56). `meld_set` lists, number by number, every multiset of 1-4 natural colours
(a colour at most min(4, players) times: one deck per player) with 0-2 Rooks making 3 or
more cards; its text names the naturals' colours in the order R Y G B, then `+w` for w
Rooks. Bigger sets are made by laying off. `meld_run` lists, colour by colour, every span
`low..high` of numbers with at least 4 cards; the run uses the hand's natural for every
number it holds and a Rook for each other one. `env.unwrapped.layout.blocks` has the
offsets, `action_to_text(a)` / `text_to_action(s)` convert.

## Turns and the buy question

Turn: `draw stock` or `draw discard`; then melds, lay-offs and swaps; then a discard
(unless the hand is empty). When the player to act chooses `draw stock` and the discard
pile is not empty, a **buy question** starts (phase `buy`) before the draw: the other
players are asked one at a time, from the player's left round to the player's right, and
the agent to act (`agent_selection`) is the one asked, with the mask offering exactly `buy`
and `pass`. Not asked: the player to act, the player who discarded the top card (nobody
for the round's upcard), players who have used up `max_buys_per_round`. The first `buy`
ends the question: the buyer takes the top discard (seen by all) and a penalty card from
the stock (seen by the buyer alone); then the player to act draws from the stock, and it
is their turn again. When everyone passes, the draw happens the same way. No question is
asked unless the stock, reshuffled from the discard pile if needed (after the bought card
has left it), can give both the penalty card and the draw. Buy questions are not turns.

## Action mask

`action_mask` (int8; an `ActionMask`, an ndarray whose `nonzero` runs at bool speed) is 1
exactly for the legal actions of the agent to act, and all zeros
for every other agent. Every offered action leaves the agent a legal way to finish its turn
(docs/rules/README.md#no-dead-ends), checked by an exact search over its own remaining moves:
- **Draw phase**: `draw stock` (always: an empty stock is reshuffled from the discard
  pile, or the round ends as a dead round) and `draw discard` when the pile is not empty.
- **Buy question**: `buy` and `pass`, for the agent asked.
- **Play phase**: `discard X` unless X is the face just taken from the top of the discard
  pile and the hand holds no other copy, never while a swapped Rook is still to be played,
  and in round 11 never the last card. Before going down: the contract's melds, only when
  the whole contract can be completed this turn; once a going down has started, only its
  remaining melds. Once down (this turn or earlier): further `meld set` / `meld run` of any
  kind, and `lay off X on S` for each card that fits meld slot S (a Rook goes to a run's
  high end when it is open, else the low end). At any time after drawing, except in the
  middle of a going down: `swap X on S` for a run whose Rook stands for X; the Rook then
  has to be played in a meld or a lay-off before the discard (by a player not yet down, in
  the melds of this turn's going down, so a swap is only offered when that is possible).
The round ends at once when a hand is empty: by the last meld, lay-off or discard (round
11: not by a discard).

## Observation

`observation` is float32, from the observing seat's point of view: per-seat parts list
the observer first, then the players to its left in order. Only `hand` is private: the
penalty card of a purchase is in no other part.

| part           | size          | content                                                  |
|----------------|---------------|----------------------------------------------------------|
| hand           | 57            | own hand: count of each face                             |
| discard_top    | 57            | one-hot top card of the discard pile                     |
| discard_pile   | 57            | count of each face in the discard pile                   |
| known_held     | 57 (n-1)      | per other seat, faces it is known to hold (taken from the discard pile, bought, or a Rook swapped back) |
| table          | 57            | count of each face in the melds on the table             |
| taken_face     | 57            | one-hot face taken from the top of the discard pile this turn (the discard rule) |
| table_slots    | 8n (n + 115)  | per meld slot (M = 8n): owner (relative seat, one-hot, n), set, run, count of each natural (56), the faces its Rooks stand for (runs, 56), Rooks in a set (1) |
| buy_offer      | 57            | one-hot card offered in the buy question in progress     |
| hand_sizes     | n             | hand sizes / 17                                          |
| scores         | n             | cumulative scores / 100                                  |
| gone_down      | n             | 1 for each seat that has gone down this round            |
| to_act         | n             | one-hot seat to act (the one asked, during a buy question) |
| dealer         | n             | one-hot dealer                                           |
| round          | 11            | one-hot round                                            |
| contract       | 3             | the round's contract: sets / 4, runs / 4, 1 in round 11 (no final discard) |
| contract_left  | 2             | sets / 4 and runs / 4 still to lay in a going down in progress |
| wilds_owed     | 1             | Rooks swapped back this turn and not yet played          |
| turn_owner     | n             | one-hot seat whose turn it is                            |
| buys           | n             | cards each seat bought this round / 10 (each came with a penalty card) |
| phase          | 4             | one-hot: draw, play, going down, buy question            |
| stock_size     | 1             | stock size / cards in the game                           |
| turns          | 1             | turns this round / max_turns_per_round                   |

The offsets are in `env.unwrapped.observer.offsets`.
Every `observe(agent)` (and `last()`) returns new arrays, the caller's own: keeping them,
or changing them in place, never affects a later observation.

## Rewards

Rewards arrive at the step that ends a round (that step also deals the next one):
- `"relative"` (default): (mean round penalty of all players - own round penalty) / 100;
  they sum to zero.
- `"penalty"`: -(own round penalty) / 100.
- `"win"`: at game end only, +1 to each winner and -1 to every other player.

## Inspection and control (`env.unwrapped`)

`action_to_text`, `text_to_action`, `legal_actions_text`, `describe(agent=None)` (hands,
discard pile, melds with what each Rook represents, who is down, the contract and what is
left of it, Rooks owed, the buy question (`{"card", "asked"}` or `None`), buys per agent,
`current` (whose turn) and `to_act`), `get_state()` / `set_state(snapshot)`. An illegal
action raises `IllegalActionError` (a `ValueError`) naming the action and the agent, and
changes nothing. The rules, and every point they leave open, are in
[docs/rules/toonerville_rook.md](../docs/rules/toonerville_rook.md).

## Seeding and reset options

`reset(seed=s)` deals the game of seed `s` (the same deal as in every earlier release of
v0) and seeds the env's own stream of game seeds; every later `reset()` without a seed
deals the next game of that stream, so the same seed and the same actions give the same
games, bit for bit, episode after episode and in a fresh process. Until the first seed the
stream starts from OS entropy.

`options` are the scenario options of
[docs/rules/README.md](../docs/rules/README.md#scenario-set-up): `deck` (the exact shuffled
order of all cards, as card text), `dealer` (seat), `round` (1-based), `scores`
(a list per seat or a dict per agent, integers from 0 to `env.unwrapped.rules.max_score`).
An unknown key is ignored with a `UserWarning` that names it and lists the known ones, as
`pettingzoo.test.api_test` expects. A bad value of a known key, or a bad seed, raises
`ValueError` and changes nothing: the game in progress and the seed stream stay as they were.

## Version history

* v0: first release.
"""

from __future__ import annotations

from pettingzoo import AECEnv

from .env import RummyEnv, wrap
from .rules.games import GAME_RULES


class raw_env(RummyEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "toonerville_rook_v0", "is_parallelizable": False}
    rules_factory = staticmethod(GAME_RULES["toonerville_rook"].preset)


def env(**kwargs) -> AECEnv:
    return wrap(raw_env(**kwargs))
