"""The page that ``rummy-replay`` writes for one game: HTML, CSS and script in one file,
with the game's data inline (``rummy_env.replay.page_data``), so that it needs nothing
but a browser. The script rebuilds each step's state from the changes stored per step."""

from __future__ import annotations

import html
import json
from typing import Any

STYLE = """
body { margin: 0; font: 14px/1.4 "DejaVu Sans", Arial, sans-serif; background: #17462f; color: #f2f2f2; }
header { padding: 8px 16px; background: #0e2f1f; }
h1 { font-size: 18px; margin: 0; }
.sub, .count, .who, #next-action { color: #cfe3d6; }
.sub { font-size: 12px; }
#controls { display: flex; gap: 6px; align-items: center; padding: 8px 16px; background: #0b261a;
  position: sticky; top: 0; z-index: 2; }
#controls button { font-size: 14px; padding: 4px 10px; border-radius: 4px; border: 1px solid #8fbfa3;
  background: #e9f5ee; color: #123; cursor: pointer; }
#controls button:disabled { opacity: .4; cursor: default; }
#slider { flex: 1; }
#step-label { min-width: 10em; text-align: right; font-variant-numeric: tabular-nums; }
#status { padding: 6px 16px 0; }
#moves { padding: 2px 16px 8px; }
#last-action { font-size: 17px; font-weight: bold; }
#event { margin: 4px 0 0; padding: 6px 10px; background: #f5d76e; color: #222; border-radius: 4px; }
#event:empty { display: none; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 320px; gap: 12px; padding: 0 16px 16px; }
.panel { background: rgba(0, 0, 0, .18); border-radius: 8px; padding: 8px 10px; margin-bottom: 10px; }
.panel h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; margin: 0 0 6px; color: #cfe3d6; }
#piles { display: flex; gap: 28px; align-items: flex-end; }
.pile { text-align: center; }
.count, .who { font-size: 11px; }
.meld { display: inline-block; margin: 0 16px 8px 0; vertical-align: top; }
.seat { border-left: 4px solid transparent; }
.seat.to-act { border-left-color: #f5d76e; background: rgba(245, 215, 110, .12); }
.seat-head { display: flex; gap: 10px; flex-wrap: wrap; align-items: baseline; }
.seat-name { font-weight: bold; }
.tag { font-size: 11px; padding: 1px 7px; border-radius: 8px; background: #2e7d57; }
.tag.act { background: #f5d76e; color: #222; }
.hand { margin-top: 4px; min-height: 62px; }
.hand.hidden .card { margin-right: -28px; }
.card { display: inline-flex; flex-direction: column; justify-content: space-between; position: relative;
  width: 40px; height: 58px; margin: 2px; padding: 3px 4px; box-sizing: border-box; vertical-align: top;
  border-radius: 5px; border: 1px solid #888; background: #fff; color: #111; font-weight: bold;
  box-shadow: 1px 1px 2px rgba(0, 0, 0, .35); }
.card .rank { font-size: 17px; line-height: 1; }
.card .suit { font-size: 20px; line-height: 1; align-self: flex-end; }
.card.red { color: #c0172b; }
.card.joker { color: #6a1b9a; background: linear-gradient(135deg, #fff 55%, #eadcf2); }
.card.joker .suit, .card.rook-bird .suit, .card.rook .suit { font-size: 9px; letter-spacing: .03em; }
.card.rook.c-R { background: #c62828; color: #fff; }
.card.rook.c-Y { background: #f9d423; color: #222; }
.card.rook.c-G { background: #2e7d32; color: #fff; }
.card.rook.c-B { background: #212121; color: #fff; }
.card.rook-bird { background: linear-gradient(135deg, #37474f, #78909c); color: #fff; }
.card.wild { box-shadow: 0 0 0 2px #f5b400, 1px 1px 2px rgba(0, 0, 0, .35); }
.card.wild::after { content: "W"; position: absolute; top: 2px; right: 3px; font-size: 9px; color: #b07800; }
.card.drawn { outline: 3px solid #f5d76e; outline-offset: 1px; }
.group { display: inline-block; margin: 0 10px 4px 0; padding: 2px; border-radius: 6px; vertical-align: top; }
.group.meld { background: rgba(120, 200, 150, .35); }
.card.back { background: repeating-linear-gradient(45deg, #2b4c9b 0 4px, #203b7d 4px 8px); border: 2px solid #fff; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 2px 4px; text-align: right; border-bottom: 1px solid rgba(255, 255, 255, .12); }
th:first-child, td:first-child { text-align: left; }
tr.total td { font-weight: bold; }
#log { margin: 0; padding-left: 3.2em; font-size: 12px; }
#log li.current { color: #f5d76e; font-weight: bold; }
footer { padding: 0 16px 12px; font-size: 12px; color: #cfe3d6; }
"""

CARD_SCRIPT = r"""
const SUITS = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
const COLOURS = {R: "red", Y: "yellow", G: "green", B: "black"};
function cardHtml(text, wildRank, deck, extra = "") {
  if (text === "JK") return `<span class="card joker wild${extra}" title="joker" data-card="JK"><span class="rank">\u2605</span><span class="suit">JOKER</span></span>`;
  if (text === "ROOK") return `<span class="card rook-bird wild${extra}" title="Rook" data-card="ROOK"><span class="rank">R</span><span class="suit">ROOK</span></span>`;
  const rank = text.slice(0, -1), suit = text.slice(-1);
  const wild = rank === wildRank ? " wild" : "";
  if (deck === "rook") {
    return `<span class="card rook c-${suit}${wild}${extra}" title="${text}" data-card="${text}"><span class="rank">${rank}</span><span class="suit">${COLOURS[suit]}</span></span>`;
  }
  const colour = suit === "D" || suit === "H" ? "red" : "black";
  return `<span class="card ${colour}${wild}${extra}" title="${text}" data-card="${text}"><span class="rank">${rank === "T" ? "10" : rank}</span><span class="suit">${SUITS[suit]}</span></span>`;
}
"""
"""The cards' look, shared by the replay pages and ``rummy-serve``'s page: ``cardHtml(text,
wild rank, deck kind, extra classes)``."""

_SCRIPT = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("replay-data").textContent);
const N = DATA.actions.length;
const STATES = [];
DATA.frames.forEach((change, k) => STATES.push(k ? Object.assign({}, STATES[k - 1], change) : change));
const ROUND_STARTS = STATES.map((s, k) => k).filter(k => k === 0 || STATES[k].round !== STATES[k - 1].round);
const $ = id => document.getElementById(id);
let step = 0;

function esc(text) {
  return String(text).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})[c]);
}
function who(seat) {
  const name = DATA.names[seat], player = DATA.players[seat];
  return esc(player === name ? name : `${name} (${player})`);
}
function card(index, wildRank) { return cardHtml(DATA.cards[index], wildRank, DATA.deck); }
function cards(list, wildRank) { return list.map(c => card(c, wildRank)).join(""); }
function marked(list, drawn, wildRank) {  // the cards just drawn outlined (the first copies of each)
  const left = [...drawn];
  return list.map(c => {
    const k = left.indexOf(c);
    if (k >= 0) left.splice(k, 1);
    return cardHtml(DATA.cards[c], wildRank, DATA.deck, k >= 0 ? " drawn" : "");
  }).join("");
}
function arranged(melds, loose, wildRank) {
  return melds.map(m => `<span class="group meld">${cards(m, wildRank)}</span>`).join("") +
    (loose.length ? `<span class="group">${cards(loose, wildRank)}</span>` : "");
}
function backs(count) { return '<span class="card back" title="face down"></span>'.repeat(count); }
function action(k) { const [seat, text] = DATA.actions[k - 1]; return `${who(seat)}: ${esc(text)}`; }

function render() {
  const s = STATES[step], wild = s.wild;
  $("step-label").textContent = `step ${step} of ${N}`;
  $("slider").value = step;
  $("first").disabled = $("prev").disabled = $("prev-round").disabled = step === 0;
  $("last").disabled = $("next").disabled = $("next-round").disabled = step === N;
  const rule = s.contract ? `contract: ${esc(s.contract)}` : `wild rank: ${esc(wild === "T" ? "10" : wild)}`;
  const notes = [`round ${s.round} of ${DATA.num_rounds}`, rule, `dealer ${who(s.dealer)}`, `turn ${s.turns}`,
                 s.to_act >= 0 ? `${s.phase.replace("_", " ")}: ${who(s.to_act)} to act` : s.phase.replace("_", " ")];
  if (s.current >= 0 && s.current !== s.to_act) notes.push(`${who(s.current)}'s turn`);  // a buy question
  if (s.left) notes.push(esc(s.left));
  if (s.must !== null) notes.push(`must place ${esc(DATA.cards[s.must])}`);
  $("status").innerHTML = notes.join(" \u00b7 ");
  $("last-action").innerHTML = step ? `Step ${step}: ${action(step)}` : `The deal of round ${s.round}`;
  $("next-action").innerHTML = step < N ? `Next: ${action(step + 1)}` : "Game over";
  const events = [];
  if (step && s.penalties.length > STATES[step - 1].penalties.length) {
    const pens = s.penalties[s.penalties.length - 1];
    events.push(`Round ${s.penalties.length} over. Penalties: ` + pens.map((p, i) => `${who(i)} ${p}`).join(", "));
    if (s.ended) events.push('<div class="scored">' + s.ended.map(([melds, loose], i) =>
      `<div class="who">${who(i)}: ${pens[i]}</div>` + (melds.length || loose.length ? arranged(melds, loose, wild) : "(no cards)")).join("") + "</div>");
  }
  if (step === N) {
    const r = DATA.result;
    events.push("Game over. Final scores: " + r.scores.map((p, i) => `${who(i)} ${p}`).join(", ") +
                `. Winner${r.winners.length > 1 ? "s" : ""}: ` + r.winners.map(who).join(" and ") + ".");
  }
  $("event").innerHTML = events.join("<br>");

  const top = s.top === null ? '<div class="count">(empty)</div>' : card(s.top, wild);
  let piles = `<div class="pile">${backs(s.stock ? 1 : 0)}<div class="count">stock: ${s.stock}</div></div>` +
              `<div class="pile">${top}<div class="count">discard pile: ${s.pile}</div></div>`;
  if (s.question) piles += `<div class="pile">${card(s.question[1], wild)}<div class="count">on offer to ${who(s.question[0])}</div></div>`;
  if (s.taken !== null) piles += `<div class="pile">${card(s.taken, wild)}<div class="count">taken from the pile</div></div>`;
  $("piles").innerHTML = piles;
  $("melds").innerHTML = s.melds.length ? s.melds.map(([owner, kind, list, stands]) =>
      `<div class="meld"><div class="who">${who(owner)}, ${kind}${stands && stands.length ? ` (wild as ${esc(stands.join(" "))})` : ""}</div>${cards(list, wild)}</div>`
    ).join("") : '<div class="count">no melds on the table</div>';

  $("seats").innerHTML = DATA.names.map((name, i) => {
    const hand = s["hand" + i];
    const tags = [];
    if (i === s.to_act) tags.push('<span class="tag act">to act</span>');
    if (i === s.dealer) tags.push('<span class="tag">dealer</span>');
    if (s.down[i]) tags.push('<span class="tag">down</span>');
    if (i === DATA.seat) tags.push('<span class="tag">this view</span>');
    if (s.buys) tags.push(`<span class="count">buys: ${s.buys[i]}</span>`);
    return `<div class="panel seat${i === s.to_act ? " to-act" : ""}"><div class="seat-head"><span class="seat-name">${who(i)}</span>` +
      `<span>score ${s.scores[i]}</span><span class="count">${s.sizes[i]} card${s.sizes[i] === 1 ? "" : "s"}</span>${tags.join("")}</div>` +
      (hand ? `<div class="hand">${marked(hand, ((s.drawn || []).find(d => d[0] === i) || [i, []])[1], wild)}</div>` :
       `<div class="hand hidden">${backs(s.sizes[i])}</div>`) + "</div>";
  }).join("");

  const head = "<tr><th>round</th>" + DATA.names.map((n, i) => `<th title="${who(i)}">${esc(n.replace("player_", "p"))}</th>`).join("") + "</tr>";
  const rows = s.penalties.map((pens, r) => `<tr><td>${r + 1}</td>` + pens.map(p => `<td>${p}</td>`).join("") + "</tr>");
  const total = '<tr class="total"><td>total</td>' + s.scores.map(p => `<td>${p}</td>`).join("") + "</tr>";
  $("scores").innerHTML = head + rows.join("") + total;

  const first = Math.max(1, step - 11);
  const log = [];
  for (let k = first; k <= Math.min(N, step + 1); k++) {
    log.push(`<li value="${k}"${k === step ? ' class="current"' : ""}>${action(k)}</li>`);
  }
  $("log").innerHTML = log.join("");
}

function go(k) { step = Math.max(0, Math.min(N, k)); render(); }
function roundBack() { go(Math.max(...ROUND_STARTS.filter(k => k < step), 0)); }
function roundOn() { const later = ROUND_STARTS.filter(k => k > step); go(later.length ? later[0] : N); }

$("slider").max = N;
$("slider").addEventListener("input", e => go(Number(e.target.value)));
$("first").addEventListener("click", () => go(0));
$("prev").addEventListener("click", () => go(step - 1));
$("next").addEventListener("click", () => go(step + 1));
$("last").addEventListener("click", () => go(N));
$("prev-round").addEventListener("click", roundBack);
$("next-round").addEventListener("click", roundOn);
document.addEventListener("keydown", e => {
  if (e.target === $("slider")) return;  // the slider moves itself with the arrow keys
  const keys = {ArrowLeft: () => go(step - 1), ArrowRight: () => go(step + 1), Home: () => go(0), End: () => go(N),
                PageUp: roundBack, PageDown: roundOn};
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});
render();
"""

_BODY = """<header><h1>{title}</h1><div class="sub">{subtitle}</div></header>
<nav id="controls">
<button id="first" title="the deal (Home)">|&#x25C0; deal</button>
<button id="prev-round" title="start of this or the previous round (Page Up)">&#x25C0;&#x25C0; round</button>
<button id="prev" title="previous step (left arrow)">&#x25C0; previous</button>
<input id="slider" type="range" min="0" value="0" aria-label="step">
<button id="next" title="next step (right arrow)">next &#x25B6;</button>
<button id="next-round" title="start of the next round (Page Down)">round &#x25B6;&#x25B6;</button>
<button id="last" title="the end (End)">end &#x25B6;|</button>
<span id="step-label"></span>
</nav>
<div id="status"></div>
<div id="moves"><div id="last-action"></div><div id="next-action"></div><div id="event"></div></div>
<main>
<div><div class="panel"><h2>Table</h2><div id="piles"></div><div id="melds"></div></div><div id="seats"></div></div>
<aside><div class="panel"><h2>Scores</h2><table id="scores"></table></div>
<div class="panel"><h2>Actions</h2><ol id="log"></ol></div></aside>
</main>
<footer>Keys: left and right arrows step back and on, Page Up and Page Down by round, Home and End.</footer>"""


def _titles(data: dict[str, Any]) -> tuple[str, str]:
    game = data["game"].replace("_", " ").title()
    where = data.get("tournament")
    at = f", tournament seed {where['seed']} block {where['block']} game {where['game']}" if where else ""
    rules = ", ".join(f"{k}={v}" for k, v in data["env"].get("rules", {}).items())
    view = "every hand shown" if data["seat"] is None else f"what {data['names'][data['seat']]} saw"
    players = ", ".join(name if player == name else f"{name}: {player}"
                        for name, player in zip(data["names"], data["players"]))
    subtitle = f"seed {data['seed']}{at}; {players}; {view}" + (f"; rules {rules}" if rules else "")
    return f"{game}, {len(data['names'])} players", subtitle


def render_page(data: dict[str, Any]) -> str:
    """The whole page for ``data`` (``rummy_env.replay.page_data``)."""
    title, subtitle = _titles(data)
    # "<" escaped, so that no text in the data can close the script element
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    body = _BODY.format(title=html.escape(title), subtitle=html.escape(subtitle))
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="icon" href="data:,"><title>{html.escape(title)}, seed {data["seed"]}</title>'
            f"<style>{STYLE}</style></head><body>\n{body}\n"
            f'<script id="replay-data" type="application/json">{payload}</script>\n'
            f"<script>{CARD_SCRIPT}{_SCRIPT}</script></body></html>\n")


def render_index(title: str, games: list[dict[str, Any]]) -> str:
    """The index page of a recording's pages: a row per game, linking its page, with its game,
    players, seed, length and result. ``games`` holds ``page`` (the file name) and the
    ``page_data`` of each."""
    rows = []
    for number, entry in enumerate(games, 1):
        data = entry["data"]
        name, _ = _titles(data)
        result = data["result"]
        scores = ", ".join(f"{seat}: {score}" for seat, score in zip(data["names"], result["scores"]))
        winners = ", ".join(data["names"][seat] for seat in result["winners"])
        players = ", ".join(data["players"])
        rows.append(f'<tr><td><a href="{html.escape(entry["page"])}">game {number}</a></td><td>{html.escape(name)}</td>'
                    f"<td>{html.escape(players)}</td><td>{data['seed']}</td><td>{len(data['actions']):,}</td>"
                    f"<td>{html.escape(scores)}</td><td>{html.escape(winners)}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("page", "game", "players", "seed", "actions", "final scores", "winners"))
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="icon" href="data:,"><title>{html.escape(title)}</title>'
            f"<style>{STYLE}{_INDEX_STYLE}</style></head><body>\n"
            f"<header><h1>{html.escape(title)}</h1><div class=\"sub\">{len(games)} game(s); each page steps "
            f"through one game</div></header>\n<main class=\"index\"><div class=\"panel\"><table>"
            f"<tr>{head}</tr>\n" + "\n".join(rows) + "</table></div></main></body></html>\n")


_INDEX_STYLE = """
main.index { display: block; padding: 12px 16px; }
main.index td, main.index th { text-align: left; padding: 4px 8px; }
main.index a { color: #f5d76e; }
"""
