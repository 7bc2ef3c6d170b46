"""
# Contract Rummy

| Creation           | `rummy_env.contract_rummy_v0.env()` or `pettingzoo.make("aec", "rummy/contract_rummy-v0")` |
|--------------------|------------------------------------------------------|
| Actions            | Discrete                                             |
| Parallel API       | No                                                   |
| Agents             | `['player_0', ..., 'player_{n-1}']`, n = 3..8 (default 4) |
| Action Shape       | (1,)                                                 |
| Action Values      | Discrete(A): 1,522 / 1,837 / 2,282 / 3,227 for 3 / 4 / 5 / 8 players (defaults) |
| Observation Shape  | (3n² + 379n + 1290,): 2,454 / 2,854 / 3,260 / 4,514 for 3 / 4 / 5 / 8 players |
| Observation Values | [0, `high`]: `observation_space(agent)["observation"].high` bounds every entry |

Seven deals of rummy with a contract each (docs/rules/contract_rummy.md#summary): to go down a player
lays exactly the deal's sets and runs; after that they may lay off cards on any meld on the
table, and swap the joker out of runs. The round ends when a player's hand is empty; every
other hand scores its cards (2..10 face value, J Q K 10, A 15, joker 15). Lowest total after
deal 7 wins; ties share the win.

| deal | cards | contract | | deal | cards | contract |
|---|---|---|---|---|---|---|
| 1 | 10 | 2 sets | | 5 | 12 | 2 sets + 1 run |
| 2 | 10 | 1 set + 1 run | | 6 | 12 | 1 set + 2 runs |
| 3 | 10 | 2 runs | | 7 | 12 | 3 runs, using every card (down = out) |
| 4 | 10 | 3 sets | | | | |

Sets: 3 or 4 cards of one rank, naturals of different suits. Runs: 3 or more of one suit in
order, the ace low (A-2-3) or high (Q-K-A), one ace per run, no wrapping. Two runs of one
suit laid in the same going down may not join up (be adjacent). Every meld holds a natural.

## Configuration

`env(num_players=4, render_mode=None, reward_mode="relative", num_decks=None,
num_jokers=None, max_deep_draw=20, max_table_melds=None, max_turns_per_round=400)`.
By default 3-4 players use one deck and one joker, 5-8 players two decks and two jokers;
`num_decks` / `num_jokers` override that (a deal that does not fit is rejected with a
`ValueError`). `max_table_melds` defaults to 3 per player (always enough). A round that
reaches `max_turns_per_round` turns ends as a dead round; the episode always ends after
deal 7 and is never truncated. `backend=None` plays on the compiled core; `backend="python"` (or
`RUMMY_ENV_BACKEND=python`) on the Python reference engine, which plays identically
(docs/architecture.md).

## Action space

A flat `Discrete(A)`, the same in every state; each id has one meaning and one text. With
F = 53 faces (52 naturals and the joker `JK`, face 52), M = `max_table_melds` and
D = `max_deep_draw`, the blocks are (offsets for 4 players with the defaults):

| block        | offset (4p) | size            | text                                       |
|--------------|-------------|-----------------|--------------------------------------------|
| draw_stock   | 0           | 1               | `draw stock`                               |
| draw_discard | 1           | 1               | `draw discard` (the top card)              |
| deep_draw    | 2           | D - 1           | `draw discard N`, N = 2..D: the N-th card from the top and every card above it |
| discard      | 21          | 53              | `discard 7H`, by face                      |
| meld_set     | 74          | 13 x 5 / 15 / 25 with 0 / 1 / 2+ jokers | `meld set 7 DHS`, `meld set 7 HS +1` |
| meld_run     | 269         | 308             | `meld run H 3 6`, `meld run S A 3`, `meld run S Q A` |
| lay_off      | 577         | M x 53          | `lay off 7H on 2`: id = offset + slot x 53 + face |
| swap         | 1213        | M x 52          | `swap 7H on 2`: id = offset + slot x 52 + face |

Faces are `suit * 13 + rank` with suits C, D, H, S and ranks A, 2, ..., T, J, Q, K
(`AC` = 0, `KS` = 51, `JK` = 52). `meld_set` lists, rank by rank (A first), every set of
1-4 distinct natural suits with 0-2 jokers (no more than the game has) making 3 or 4 cards;
its text names the naturals' suits in the order C D H S, then `+w` for w jokers. `meld_run`
lists, suit by suit, every span `low..high` of run positions (0 = ace low .. 13 = ace high,
length 3..13, never both aces); the run uses the hand's natural for every position it
holds and a joker for each other one. `env.unwrapped.layout.blocks` has the offsets,
`action_to_text(a)` / `text_to_action(s)` convert.

## Action mask

`action_mask` (int8; an `ActionMask`, an ndarray whose `nonzero` runs at bool speed) is 1
exactly for the legal actions of the agent to act, and all zeros
for every other agent. Every offered action leaves the agent a legal way to finish its turn
(docs/rules/README.md#no-dead-ends), checked by an exact search over its own remaining moves:
- **Draw phase**: `draw stock` (always: an empty stock is reshuffled from the discard
  pile, or the round ends as a dead round), `draw discard` when the pile is not empty, and
  `draw discard N` only when the N-th card can be put on the table this turn (in the going
  down melds, or as a lay-off by a player who is down).
- **Play phase**: `discard X` unless X is the face just taken from the top of the discard
  pile and the hand holds no other copy, and never while a deep-drawn card is still in hand
  unmelded or a swapped joker is still to be laid off. Before going down: the contract's
  melds, only when the whole contract can be completed this turn (in deal 7, using every
  card). Once a going down has started, only its remaining melds. Once down (this turn or
  earlier): `lay off X on S` for each card that fits meld slot S (a joker, or an ace that
  fits both ends of a run, goes to the high end when it is open); once down in an earlier
  turn: `swap X on S` for a run whose joker stands for X. No new melds after going down.
The round ends at once when a hand is empty: by the last meld, lay-off or discard.

## Observation

`observation` is float32, from the observing seat's point of view: per-seat parts list
the observer first, then the players to its left in order. Only `hand` is private.

| part           | size          | content                                                  |
|----------------|---------------|----------------------------------------------------------|
| hand           | 53            | own hand: count of each face                             |
| discard_order  | 20 x 53       | the top D = 20 cards of the discard pile, top first: one-hot face per depth |
| discard_pile   | 53            | count of each face in the discard pile                   |
| known_held     | 53 (n-1)      | per other seat, faces it is known to hold (taken from the discard pile, or a joker swapped back) |
| table          | 53            | count of each face in the melds on the table             |
| taken_face     | 53            | one-hot face taken from the top of the discard pile this turn (the discard rule) |
| must_place     | 53            | one-hot deep-drawn face that must still go on the table  |
| table_slots    | 3n (n + 107)  | per meld slot (M = 3n): owner (relative seat, one-hot, n), set, run, count of each natural (52), the faces its jokers stand for (runs, 52), jokers in a set (1) |
| hand_sizes     | n             | hand sizes / 13                                          |
| scores         | n             | cumulative scores / 100                                  |
| gone_down      | n             | 1 for each seat that has gone down this deal             |
| to_act         | n             | one-hot seat to act                                      |
| dealer         | n             | one-hot dealer                                           |
| round          | 7             | one-hot deal                                             |
| contract       | 3             | the deal's contract: sets / 4, runs / 4, 1 if going down must use every card |
| contract_left  | 2             | sets / 4 and runs / 4 still to lay in a going down in progress |
| wilds_owed     | 1             | jokers swapped back this turn and not yet laid off       |
| phase          | 3             | one-hot: draw, play, going down                          |
| stock_size     | 1             | stock size / cards in the game                           |
| turns          | 1             | turns this deal / max_turns_per_round                    |

The offsets are in `env.unwrapped.observer.offsets`.
Every `observe(agent)` (and `last()`) returns new arrays, the caller's own: keeping them,
or changing them in place, never affects a later observation.

## Rewards

Rewards arrive at the step that ends a deal (that step also deals the next one):
- `"relative"` (default): (mean deal penalty of all players - own deal penalty) / 100;
  they sum to zero.
- `"penalty"`: -(own deal penalty) / 100.
- `"win"`: at game end only, +1 to each winner and -1 to every other player.

## Inspection and control (`env.unwrapped`)

`action_to_text`, `text_to_action`, `legal_actions_text`, `describe(agent=None)` (hands,
discard pile, melds with what each joker represents, who is down, the contract and what is
left of it, the card that must be placed, jokers owed), `get_state()` /
`set_state(snapshot)`. An illegal action raises `IllegalActionError` (a `ValueError`)
naming the action and the agent, and changes nothing. The rules, and every point they
leave open, are in [docs/rules/contract_rummy.md](../docs/rules/contract_rummy.md).

## Seeding and reset options

`reset(seed=s)` deals the game of seed `s` (the same deal as in every earlier release of
v0) and seeds the env's own stream of game seeds; every later `reset()` without a seed
deals the next game of that stream, so the same seed and the same actions give the same
games, bit for bit, episode after episode and in a fresh process. Until the first seed the
stream starts from OS entropy.

`options` are the scenario options of
[docs/rules/README.md](../docs/rules/README.md#scenario-set-up): `deck` (the exact shuffled
order of all cards, as card text), `dealer` (seat), `round` (1-based deal), `scores`
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
    metadata = {"render_modes": ["ansi", "human"], "name": "contract_rummy_v0", "is_parallelizable": False}
    rules_factory = staticmethod(GAME_RULES["contract_rummy"].preset)


def env(**kwargs) -> AECEnv:
    return wrap(raw_env(**kwargs))
