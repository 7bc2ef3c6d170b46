"""rummy-serve in a real browser (headless Chromium through Playwright, as the replay test):
a person plays a whole game of every registered game against agents by clicking (cards,
the stock, the pile and action buttons), with a buy in Toonerville Rook and a going down in
Contract Rummy, downloads the recording and opens it; an agent-against-agent game is
watched to its end, paused and stepped. Slow; skipped without Playwright, the serve extra
or Debian's chromium."""

from __future__ import annotations

import json
import os

import pytest

pytestmark = pytest.mark.slow
sync_api = pytest.importorskip("playwright.sync_api", reason="needs Playwright: pip install -e '.[browser]'")
uvicorn = pytest.importorskip("uvicorn", reason="needs the serve extra: pip install -e '.[serve]'")

import rummy_env  # noqa: E402
from rummy_env.recording import replay  # noqa: E402
from rummy_env.serve.app import ServerThread, create_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def server():
    """A rummy-serve server on a free port of this machine, in a thread."""
    running = ServerThread(create_app(checkpoints=None))
    yield running.url, running.app.state.store
    running.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_table(browser, url: str, game: str, players: int, seat: str, opponents: list[str], seed: int,
               rules: dict | None = None):
    """The page, a new game started from its form; console errors collected on ``page.errors``."""
    page = browser.new_page(viewport={"width": 1300, "height": 950}, accept_downloads=True)
    page.errors = []
    page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", game)
    page.select_option("#players", str(players))
    page.select_option("#seat", seat)
    for select, spec in zip(page.query_selector_all(".opponent"), opponents):
        select.select_option(spec)
    page.fill("#seed", str(seed))
    if rules:
        page.fill("#rules", json.dumps(rules))
    page.click("#start")
    page.wait_for_function("VIEW !== null")
    return page


def view(page) -> dict:
    return page.evaluate("VIEW")


def click_and_wait(page, selector: str) -> None:
    """Clicks ``selector`` and waits for the view it brings (or an error shown)."""
    version = view(page)["version"]
    page.click(selector)
    try:
        page.wait_for_function(f"VIEW.version > {version} || document.getElementById('error').textContent !== ''",
                               timeout=10_000)
    except sync_api.TimeoutError:
        raise AssertionError(f"no answer to a click on {selector} in {view(page)}") from None


def rank(card: str) -> str:
    return card[:-1]


def next_click(state: dict, bought: list[int]) -> str:
    """What the person clicks now: a buy once then passes, going down and further melds,
    lay-offs, a draw from the pile when its top pairs with the hand (else the stock), and a
    discard of the highest card without a partner, clicked in the hand."""
    legal = state["legal"]
    if "buy" in legal:
        choice = "buy" if not bought else "pass"
        bought.append(choice == "buy")
        return f'#actions button[data-action="{choice}"]'
    for prefix in ("meld", "lay off", "go out"):
        chosen = [a for a in legal if a.startswith(prefix)]
        if chosen:
            return f'#actions button[data-action="{chosen[0]}"]'
    hand = state["hands"][state["you"]]
    if "draw stock" in legal or "draw discard" in legal:
        top = state["discard"][-1] if state["discard"] else None
        if "draw discard" in legal and top and any(rank(c) == rank(top) for c in hand):
            return "#discard-top .clickable"
        return "#stock .clickable" if "draw stock" in legal else '#actions button[data-action="draw discard"]'
    discards = [a.split()[1] for a in legal if a.startswith("discard ")]
    if discards:
        lonely = [c for c in discards if sum(rank(h) == rank(c) for h in hand) == 1] or discards
        card = lonely[-1]
        return f'#hand .card[data-card="{card}"]'
    return f'#actions button[data-action="{legal[0]}"]'


@pytest.mark.parametrize("game, players, rules", [
    ("three_thirteen", 2, {"max_turns_per_round": 10}),
    ("contract_rummy", 3, {"max_turns_per_round": 30}),
    ("toonerville_rook", 3, {"max_turns_per_round": 15}),
    ("contract_rummy_quick", 3, {"max_turns_per_round": 30}),
])
def test_a_person_plays_a_whole_game_by_clicking(server, browser, tmp_path, game, players, rules):
    url, store = server
    assert game in rummy_env.GAMES
    page = open_table(browser, url, game, players, "0", ["expert", "greedy"], seed=3, rules=rules)
    bought: list[bool] = []
    went_down = False
    clicks = 0
    while not view(page)["over"]:
        state = view(page)
        assert state["legal"], "the person is asked only when it is their turn"
        click_and_wait(page, next_click(state, bought))
        assert page.inner_text("#error") == "", page.inner_text("#error")
        went_down |= view(page)["gone_down"]["player_0"] and view(page)["contract"] is not None
        clicks += 1
    final = view(page)
    assert final["error"] is None and final["result"] and "Game over. Final scores" in page.inner_text("#event")
    assert len(final["rounds"]) == rummy_env.GAMES[game].rules(num_players=players).num_rounds
    assert page.query_selector_all("#event .revealed .card")  # the last round's hands, as scored
    if game == "toonerville_rook":
        assert True in bought  # a buy question answered "buy" by a click
    if game.startswith("contract_rummy"):
        assert went_down
    with page.expect_download() as download:
        page.click("#download")
    path = tmp_path / "game.jsonl"
    download.value.save_as(path)
    record = json.loads(path.read_text())
    assert replay(record).scores == final["result"]["scores"] and record["players"][0] == "person"
    page.click("#new-game")
    page.set_input_files("#recording-file", str(path))
    page.wait_for_function("document.getElementById('replay').srcdoc.includes('replay-data')")
    assert page.errors == [] and clicks > 20


def test_the_card_just_drawn_is_marked_in_the_hand(server, browser):
    url, _ = server
    page = open_table(browser, url, "three_thirteen", 2, "0", ["greedy"], seed=8)
    assert not page.query_selector_all("#hand .card.drawn")
    click_and_wait(page, "#stock .clickable")
    marked = page.query_selector_all("#hand .card.drawn")
    assert len(marked) == 1 and marked[0].get_attribute("data-card") in view(page)["drawn"]
    assert page.errors == []



def test_a_game_that_cannot_start_says_why_on_the_form(server, browser):
    url, _ = server
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("#game option", state="attached")
    page.fill("#rules", '{"max_turns_per_round": "many"}')
    page.click("#start")
    page.wait_for_function("document.getElementById('error').textContent !== ''")
    assert page.is_visible("#error") and page.is_visible("#setup") and "max_turns_per_round" in page.inner_text("#error")
    page.fill("#rules", "{not json")
    page.click("#start")
    page.wait_for_function("document.getElementById('error').textContent.startsWith('rule options')")
    assert page.is_visible("#error")

def test_agents_are_watched_to_the_end_paused_and_stepped(server, browser):
    url, _ = server
    page = open_table(browser, url, "contract_rummy_quick", 4, "watch", ["expert", "greedy", "random", "expert"],
                      seed=2, rules={"max_turns_per_round": 16})
    assert page.is_visible("#watch-controls") and not page.query_selector_all("#actions button")
    click_and_wait(page, "#step")
    assert view(page)["actions"] == 1 and len(page.query_selector_all("#hand .group")) >= 4  # every hand shown
    page.select_option("#speed", "50")
    page.click("#pause")  # plays
    page.wait_for_function("VIEW.actions > 20")
    page.click("#pause")  # pauses, once the step on its way is answered
    page.wait_for_timeout(300)
    paused = view(page)["actions"]
    page.wait_for_timeout(400)
    assert view(page)["actions"] == paused
    click_and_wait(page, "#step")
    assert view(page)["actions"] == paused + 1
    page.click("#pause")
    page.wait_for_function("VIEW.over", timeout=120_000)
    assert "Game over. Final scores" in page.inner_text("#event") and page.is_visible("#download")
    assert page.errors == []
