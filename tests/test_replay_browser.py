"""rummy-replay's pages in a real browser (headless Chromium through Playwright): a recording
made by rummy-eval, pages made by rummy-replay, then the page stepped through with its
buttons, keys and slider, with no console errors and the cards drawn as card elements.
Slow; skipped without the ``browser`` extra (Playwright) or Debian's chromium."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rummy_env

pytestmark = pytest.mark.slow
sync_api = pytest.importorskip("playwright.sync_api", reason="needs Playwright: pip install -e '.[browser]'")

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"needs Debian's chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

# headless and offline: without these flags chromium tries to reach Google's hosts
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def command(module: str, *args: str, cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=REPO), timeout=600)
    assert done.returncode == 0, done.stderr


def pages_of(tmp_path: Path, game: str, agents: list[str], *replay_args: str) -> tuple[list[dict], Path]:
    """Records one block of ``game`` with rummy-eval, makes its pages with rummy-replay;
    the records and the first game's page."""
    command("rummy_env.evaluate", "--game", game, "--players", str(len(agents)), "--agents", *agents,
            "--games", "1", "--seed", "5", "--record", "games.jsonl", "--no-progress", cwd=tmp_path)
    command("rummy_env.replay", "games.jsonl", "--out", "pages", *replay_args, cwd=tmp_path)
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    return records, sorted((tmp_path / "pages").iterdir())[0]


@pytest.fixture
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_page(browser, path: Path):
    """The page at ``path``, with every console error and uncaught exception collected."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.errors = []
    page.on("console", lambda message: page.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(path.as_uri())
    return page


def shown_action(record: dict, k: int) -> str:
    """How the page names the k-th action (1-based): its seat, player and text."""
    seat, text = record["actions"][k - 1]["seat"], record["actions"][k - 1]["text"]
    return f"player_{seat} ({record['players'][seat]}): {text}"


def test_stepping_through_a_contract_rummy_game(tmp_path, browser):
    records, path = pages_of(tmp_path, "contract_rummy", ["expert", "greedy", "random", "greedy"])
    record = records[0]
    page = open_page(browser, path)
    assert "The deal of round 1" in page.inner_text("#last-action")
    assert page.inner_text("#next-action") == f"Next: {shown_action(record, 1)}"
    assert page.inner_text("#step-label") == f"step 0 of {len(record['actions'])}"
    # every hand in view at the deal, drawn as card elements with rank and suit
    hands = page.locator("#seats .hand .card")
    assert hands.count() == 4 * rummy_env.GAMES["contract_rummy"].rules().rounds[0].hand_size
    assert page.locator("#seats .hand .card.back").count() == 0
    first = hands.first
    assert first.get_attribute("title") and first.locator(".rank").inner_text() and first.locator(".suit").inner_text()
    assert page.locator("#piles .card.back").count() == 1 and page.locator("#piles .card[title]").count() >= 1
    for clicks in range(1, 6):
        page.click("#next")
        assert page.inner_text("#last-action") == f"Step {clicks}: {shown_action(record, clicks)}"
    page.click("#prev")
    assert page.inner_text("#last-action") == f"Step 4: {shown_action(record, 4)}"
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#step-label").startswith("step 5 of")
    page.locator("#slider").fill("300")  # the slider, mid-game
    assert page.inner_text("#last-action") == f"Step 300: {shown_action(record, 300)}"
    page.click("#next-round")
    assert page.inner_text("#status").startswith("round 2 of 7")
    page.keyboard.press("End")
    assert page.inner_text("#next-action") == "Game over"
    assert "Game over. Final scores:" in page.inner_text("#event") and page.is_disabled("#next")
    winners = [f"player_{s}" for s in record["result"]["winners"]]
    assert all(w in page.inner_text("#event") for w in winners)
    assert page.locator("#scores tr").count() == 1 + 7 + 1  # a row per round and the totals
    page.keyboard.press("Home")
    assert page.inner_text("#step-label").startswith("step 0 of") and page.is_disabled("#prev")
    page.screenshot(path=str(tmp_path / "contract_rummy.png"), full_page=True)
    assert (tmp_path / "contract_rummy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert page.errors == []


def test_one_seats_view_of_a_toonerville_rook_game(tmp_path, browser):
    records, path = pages_of(tmp_path, "toonerville_rook", ["greedy", "random", "expert"], "--seat", "1")
    page = open_page(browser, path)
    assert path.name == "games-1-seat1.html"
    seats = page.locator("#seats .seat")
    assert seats.nth(1).locator(".card.back").count() == 0 and seats.nth(1).locator(".card.rook, .card.rook-bird").count() == 12
    for other in (0, 2):  # face down: as many backs as cards, and no card's text
        assert seats.nth(other).locator(".card.back").count() == 12
        assert seats.nth(other).locator(".card[title]:not(.back)").count() == 0
    page.locator("#slider").fill("200")
    assert page.inner_text("#last-action") == f"Step 200: {shown_action(records[0], 200)}"
    page.screenshot(path=str(tmp_path / "toonerville_rook_seat1.png"), full_page=True)
    assert page.errors == []
