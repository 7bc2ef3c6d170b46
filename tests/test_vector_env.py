"""``SeatVectorEnv``, the Gymnasium ``VectorEnv`` over the batched tables, on every registered
game: each table's episode returns exactly what the learning seat receives in the AEC env
playing the same seed with the same policies; the spaces, the masks, the same-step resets,
the drawn seats and bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env.registry import GAMES
from rummy_env.vector_env import SeatVectorEnv


def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.argmax(masks, axis=1)


def aec_game(game: str, seed: int, seat: int, **rules) -> tuple[float, list[int]]:
    """The learner's return and the final scores, every seat taking its first legal action."""
    env = GAMES[game].raw_env(**rules)
    env.reset(seed=seed)
    total = 0.0
    while not all(env.terminations.values()):
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
        total += env.rewards[f"player_{seat}"]
    return total, list(env.game_state.scores)


@pytest.mark.parametrize("game", list(GAMES))
def test_each_episode_returns_what_the_seat_receives_in_the_aec_env(game: str) -> None:
    rules = dict(num_players=3, max_turns_per_round=5)
    envs = SeatVectorEnv(game, 3, learner_seat=1, opponent=first_legal, seed=-4, **rules)
    obs, infos = envs.reset(seed=40)
    assert obs.shape == (3, envs.single_observation_space.shape[0]) and obs.dtype == np.float32
    assert envs.observation_space.shape == obs.shape and envs.action_space.shape == (3,)
    returns, ended = np.zeros(3), [None] * 3
    for _ in range(5000):
        assert infos["action_mask"].any(axis=1).all() and (infos["seat"] == 1).all()
        np.testing.assert_array_equal(infos["action_mask"], envs.action_masks())
        obs, rewards, terminations, truncations, infos = envs.step(np.argmax(infos["action_mask"], axis=1))
        assert rewards.dtype == np.float32 and not truncations.any()
        assert (infos.get("_final_scores", np.zeros(3, bool)) == terminations).all()
        for i in np.flatnonzero(terminations):
            if ended[i] is None:
                ended[i] = (returns[i] + rewards[i], infos["final_scores"][i].tolist())
        returns += np.where([e is None for e in ended], rewards, 0.0)
        if all(e is not None for e in ended):
            break
    for i, (total, scores) in enumerate(ended):
        want_total, want_scores = aec_game(game, 40 + i, 1, **rules)
        assert scores == want_scores
        assert total == pytest.approx(want_total, abs=1e-5)


def test_the_seat_is_drawn_per_game_and_the_masks_are_the_learners() -> None:
    game = next(iter(GAMES))
    envs = SeatVectorEnv(game, 8, learner_seat=None, seed=3, max_turns_per_round=3)
    obs, infos = envs.reset(seed=3)
    seats = set()
    for _ in range(400):
        seats.update(infos["seat"].tolist())
        view = envs.tables.observe()
        np.testing.assert_array_equal(view.seat, infos["seat"])  # every table waits on the learner
        np.testing.assert_array_equal(view.mask, infos["action_mask"])
        np.testing.assert_array_equal(view.obs, obs)
        obs, rewards, terminations, truncations, infos = envs.step(np.argmax(infos["action_mask"], axis=1))
    assert seats == set(range(envs.tables.num_players))


def test_the_same_seed_gives_the_same_episodes() -> None:
    game = next(iter(GAMES))
    runs = []
    for _ in range(2):
        envs = SeatVectorEnv(game, 4, learner_seat=None, max_turns_per_round=4)
        obs, infos = envs.reset(seed=9)
        assert envs.np_random_seed == 9  # Gymnasium's reading of it keeps the generator seeded
        rng = np.random.default_rng(0)
        trace = []
        for _ in range(200):
            actions = np.argmax(rng.random(infos["action_mask"].shape) * infos["action_mask"], axis=1)
            obs, rewards, terminations, _, infos = envs.step(actions)
            trace.append((obs.tobytes(), rewards.tobytes(), terminations.tobytes(), infos["seat"].tobytes()))
        runs.append(trace)
    assert runs[0] == runs[1]


def test_bad_arguments_are_refused() -> None:
    game = next(iter(GAMES))
    for kwargs, message in [(dict(learner_seat=4), "learner_seat"), (dict(learner_seat=True), "learner_seat"),
                            (dict(opponent="expert"), "opponent"), (dict(num_players=9), "players")]:
        with pytest.raises(ValueError, match=message):
            SeatVectorEnv(game, 2, **kwargs)
    envs = SeatVectorEnv(game, 2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="options"):
        envs.reset(options={"deck": []})
    with pytest.raises(ValueError, match="seed"):
        envs.reset(seed=True)


def test_an_opponent_that_fails_leaves_the_env_to_be_reset() -> None:
    game = next(iter(GAMES))
    calls = []

    def flaky(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(len(masks))
        if len(calls) == 12:
            return np.argmin(masks, axis=1)  # an illegal action
        return np.argmax(masks, axis=1)

    envs = SeatVectorEnv(game, 2, opponent=flaky)
    obs, infos = envs.reset(seed=1)
    with pytest.raises(Exception, match="illegal"):
        for _ in range(50):
            obs, *_, infos = envs.step(np.argmax(infos["action_mask"], axis=1))
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.argmax(infos["action_mask"], axis=1))
    obs, infos = envs.reset(seed=1)
    envs.step(np.argmax(infos["action_mask"], axis=1))


def test_random_legal_picks_each_legal_action_of_a_row_alike() -> None:
    from rummy_env.vector_env import random_legal

    mask = np.zeros((3, 7), dtype=bool)
    mask[0, [1, 4, 6]] = True
    mask[1, 0] = True
    mask[2, :] = True
    rng = np.random.default_rng(0)
    picks = np.stack([random_legal(rng, mask) for _ in range(6000)])
    assert mask[np.arange(3), picks].all()
    assert set(picks[:, 1]) == {0}
    for row, legal in ((0, [1, 4, 6]), (2, range(7))):
        counts = np.bincount(picks[:, row], minlength=7)[list(legal)]
        assert counts.min() > 0.8 * 6000 / len(legal) and counts.max() < 1.2 * 6000 / len(legal)
    mask[1, 0] = False
    with pytest.raises(ValueError, match="row 1 of the mask has no legal action"):
        random_legal(rng, mask)

