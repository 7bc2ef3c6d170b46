"""The agent registry (``make_agent``) and the tournament harness (``rummy_env.evaluate``):
seat rotation, the statistics against hand-computed answers, determinism for any number
of workers, the rounding of the game count, illegal actions, and the CLI end to end.

Games are kept short with ``max_turns_per_round=8``; only ``random`` and the small agents
below play, so nothing here needs the heuristic baselines."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummy_env.agents import AGENT_NAMES, Agent, GameResult, RandomAgent, make_agent
from rummy_env.recording import read_records, replay
from rummy_env.evaluate import (
    _T975,
    AgentActionError,
    GameRecord,
    Interval,
    Report,
    SettingsError,
    evaluate,
    main,
    summarise,
    t975,
)

SHORT = {"max_turns_per_round": 8}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class LowestActionAgent(Agent):
    """Always the lowest legal action id: deterministic, and unlike a random player."""

    name = "lowest"

    def act(self, decision):
        return int(decision.legal_actions[0])


class IllegalActionAgent(Agent):
    """Answers with the lowest action id its mask does not offer."""

    def act(self, decision):
        return int(np.flatnonzero(decision.action_mask == 0)[0])


class NotAnAgent:
    def act(self, decision):
        return 0


LOWEST = f"{__name__}:LowestActionAgent"


def without_execution(report_dict: dict) -> dict:
    """A report's dict less the part that depends on how it ran (workers, timings)."""
    return {k: v for k, v in report_dict.items() if k != "execution"}


# ---------------------------------------------------------------- make_agent
def test_make_agent_builds_the_random_baseline_and_a_user_class():
    assert AGENT_NAMES == ("random", "greedy", "expert")
    assert type(make_agent("random")) is RandomAgent
    assert type(make_agent(LOWEST)) is LowestActionAgent
    assert make_agent("random") is not make_agent("random")  # a fresh agent per entry


@pytest.mark.parametrize("spec, words", [
    ("nonsense", ["'nonsense'", "random, greedy, expert", "module:Class"]),
    ("no_such_module_xyz:Agent", ["'no_such_module_xyz:Agent'", "cannot import"]),
    (f"{__name__}:Missing", ["has no 'Missing'"]),
    (f"{__name__}:NotAnAgent", ["not a subclass of rummy_env.agents.Agent"]),
    ("checkpoints/no_such_file.pt", ["checkpoint", "does not exist"]),
    ("policy.pt", ["checkpoint policy.pt", "does not exist"]),
    ("", ["non-empty"]),
])
def test_make_agent_rejects_bad_specs_clearly(spec, words):
    with pytest.raises(ValueError) as info:
        make_agent(spec)
    for word in words:
        assert word in str(info.value)


def test_a_baseline_that_does_not_import_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "rummy_env.agents.heuristic", None)  # makes its import fail
    with pytest.raises(ValueError, match="agent spec 'greedy': cannot import 'rummy_env.agents.heuristic'"):
        make_agent("greedy")


def test_heuristics_are_imported_only_when_asked_for():
    code = ("import sys, rummy_env.evaluate, rummy_env.agents as a; a.make_agent('random'); "
            "print(sorted(m for m in sys.modules if 'heuristic' in m))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=REPO), cwd=REPO).stdout
    assert out.strip() == "[]"


# ---------------------------------------------------------------- seating and rounding
def test_every_entry_sits_in_every_seat_equally_by_rotation():
    specs = [LOWEST, "random", "random", "random"]
    report = evaluate("three_thirteen", specs, games=8, seed=5, env_kwargs=SHORT)
    n, blocks = 4, 2
    assert report.games_played == 8 and report.blocks == blocks
    seat_counts = np.zeros((n, n), int)  # [entry, seat]
    for record in report.records:
        for seat, entry in enumerate(record.seating):
            seat_counts[entry, seat] += 1
    assert (seat_counts == report.games_played // n).all()
    for b in range(blocks):
        games = [r for r in report.records if r.block == b]
        assert [r.game for r in games] == list(range(n))
        assert len({r.seed for r in games}) == 1  # one deal per block
        for r in games:  # entry i sits in seat (i + r) mod N
            assert r.seating == [(seat - r.game) % n for seat in range(n)]
    assert report.records[0].seed != report.records[n].seed


@pytest.mark.parametrize("requested, played", [(1, 4), (5, 8), (8, 8)])
def test_game_count_is_rounded_up_to_whole_blocks(requested, played):
    report = evaluate("contract_rummy", ["random"] * 4, games=requested, seed=0, env_kwargs=SHORT)
    assert report.games_played == played
    assert report.to_dict()["summary"]["rounded_up"] == (requested != played)
    assert (f"rounded up to {played}" in report.format()) == (requested != played)


# ---------------------------------------------------------------- statistics
def hand_made_records() -> list[GameRecord]:
    """Two blocks of three games, specs ``a b b``, seated by rotation (see the test below
    for the per-seat values worked out by hand)."""
    games = [  # (scores, round penalties); the winners are the lowest scores
        ([10, 10, 30], [[4, 6, 10], [6, 4, 20]]),
        ([5, 20, 20], [[5, 0, 20], [0, 20, 0]]),
        ([30, 20, 10], [[10, 10, 10], [20, 10, 0]]),
        ([0, 0, 0], [[0, 0, 0], [0, 0, 0]]),
        ([12, 6, 6], [[6, 3, 3], [6, 3, 3]]),
        ([8, 16, 24], [[8, 8, 12], [0, 8, 12]]),
    ]
    records = []
    for i, (scores, penalties) in enumerate(games):
        block, r = divmod(i, 3)
        winners = [s for s, score in enumerate(scores) if score == min(scores)]
        records.append(GameRecord(block, r, 100 + block, [(s - r) % 3 for s in range(3)],
                                  GameResult(scores, penalties, winners, [10, 20, 30])))
    return records


def test_summary_matches_hand_computed_values():
    # Per block, the mean over each spec's seat-games (a: 3 per block, b: 6 per block):
    #   block 0  a: win (1/2, 0, 1)          score (10, 20, 10)  pen/round (5, 10, 5)  rank (1.5, 2.5, 1)
    #            b: win (1/2, 0, 1, 0, 0, 0) score (10, 30, 5, 20, 30, 20)
    #               pen/round (5, 15, 2.5, 10, 15, 10)           rank (1.5, 3, 1, 2.5, 3, 2)
    #   block 1  a: win (1/3, 1/2, 0)        score (0, 6, 24)    pen/round (0, 3, 12)  rank (2, 1.5, 3)
    #            b: win (1/3, 1/3, 0, 1/2, 1, 0) score (0, 0, 12, 6, 8, 16)
    #               pen/round (0, 0, 6, 3, 4, 8)                 rank (2, 2, 3, 1.5, 1, 2)
    # With two blocks the interval is t(0.975, 1) * |x0 - x1| / 2, t = 12.706; the win rate's
    # is Wilson's over the seat-games (a: 6, b: 12), checked below.
    expected = {
        "a": {"final_score": (35 / 3, 12.706 * 5 / 3),
              "penalty_per_round": (35 / 6, 12.706 * 5 / 6), "rank": (11.5 / 6, 12.706 / 4)},
        "b": {"final_score": (157 / 12, 12.706 * 73 / 12),
              "penalty_per_round": (78.5 / 12, 12.706 * 36.5 / 12), "rank": (24.5 / 12, 12.706 / 8)},
    }
    summaries = summarise(["a", "b", "b"], hand_made_records())
    assert [s.spec for s in summaries] == ["a", "b"]
    a, b = summaries
    assert (a.entries, a.seat_games, a.decisions) == (1, 6, 120)
    assert (b.entries, b.seat_games, b.decisions) == (2, 12, 240)
    for summary in summaries:
        for metric, (mean, half_width) in expected[summary.spec].items():
            interval = getattr(summary, metric)
            assert interval.mean == pytest.approx(mean), (summary.spec, metric)
            assert interval.half_width == pytest.approx(half_width), (summary.spec, metric)
            assert interval.low == pytest.approx(mean - half_width)
    for summary, share, trials in ((a, 7 / 18, 6), (b, 11 / 36, 12)):
        z = 1.959964
        centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
        half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials**2)) / (1 + z * z / trials)
        assert summary.win_rate.mean == pytest.approx(share)
        assert (summary.win_rate.low, summary.win_rate.high) == pytest.approx((centre - half, centre + half))


def test_interval_of_a_known_sample():
    interval = Interval.of([1.0, 2.0, 3.0, 4.0, 5.0])  # sd = sqrt(2.5), t(0.975, 4) = 2.776
    assert interval.mean == 3.0
    assert interval.half_width == pytest.approx(2.776 * math.sqrt(2.5) / math.sqrt(5))
    single = Interval.of([0.7])
    assert single.half_width is None and single.to_dict()["ci95_low"] is None


def test_win_rate_intervals_stay_inside_zero_and_one():
    """Wilson's interval: 0.5 of 100 gives 0.404-0.596 (the textbook value); all-won and
    none-won samples keep the interval inside [0, 1] and still say how uncertain they are."""
    half = Interval.wilson(0.5, 100)
    assert (half.low, half.high) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    won, lost = Interval.wilson(1.0, 40), Interval.wilson(0.0, 40)
    assert won.high == 1.0 and 0.85 < won.low < 0.95 and lost.low == 0.0 and 0.05 < lost.high < 0.15
    assert won.text(3) == "1.000 [0.912, 1.000]" and Interval.of([2.0, 4.0]).text(1).startswith("3.0 +- ")


def test_t_quantiles():
    assert t975(1) == 12.706 and t975(4) == 2.776 and t975(30) == 2.042
    assert t975(35) == t975(30)  # between rows: the wider interval of the smaller df
    assert t975(99) == 1.987 and t975(100) == 1.984
    assert t975(10**6) == 1.96
    with pytest.raises(ValueError):
        t975(0)


@pytest.mark.parametrize("df", sorted(_T975))
def test_t_table_matches_the_student_t_distribution(df):
    # Each row's quantile, integrated numerically under the t density, gives 0.975.
    t = _T975[df]
    x = np.linspace(0.0, t, 200_001)
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    density = np.exp(log_norm - (df + 1) / 2 * np.log1p(x * x / df))
    area = float(np.sum((density[1:] + density[:-1]) * np.diff(x))) / 2  # the trapezoid rule, in any numpy
    assert 0.5 + area == pytest.approx(0.975, abs=5e-5)


# ---------------------------------------------------------------- determinism and reports
def test_same_seed_same_report_for_any_number_of_workers():
    specs = [LOWEST, "random", "random", "random"]
    one = evaluate("toonerville_rook", specs, games=8, seed=11, env_kwargs=SHORT).to_dict()
    again = evaluate("toonerville_rook", specs, games=8, seed=11, env_kwargs=SHORT).to_dict()
    two = evaluate("toonerville_rook", specs, games=8, seed=11, env_kwargs=SHORT, workers=2).to_dict()
    assert without_execution(one) == without_execution(again) == without_execution(two)
    assert two["execution"]["workers"] == 2
    other = evaluate("toonerville_rook", specs, games=8, seed=12, env_kwargs=SHORT).to_dict()
    assert other["games"] != one["games"]


def test_a_report_read_back_from_its_json_is_the_same_report():
    report = evaluate("toonerville_rook", [LOWEST, "random", "random", "random"], games=8, seed=11,
                      env_kwargs=SHORT)
    back = Report.from_dict(json.loads(json.dumps(report.to_dict())))
    assert _same(back.to_dict(), report.to_dict())
    assert back.format() == report.format()


def _same(a: object, b: object) -> bool:
    """Equal, floats to 12 significant digits (the summaries are computed again, in another order)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12)
    return a == b


def test_report_counts_and_timings_are_consistent():
    specs = [LOWEST, "random", LOWEST]
    report = evaluate("contract_rummy", specs, games=3, seed=2, players=3, env_kwargs=SHORT)
    assert report.players == 3 and report.env_kwargs == SHORT
    lowest, rand = report.agents
    assert (lowest.spec, lowest.entries, lowest.seat_games) == (LOWEST, 2, 6)
    assert (rand.spec, rand.entries, rand.seat_games) == ("random", 1, 3)
    assert report.decisions == sum(sum(r.result.decisions) for r in report.records)
    # Every game's win shares and ranks are shared out in full.
    assert 2 * lowest.win_rate.mean + rand.win_rate.mean == pytest.approx(1.0)
    assert 2 * lowest.rank.mean + rand.rank.mean == pytest.approx(1 + 2 + 3)
    assert lowest.final_score.half_width is None  # a single block has no t interval
    assert 0.0 <= lowest.win_rate.low <= lowest.win_rate.mean <= lowest.win_rate.high <= 1.0  # Wilson's has one
    execution = report.to_dict()["execution"]
    assert execution["decisions_per_second"] == pytest.approx(report.decisions / report.wall_seconds)
    assert all(ms > 0 for ms in execution["ms_per_decision"].values())


def test_settings_errors_are_clear():
    with pytest.raises(SettingsError, match="needs exactly 4 agent specs"):
        evaluate("three_thirteen", ["random"] * 3, games=4, seed=0)
    with pytest.raises(SettingsError, match="bogus"):
        evaluate("three_thirteen", ["random"] * 4, games=4, seed=0, env_kwargs={"bogus": 1})
    with pytest.raises(SettingsError, match="unknown game 'gin'"):
        evaluate("gin", ["random"] * 4, games=4, seed=0)
    with pytest.raises(SettingsError, match="'nonsense'"):
        evaluate("three_thirteen", ["random", "random", "random", "nonsense"], games=4, seed=0)


# ---------------------------------------------------------------- recording
def test_the_recording_is_complete_in_block_order_and_the_same_for_any_number_of_workers(tmp_path):
    specs = [LOWEST, "random", "greedy"]
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    report = evaluate("contract_rummy", specs, games=6, seed=4, players=3, env_kwargs=SHORT, record=one)
    evaluate("contract_rummy", specs, games=6, seed=4, players=3, env_kwargs=SHORT, record=two, workers=2)
    assert one.read_bytes() == two.read_bytes()
    records = [record for _, record in read_records(one)]
    games = report.to_dict()["games"]
    assert len(records) == report.games_played == 6
    for record, game in zip(records, games):
        assert record["tournament"] == {"seed": 4, "block": game["block"], "game": game["game"],
                                        "entries": game["entries"]}
        assert record["players"] == game["seats"] and record["seed"] == game["seed"]
        assert record["env"] == {"num_players": 3, "rules": SHORT, "reward_mode": "relative"}
        result = replay(record)
        assert (result.scores, result.round_penalties, result.winners, result.decisions) == (
            game["scores"], game["round_penalties"], game["winners"], game["decisions"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.jsonl", "two.jsonl"]  # no temporary files left


def test_a_run_stopped_by_an_illegal_action_leaves_no_recording(tmp_path):
    with pytest.raises(AgentActionError):
        evaluate("three_thirteen", ["random", f"{__name__}:IllegalActionAgent", "random", "random"], games=8,
                 seed=0, env_kwargs=SHORT, record=tmp_path / "games.jsonl")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- illegal actions
@pytest.mark.parametrize("workers", [1, 2])
def test_an_illegal_action_stops_the_run_naming_the_agent(workers):
    spec = f"{__name__}:IllegalActionAgent"
    with pytest.raises(AgentActionError) as info:
        evaluate("three_thirteen", ["random", spec, "random", "random"], games=4, seed=0, workers=workers,
                 env_kwargs=SHORT)
    text = str(info.value)
    assert f"agent {spec!r}" in text and "three_thirteen, block 0" in text and "game 1 of 4" in text
    assert "illegal action 2 (discard" in text  # ids 0 and 1 are the draws, legal at a turn's start


# ---------------------------------------------------------------- command line
def test_cli_end_to_end_writes_the_report_as_json(tmp_path):
    out = tmp_path / "out.json"
    specs = ["random", "random", "rummy_env.agents.base:RandomAgent", "random"]
    cmd = [sys.executable, "-m", "rummy_env.evaluate", "--game", "toonerville_rook", "--agents", *specs,
           "--games", "6", "--seed", "3", "--env-kwargs", "max_turns_per_round=8", "--json", str(out),
           "--record", str(tmp_path / "games.jsonl"), "--no-progress"]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO,
                         env=dict(os.environ, PYTHONPATH=REPO), timeout=120)
    assert run.returncode == 0, run.stderr
    assert "rounded up to 8" in run.stdout and "parity (1/N): win rate 0.250" in run.stdout
    assert f"wrote {tmp_path / 'games.jsonl'} (8 games)" in run.stdout
    data = json.loads(out.read_text())
    assert data["settings"]["agents"] == specs and data["settings"]["env_kwargs"] == SHORT
    assert data["settings"]["versions"]["rummy_env"]
    assert data["summary"] == {"games_played": 8, "blocks": 2, "rounded_up": True, "parity": 0.25,
                               "decisions": data["summary"]["decisions"]}
    assert [(a["spec"], a["entries"], a["seat_games"]) for a in data["agents"]] == [
        ("random", 3, 24), ("rummy_env.agents.base:RandomAgent", 1, 8)]
    assert len(data["games"]) == 8
    second = data["games"][1]
    assert second["entries"] == [3, 0, 1, 2] and second["seats"] == [specs[e] for e in second["entries"]]
    assert set(second) >= {"block", "game", "seed", "scores", "winners", "round_penalties", "decisions"}
    # The CLI reports exactly what the library call does.
    library = evaluate("toonerville_rook", specs, games=6, seed=3, env_kwargs=SHORT).to_dict()
    assert without_execution(json.loads(json.dumps(library))) == without_execution(data)
    recorded = [record for _, record in read_records(tmp_path / "games.jsonl")]
    assert [(r["tournament"]["block"], r["tournament"]["game"]) for r in recorded] == [
        (g["block"], g["game"]) for g in data["games"]]


def test_cli_usage_errors(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--game", "three_thirteen", "--agents", "random", "random", "--no-progress"])
    assert info.value.code == 2
    assert "needs exactly 4 agent specs" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "three_thirteen", "--agents", *["random"] * 4, "--env-kwargs", "no_equals_sign"])
    assert "expected key=value" in capsys.readouterr().err


FOUR = ["--agents", "random", "random", "random", "random"]
TRAINER = pytest.mark.skipif(importlib.util.find_spec("rummy_training") is None, reason="needs the train extra")


@pytest.mark.parametrize("args, message", [
    ([*FOUR, "--bogus"], "unknown option --bogus (see rummy-eval --help)"),
    ([*FOUR, "--wrokers", "2"], "unknown option --wrokers; did you mean --workers?"),
    (["--game", "gin", *FOUR[1:]], "argument --game: invalid choice: 'gin'"),
    ([*FOUR, "--games", "many"], "argument --games: invalid int value: 'many'"),
    ([*FOUR, "--games", "0"], "games must be a positive integer, not 0"),
    ([*FOUR, "--seed", "-1"], "seed must be a non-negative integer, not -1"),
    ([*FOUR, "--workers", "0"], "workers must be a positive integer, not 0"),
    ([*FOUR, "--players", "9"], "three_thirteen is for 2 to 4 players, not 9"),
    (["--agents", "random", "nonsense", "random", "random"], "unknown agent spec 'nonsense'; accepted: one of random"),
    (["--agents", "random", "no_such_module_xyz:Agent", "random", "random"], "cannot import 'no_such_module_xyz'"),
    (["--agents", "random", "random"], "three_thirteen with 4 players needs exactly 4 agent specs (one per entry), not 2"),
    (["--agents", "random", "random", "random", "missing.pt"], "missing.pt"),
    pytest.param(["--agents", "random", "random", "random", "garbage.pt"], "checkpoint garbage.pt cannot be read",
                 marks=TRAINER),
    pytest.param(["--agents", "random", "random", "random", "{repo}/checkpoints/toonerville_rook.pt"],
                 "checkpoints/toonerville_rook.pt was trained on toonerville_rook, not three_thirteen", marks=TRAINER),
    ([*FOUR, "--env-kwargs", "bogus=1"], "three_thirteen() got an unexpected keyword argument 'bogus'"),
    ([*FOUR, "--env-kwargs", "no_equals_sign"], "argument --env-kwargs: expected key=value"),
    ([*FOUR, "--env-kwargs", "max_turns_per_round=-3"], "max_turns_per_round must be an integer from 1 to 1,000,000, not -3"),
    ([*FOUR, "--json", "no_such_folder/out.json"], "--json no_such_folder/out.json is in no_such_folder, which does not exist"),
    ([*FOUR, "--record", "."], "--record . is a folder"),
    ([*FOUR, "--record", "garbage.pt/games.jsonl"], "is in garbage.pt, which is not a folder"),
    ([*FOUR, "--json", "out", "--record", "./out"], "--json and --record name the same file out"),
])
def test_every_user_error_is_one_line_and_exit_2_before_any_game_with_nothing_written(tmp_path, args, message,
                                                                                    monkeypatch, capsys):
    """A million games are asked for: the error must come before the first of them. The
    command's main runs in this process (a process per case costs a second of imports);
    the next test runs one case as a real process."""
    (tmp_path / "garbage.pt").write_text("not a checkpoint")
    args = [a.format(repo=REPO) for a in args]
    game = [] if "--game" in args else ["--game", "three_thirteen"]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # main adds the folder, as python -m does
    with pytest.raises(SystemExit) as exit_:
        main([*game, "--games", "1000000", *args, "--no-progress"])
    out = capsys.readouterr()
    assert exit_.value.code == 2, out.err
    assert out.err.startswith("rummy-eval: error: ") and out.err.count("\n") == 1, out.err
    assert message in out.err
    assert out.out == ""
    assert [p.name for p in Path(tmp_path).iterdir()] == ["garbage.pt"]


def test_a_user_error_of_the_command_itself_is_one_line(tmp_path):
    """As a process: no traceback reaches the terminal."""
    run = subprocess.run([sys.executable, "-m", "rummy_env.evaluate", "--game", "three_thirteen", "--agents",
                          "random", "random", "random", "missing.pt", "--no-progress"], capture_output=True,
                         text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=REPO), timeout=120)
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith("rummy-eval: error: ") and "missing.pt" in run.stderr


def test_cli_illegal_action_exits_with_the_error(capsys):
    spec = f"{__name__}:IllegalActionAgent"
    code = main(["--game", "contract_rummy", "--agents", spec, "random", "random", "random", "--games", "4",
                 "--env-kwargs", "max_turns_per_round=8", "--no-progress"])
    assert code == 1
    assert "rummy-eval: error: contract_rummy, block 0" in capsys.readouterr().err
