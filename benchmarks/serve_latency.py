"""The time from a click on rummy-serve's page to the agents' answer shown.

    python benchmarks/serve_latency.py                       # every game, 4 players, expert opponents
    python benchmarks/serve_latency.py --clicks 40 --opponent greedy

Starts a server in this process, opens its page in headless Chromium (Debian's chromium,
driven by Playwright) and plays the person's seat of each registered game by clicking: the
stock to draw, then the first discard button. Each click is timed from the click to the
page showing the next view, which comes once the agents have played up to the person's
next decision: the server's work (the person's action, every agent's decisions, the view)
and the page's (the request, drawing the view). Prints the median and 90th percentile per
game and kind of click, and the agents' decisions per click.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from rummy_env import GAMES  # noqa: E402
from rummy_env.serve.app import ServerThread, create_app  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def timed_click(page, selector: str) -> float:
    version = page.evaluate("VIEW.version")
    start = time.perf_counter()
    page.click(selector)
    page.wait_for_function(f"VIEW.version > {version} || document.getElementById('error').textContent !== ''")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=60, help="clicks per game (default 60)")
    parser.add_argument("--opponent", default="expert", help="the agent in every other seat (default expert)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    running = ServerThread(create_app(checkpoints=None))
    url = running.url
    print("| game | click | clicks | median ms | 90th percentile ms | agents' decisions per click |")
    print("|---|---|---:|---:|---:|---:|")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        for game in GAMES:
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector("#game option", state="attached")
            page.select_option("#game", game)
            page.select_option("#players", "4")
            for select in page.query_selector_all(".opponent"):
                select.select_option(args.opponent)
            page.fill("#seed", "1")
            page.click("#start")
            page.wait_for_function("VIEW !== null")
            times: dict[str, list[float]] = {"draw (the stock)": [], "discard (agents answer)": []}
            decisions = []
            while len(times["discard (agents answer)"]) < args.clicks and not page.evaluate("VIEW.over"):
                legal = page.evaluate("VIEW.legal")
                if "draw stock" in legal:
                    times["draw (the stock)"].append(timed_click(page, "#stock .clickable"))
                    continue
                before = page.evaluate("VIEW.actions")
                button = next((a for a in legal if a.startswith("discard")), legal[0])
                times["discard (agents answer)"].append(timed_click(page, f'#actions button[data-action="{button}"]'))
                decisions.append(page.evaluate("VIEW.actions") - before - 1)
            for kind, values in times.items():
                if values:
                    ms = sorted(1000 * v for v in values)
                    per = f"{statistics.mean(decisions):.1f}" if kind.startswith("discard") else "0"
                    print(f"| {game} | {kind} | {len(ms)} | {statistics.median(ms):.0f} | {ms[int(0.9 * (len(ms) - 1))]:.0f} "
                          f"| {per} |")
            page.close()
        browser.close()
    running.stop()


if __name__ == "__main__":
    main()
