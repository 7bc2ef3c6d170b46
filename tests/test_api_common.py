"""The API that every registered game shares, written once over the registry
(``rummy_env.GAMES``): registration, the action space and action text, bad input (configs,
actions, action text), rendering, determinism, state snapshots and reward modes. Each
game's own API file holds what its docstring and its rules fix (sizes, action tables,
examples of its text, its parts of the observation)."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from test_env_common import GAMES

import rummy_env
from rummy_env.rules.games import GAME_RULES
from rummy_env import IllegalActionError
from rummy_env.agents import Episode, make_agent
from rummy_env.state import Phase


def smallest_env(game: str, **kwargs):
    return GAMES[game].module.env(num_players=GAMES[game].player_counts[0], **kwargs)


def random_actions(env, seed: int, rng_seed: int) -> list[int]:
    """The actions of one random game from ``reset(seed=seed)``."""
    env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        actions.append(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.step(actions[-1])
    return actions


def trace(env, actions: list[int]) -> list:
    """Every step's acting agent, observation, mask and reward, and the final describe()."""
    steps = []
    for action in actions:
        obs, reward, _, _, _ = env.last()
        steps.append((env.agent_selection, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        env.step(action)
    return steps + [env.unwrapped.describe()]


# ---------------------------------------------------------------- registration and config
def test_the_registry_lists_every_env_module_and_refuses_other_names():
    modules = {spec.module.__name__ for spec in rummy_env.GAMES.values()}
    assert modules == {f"rummy_env.{m}" for m in rummy_env.__all__ if m.endswith("_v0")}
    assert list(rummy_env.GAMES) == list(GAME_RULES)  # the env layer reads the rules' one list
    for name, spec in rummy_env.GAMES.items():
        assert rummy_env.game_spec(name) is spec and spec.rules().game == name
        assert spec.rules is GAME_RULES[name].preset is spec.module.raw_env.rules_factory  # the env reads the registry
        assert spec.default_players in spec.player_counts and spec.defaults["num_players"] == spec.default_players
    with pytest.raises(ValueError, match="unknown game 'gin'; games: three_thirteen, contract_rummy"):
        rummy_env.game_spec("gin")


@pytest.mark.parametrize("game", GAMES)
def test_registered_with_pettingzoo_make_at_its_defaults(game):
    spec = rummy_env.GAMES[game]
    env = pettingzoo.make("aec", spec.env_id)
    env.reset(seed=3)
    assert env.possible_agents == [f"player_{i}" for i in range(spec.default_players)]
    raw = env.unwrapped
    assert raw.rules.game == game and raw.metadata["name"] == f"{game}_v0"
    obs = env.last()[0]
    assert obs["observation"].shape == env.observation_space(env.agent_selection)["observation"].shape
    assert obs["action_mask"].shape == (env.action_space(env.agent_selection).n,)


@pytest.mark.parametrize("game", GAMES)
def test_bad_configurations_raise_value_errors_naming_them(game):
    spec = rummy_env.GAMES[game]
    low, high = spec.player_counts[0], spec.player_counts[-1]
    for n in (low - 1, high + 1, "4", 3.0):
        with pytest.raises(ValueError, match=f"{game} is for {low} to {high} players"):
            spec.env(num_players=n)
    with pytest.raises(ValueError, match=f"{game} is for {low} to {high} players"):
        pettingzoo.make("aec", spec.env_id, num_players=high + 1)
    with pytest.raises(ValueError, match="colour"):
        spec.env(colour="red")
    for bad in ({"max_turns_per_round": 0}, {"reward_mode": "points"}, {"render_mode": "rgb"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            spec.env(**bad)


# ---------------------------------------------------------------- actions
@pytest.mark.parametrize("game", GAMES)
def test_action_space_same_discrete_for_every_agent_and_state(game):
    env = smallest_env(game, max_turns_per_round=6)
    expected = spaces.Discrete(env.unwrapped.layout.size)
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    for agent in env.agent_iter():
        for a in env.possible_agents:
            assert env.action_space(a) == expected and env.unwrapped.action_space(a) == expected
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("game", GAMES)
def test_envs_and_batches_of_the_same_rules_share_one_action_layout(game):
    """A layout is built once per rules and process (Toonerville Rook's takes 0.08 s), and
    other rules get their own."""
    from rummy_env import vector

    spec = rummy_env.GAMES[game]
    first, second = spec.raw_env(), spec.raw_env()
    assert first.layout is second.layout is vector.make(game, 2, seed=0).layout
    other = max(spec.player_counts, key=lambda n: n != len(first.possible_agents))
    assert spec.raw_env(num_players=other).layout is not first.layout


@pytest.mark.parametrize("game", GAMES)
def test_non_integer_and_out_of_range_actions_raise_and_change_nothing(game):
    env = smallest_env(game)
    env.reset(seed=0)
    raw = env.unwrapped
    before = raw.describe()
    size = raw.layout.size
    agent = env.agent_selection
    expected = [(-1, f"{agent}: action -1 is outside the action space 0..{size - 1}"),
                (size, f"{agent}: action {size} is outside the action space 0..{size - 1}"),
                (10**6, "action 1000000 is outside the action space"),
                (1.0, f"{agent}: action 1.0 is not an action id: an action is an integer in 0..{size - 1}"),
                ("0", "action '0' is not an action id"), ("draw stock", "action 'draw stock' is not an action id"),
                (True, "action True is not an action id"), (np.float32(0), "is not an action id"),
                (None, f"{agent}: action None is only for a seat that is done; {agent} is to act with an integer id "
                       f"in 0..{size - 1}")]
    for bad, words in expected:
        for target in (env, raw):  # through the wrappers and on the raw env alike
            with pytest.raises(IllegalActionError) as info:
                target.step(bad)
            assert words in str(info.value)
    for bad in (np.bool_(False), [0]):
        with pytest.raises(IllegalActionError, match="is not an action id"):
            raw.step(bad)
    assert raw.describe() == before
    env.step(np.int32(0))  # numpy integers are accepted: draw stock
    assert raw.describe()["phase"] in ("play", "buy")


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_names_the_action_the_agent_and_the_legal_ones(game):
    env = smallest_env(game)
    env.reset(seed=0)
    raw = env.unwrapped
    agent, before, described = env.agent_selection, raw.get_state(), raw.describe()
    discard = raw.layout.discard(int(np.flatnonzero(raw.game_state.hands[raw.game_state.current])[0]))
    with pytest.raises(IllegalActionError) as info:
        env.step(discard)  # never legal before drawing
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert agent in message and raw.action_to_text(discard) in message and "draw stock" in message
    assert raw.describe() == described
    after = raw.get_state()
    assert after.state.hands == before.state.hands and after.state.stock == before.state.stock
    assert after.state.rng.getstate() == before.state.rng.getstate() and after.agent_selection == agent


@pytest.mark.parametrize("game", GAMES)
def test_action_text_round_trips_for_every_id(game):
    raw = GAMES[game].module.raw_env(num_players=GAMES[game].player_counts[0])
    texts = set()
    for a in range(raw.layout.size):
        text = raw.action_to_text(a)
        assert raw.text_to_action(text) == a
        assert raw.text_to_action(text.upper()) == a
        assert raw.text_to_action(f"  {text.lower()}  ".replace(" ", "  ")) == a
        assert raw.action_to_text(np.int64(a)) == text
        texts.add(text)
    assert len(texts) == raw.layout.size
    assert raw.action_to_text(0) == "draw stock" and raw.action_to_text(1) == "draw discard"


@pytest.mark.parametrize("bad", [None, 3, ["draw", "stock"], "", "   ", "fly away", "draw deck", "discard ZZ"])
@pytest.mark.parametrize("game", GAMES)
def test_text_to_action_rejects_what_names_no_action(game, bad):
    raw = GAMES[game].module.raw_env(num_players=GAMES[game].player_counts[0])
    with pytest.raises(ValueError):
        raw.text_to_action(bad)


@pytest.mark.parametrize("game", GAMES)
def test_action_to_text_rejects_ids_outside_the_space(game):
    raw = GAMES[game].module.raw_env(num_players=GAMES[game].player_counts[0])
    for bad in (-1, raw.layout.size, 10**6):
        with pytest.raises(ValueError, match=str(bad)):
            raw.action_to_text(bad)


@pytest.mark.parametrize("game", GAMES)
def test_legal_actions_text_matches_the_mask_and_is_ascending(game):
    env = GAMES[game].module.env(num_players=GAMES[game].player_counts[-1], max_turns_per_round=20)
    env.reset(seed=11)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        assert raw.legal_actions_text() == [raw.action_to_text(a) for a in legal]
        assert raw.engine.legal_actions(raw.game_state) == legal  # ascending, as promised
        env.step(int(rng.choice(legal)))


# ---------------------------------------------------------------- rendering and views
@pytest.mark.parametrize("game", GAMES)
def test_render_shows_the_table_and_describe_hides_other_hands(game, capsys):
    env = smallest_env(game, render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    raw = env.unwrapped
    assert isinstance(text, str) and game in text
    assert all(a in text for a in env.possible_agents)
    assert all(card in text for card in raw.describe()["hands"][env.agent_selection])
    full = raw.describe()
    for a in env.possible_agents:
        assert raw.describe(a)["hands"] == {a: full["hands"][a]}
    quiet = smallest_env(game)
    quiet.reset(seed=5)
    assert quiet.render() is None
    loud = smallest_env(game, render_mode="human")
    loud.reset(seed=5)
    loud.step(0)
    assert "player_0" in capsys.readouterr().out


@pytest.mark.parametrize("game", GAMES)
def test_render_shows_the_last_actions_and_the_last_rounds_penalties(game):
    """Greedy play into the second round: the last actions as text (the most recent last),
    each finished round's penalties by seat, and wilds of runs as card text."""
    env = smallest_env(game, render_mode="ansi")
    raw = env.unwrapped
    episode = Episode(env)
    episode.reset(3)
    agents = [make_agent("greedy") for _ in env.possible_agents]
    for seat, agent in enumerate(agents):
        agent.start_game(episode.seat_infos[seat], seat)
    taken = []
    while raw.game_state.round == 0:
        action = agents[episode.seat].act(episode.decision())
        taken.append(f"{env.agent_selection} {raw.action_to_text(action)}")
        episode.step(action)
    lines = env.render().splitlines()
    assert lines[-1] == "last actions: " + "; ".join(taken[-6:])
    penalties = raw.game_state.round_penalties[0]
    assert lines[-2] == "last round (1) penalties: " + ", ".join(
        f"{a} {p}" for a, p in zip(env.possible_agents, penalties))
    assert "[" not in env.render() and "{" not in env.render()  # card text, not Python lists or dicts
    env.reset(seed=3)
    assert "last actions" not in env.render() and "last round" not in env.render()


def test_render_names_the_cards_that_wilds_stand_for_in_a_run(monkeypatch):
    env = rummy_env.contract_rummy_v0.env(render_mode="ansi")
    env.reset(seed=1)
    raw = env.unwrapped
    described = raw.describe()
    run = {"slot": 0, "owner": "player_1", "kind": "run", "cards": ["4H", "JK", "6H", "2C"], "represents": ["5H", "7H"]}
    monkeypatch.setattr(raw, "describe", lambda agent=None: {**described, "melds": [run]})
    assert "  meld 0 (player_1, run): 4H JK 6H 2C (wilds as 5H 7H)" in env.render().splitlines()


# ---------------------------------------------------------------- determinism and snapshots
@pytest.mark.parametrize("game", GAMES)
def test_same_seed_and_actions_give_identical_games(game):
    """Bit for bit, in a fresh env and in one reused after another game; another seed deals
    differently."""
    def make():
        return smallest_env(game, max_turns_per_round=30)

    actions = random_actions(make(), seed=99, rng_seed=1)
    fresh, reused = make(), make()
    random_actions(reused, seed=5, rng_seed=2)
    traces = []
    for env in (fresh, reused):
        env.reset(seed=99)
        traces.append(trace(env, actions))
    assert traces[0] == traces[1]
    assert fresh.unwrapped.game_state.phase == Phase.GAME_OVER
    other = make()
    other.reset(seed=100)
    fresh.reset(seed=99)
    assert other.unwrapped.describe()["hands"] != fresh.unwrapped.describe()["hands"]


@pytest.mark.parametrize("game", GAMES)
def test_get_state_set_state_round_trip_mid_game(game):
    n = GAMES[game].player_counts[0]
    env = smallest_env(game, max_turns_per_round=40)
    raw = env.unwrapped
    actions = random_actions(env, seed=7, rng_seed=3)
    env.reset(seed=7)
    half = len(actions) // 2
    for action in actions[:half]:
        env.step(action)
    rest = actions[half:]
    snapshot = raw.get_state()
    expected = trace(env, rest)
    raw.set_state(snapshot)  # the snapshot is unaffected by the play since
    assert trace(env, rest) == expected
    other = smallest_env(game, max_turns_per_round=40)  # a fresh env of the same configuration
    other.reset(seed=12345)
    other.unwrapped.set_state(snapshot)
    assert trace(other, rest) == expected
    with pytest.raises(ValueError):
        raw.set_state("junk")
    with pytest.raises(ValueError):
        GAMES[game].module.raw_env(num_players=n + 1).set_state(snapshot)


@pytest.mark.parametrize("mode", ["relative", "penalty", "win"])
@pytest.mark.parametrize("game", GAMES)
def test_reward_modes_pay_at_round_ends_and_sum_to_the_game_results(game, mode):
    """Rewards arrive only on the step that ends a round (to every seat, whoever acted):
    ``relative`` pays the round's penalties against their mean (zero-sum), ``penalty`` the
    negated penalties, ``win`` +1 / -1 at the game's end only; over the game they sum to the
    documented results."""
    env = smallest_env(game, reward_mode=mode, max_turns_per_round=8)
    raw, names = env.unwrapped, env.possible_agents
    n = len(names)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in names}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        ended = len(raw.game_state.round_penalties)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        st, rewards = raw.game_state, dict(raw.rewards)
        if len(st.round_penalties) == ended:
            assert not any(rewards.values()), "rewards arrive only on the step that ends a round"
            continue
        pens = st.round_penalties[-1]
        if mode == "relative":
            expected = {a: (sum(pens) / n - p) / 100 for a, p in zip(names, pens)}
            assert sum(rewards.values()) == pytest.approx(0, abs=1e-9)
        elif mode == "penalty":
            expected = {a: -p / 100 for a, p in zip(names, pens)}
        elif st.phase == Phase.GAME_OVER:
            expected = {a: 1.0 if s == min(st.scores) else -1.0 for a, s in zip(names, st.scores)}
        else:
            expected = {a: 0.0 for a in names}
        assert rewards == pytest.approx(expected)
    scores = raw.game_state.scores
    assert len(raw.game_state.round_penalties) == raw.rules.num_rounds
    if mode == "relative":
        expected = {a: (sum(scores) / n - s) / 100 for a, s in zip(names, scores)}
    elif mode == "penalty":
        expected = {a: -s / 100 for a, s in zip(names, scores)}
    else:
        expected = {a: 1.0 if s == min(scores) else -1.0 for a, s in zip(names, scores)}
    assert totals == pytest.approx(expected)
