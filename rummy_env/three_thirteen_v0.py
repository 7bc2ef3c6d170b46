"""
# Three-Thirteen

| Creation           | `rummy_env.three_thirteen_v0.env()` or `pettingzoo.make("aec", "rummy/three_thirteen-v0")` |
|--------------------|------------------------------------------------------|
| Actions            | Discrete                                             |
| Parallel API       | No                                                   |
| Agents             | `['player_0', ..., 'player_{n-1}']`, n = 2..4 (default 4) |
| Action Shape       | (1,)                                                 |
| Action Values      | Discrete(106)                                        |
| Observation Shape  | (52 * (n + 4) + 5 * n + 28,): 350 / 407 / 464 for 2 / 3 / 4 players |
| Observation Values | [0, `high`]: `observation_space(agent)["observation"].high` bounds every entry |

Eleven rounds of rummy (docs/rules/three_thirteen.md#summary): in round r every player gets r + 2
cards and the rank worth r + 2 (3s, 4s, ..., 10s, J, Q, K) is wild. On a turn a player draws
the top card of the stock or of the discard pile and then discards, or goes out: discards
one card while every other card in hand can be arranged into sets (3+ of a rank) and runs
(3+ in suit, ace low, no wrapping). After a player goes out every other player takes exactly
one more turn, then each hand is arranged at its best and its unmatched cards scored
(A 1, 2..10 face value, J/Q/K 10); the player who went out scores 0. Lowest total after
round 11 wins; ties share the win.

## Configuration

`env(num_players=4, render_mode=None, reward_mode="relative", max_turns_per_round=400,
num_decks=None)`. `num_decks` defaults to 1 for 2 players and 2 for 3-4 players.
A round that reaches `max_turns_per_round` turns ends as a dead round (every hand scored
as it stands); the episode always ends after round 11 and is never truncated.
`backend=None` plays on the compiled core; `backend="python"` (or `RUMMY_ENV_BACKEND=python`)
on the Python reference engine, which plays identically (docs/architecture.md).

## Action space

A flat `Discrete(106)`, the same in every state; each id has one meaning and one text.

| ids      | text                         | meaning                                   |
|----------|------------------------------|-------------------------------------------|
| 0        | `draw stock`                 | draw the top card of the stock            |
| 1        | `draw discard`               | take the top card of the discard pile     |
| 2..53    | `discard 7H`                 | discard the card of face `id - 2`         |
| 54..105  | `go out 7H`                  | go out, discarding the card of face `id - 54` |

Faces are `suit * 13 + rank` with suits C, D, H, S and ranks A, 2, ..., T, J, Q, K
(`AC` = 0, `KS` = 51). `env.unwrapped.action_to_text(a)` and `text_to_action(s)` convert.

## Action mask

`action_mask` (int8, 106; an `ActionMask`, an ndarray whose `nonzero` runs at bool speed)
is 1 exactly for the legal actions of the agent to act, and all
zeros for every other agent. It never offers:
- `draw discard` when the discard pile is empty;
- a discard of the face just taken from the discard pile unless the hand holds another
  copy of it (this applies to `go out` too);
- `go out X` unless every other card of the hand melds, nor during the last turns.
Drawing from an empty stock reshuffles the discard pile (all but its top card); if that
gives no card the round ends as a dead round.

## Observation

`observation` is float32, from the observing seat's point of view: per-seat parts list
the observer first, then the players to its left in order. Only `hand` is private.

| part           | size      | content                                                  |
|----------------|-----------|----------------------------------------------------------|
| hand           | 52        | own hand: count of each face                             |
| discard_top    | 52        | top card of the discard pile, one-hot                    |
| discard_pile   | 52        | count of each face in the discard pile                   |
| known_held     | 52 (n-1)  | per other seat, faces taken from the discard pile and still held |
| table          | 52        | count of each face in melds shown by the player who went out |
| taken_face     | 52        | one-hot face taken from the discard pile this turn       |
| hand_sizes     | n         | hand sizes / 14                                          |
| scores         | n         | cumulative scores / 100                                  |
| gone_out       | n         | 1 for the seat that went out this round                  |
| to_act         | n         | one-hot seat to act                                      |
| dealer         | n         | one-hot dealer                                           |
| round          | 11        | one-hot round                                            |
| wild_rank      | 13        | one-hot wild rank                                        |
| phase          | 2         | one-hot: draw, play (discard or go out)                  |
| stock_size     | 1         | stock size / cards in the game                           |
| turns          | 1         | turns this round / max_turns_per_round                   |

The offsets are in `env.unwrapped.observer.offsets`.
Every `observe(agent)` (and `last()`) returns new arrays, the caller's own: keeping them,
or changing them in place, never affects a later observation.

## Rewards

Rewards arrive at the step that ends a round (that step also deals the next round):
- `"relative"` (default): (mean round penalty of all players - own round penalty) / 100;
  they sum to zero.
- `"penalty"`: -(own round penalty) / 100.
- `"win"`: at game end only, +1 to each winner and -1 to every other player.

## Inspection and control (`env.unwrapped`)

`action_to_text`, `text_to_action`, `legal_actions_text`, `describe(agent=None)`,
`get_state()` / `set_state(snapshot)`. An illegal action raises `IllegalActionError` (a
`ValueError`) naming the action and the agent, and changes nothing. The rules, and every
point they leave open, are in [docs/rules/three_thirteen.md](../docs/rules/three_thirteen.md).

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
    metadata = {"render_modes": ["ansi", "human"], "name": "three_thirteen_v0", "is_parallelizable": False}
    rules_factory = staticmethod(GAME_RULES["three_thirteen"].preset)


def env(**kwargs) -> AECEnv:
    return wrap(raw_env(**kwargs))
