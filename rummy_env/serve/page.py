"""``rummy-serve``'s page: pick a game and its players, then play by clicking, or watch
agents play. It has the replay pages' look (``replay_page.STYLE`` and ``CARD_SCRIPT``) and
reads everything from the API (docs/serve.md): the view after each request, and live
updates from the game's event stream."""

from __future__ import annotations

from ..replay_page import CARD_SCRIPT, STYLE

_STYLE = """
#setup { max-width: 760px; margin: 16px; }
#setup label { display: block; margin: 6px 0; }
#setup select, #setup input { font-size: 14px; margin-left: 6px; }
#opponents label { margin-left: 16px; }
button { font-size: 14px; padding: 4px 10px; border-radius: 4px; border: 1px solid #8fbfa3; background: #e9f5ee;
  color: #123; cursor: pointer; }
button:disabled { opacity: .4; cursor: default; }
#actions button { margin: 2px; }
#actions button.match { background: #f5d76e; }
.card.chosen { transform: translateY(-8px); }
.clickable { cursor: pointer; }
#hand .card { cursor: pointer; }
#error:empty, #event:empty { display: none; }
#error { margin: 4px 16px; padding: 6px 10px; background: #e57373; color: #111; border-radius: 4px; }
#pile-all:empty { display: none; }
#replay { width: 100%; height: 85vh; border: 0; background: #fff; }
.revealed .who { margin-top: 4px; }
"""

_BODY = """<header><h1>rummy-serve</h1><div class="sub" id="sub">play against agents, or watch them play</div></header>
<div id="error"></div>
<section id="setup" class="panel">
<h2>New game</h2>
<label>Game <select id="game"></select></label>
<label>Players <select id="players"></select></label>
<label>Your seat <select id="seat"></select></label>
<div id="opponents"></div>
<label>Seed <input id="seed" type="number" placeholder="any"></label>
<label>Rule options <input id="rules" size="40" placeholder='JSON, e.g. {"max_turns_per_round": 40}'></label>
<button id="start">Start</button>
<h2 style="margin-top:16px">Open a recording</h2>
<input id="recording-file" type="file" accept=".jsonl,.json">
</section>
<section id="table" hidden>
<nav id="controls">
<button id="new-game">New game</button>
<span id="watch-controls" hidden>
<button id="pause">Play</button> <button id="step">Step</button>
<label>speed <select id="speed"><option value="1000">1 s</option><option value="300" selected>0.3 s</option>
<option value="50">as fast as it goes</option></select></label></span>
<button id="download" hidden>Download the recording</button>
<span id="step-label"></span>
</nav>
<div id="status"></div>
<div id="moves"><div id="event"></div></div>
<main>
<div>
<div class="panel"><h2>Table</h2><div id="piles"></div><div id="pile-all"></div><div id="melds"></div></div>
<div class="panel" id="hand-panel"><h2 id="hand-title">Your hand</h2><div id="hand"></div><div id="actions"></div></div>
<div id="seats"></div>
</div>
<aside>
<div class="panel"><h2>Scores</h2><table id="scores"></table></div>
<div class="panel"><h2>Since your last turn</h2><ol id="since"></ol></div>
<div class="panel"><h2>Last actions</h2><ol id="log"></ol></div>
</aside>
</main>
</section>
<section id="replay-panel" hidden><iframe id="replay" title="recording"></iframe></section>"""

_SCRIPT = r"""
"use strict";
const $ = id => document.getElementById(id);
let OPTIONS = null, GAME = null, VIEW = null, LIVE = null, TIMER = null, CHOSEN = null;

function esc(text) {
  return String(text).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})[c]);
}
async function api(method, path, body) {
  const headers = {"Content-Type": "application/json"};
  if (GAME) headers.Authorization = `Bearer ${GAME.token}`;
  const answer = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await answer.json();
  if (!answer.ok) throw new Error(data.error || answer.statusText);
  return data;
}
function showError(message) { $("error").textContent = message || ""; }

// ------------------------------------------------------------------ the new-game form
function fillSeats() {
  const players = Number($("players").value);
  const seat = $("seat").value;
  $("seat").innerHTML = [...Array(players).keys()].map(s => `<option value="${s}">player_${s}</option>`).join("") +
    '<option value="watch">none: watch agents play</option>';
  $("seat").value = seat !== "" && (seat === "watch" || Number(seat) < players) ? seat : "0";
  const watch = $("seat").value === "watch";
  const agents = OPTIONS.agents.map(a => `<option>${esc(a)}</option>`).join("");
  $("opponents").innerHTML = [...Array(players).keys()].filter(s => watch || s !== Number($("seat").value)).map(s =>
    `<label>player_${s} <select class="opponent" data-seat="${s}">${agents}</select></label>`).join("");
  document.querySelectorAll(".opponent").forEach(el => { el.value = "greedy"; });
}
function fillPlayers() {
  const game = OPTIONS.games[$("game").value];
  $("players").innerHTML = game.players.map(n => `<option${n === game.default_players ? " selected" : ""}>${n}</option>`).join("");
  fillSeats();
}
async function setup() {
  OPTIONS = await api("GET", "/api/options");
  $("game").innerHTML = Object.entries(OPTIONS.games).map(([name, g]) =>
    `<option value="${name}" title="${esc(g.description)}">${esc(name.replaceAll("_", " "))}</option>`).join("");
  fillPlayers();
}
async function start() {
  showError("");
  const watch = $("seat").value === "watch";
  const body = {game: $("game").value, num_players: Number($("players").value), seat: watch ? null : Number($("seat").value),
                opponents: [...document.querySelectorAll(".opponent")].map(el => el.value)};
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  try {
    if ($("rules").value.trim()) body.rules = JSON.parse($("rules").value);
  } catch (err) { showError(`rule options: ${err.message}`); return; }
  try {
    GAME = null;
    GAME = await api("POST", "/api/games", body);
  } catch (err) { showError(err.message); return; }
  $("setup").hidden = true; $("replay-panel").hidden = true; $("table").hidden = false;
  $("watch-controls").hidden = !watch;
  render(await api("GET", `/api/games/${GAME.id}/view`));
  LIVE = new EventSource(`/api/games/${GAME.id}/live?token=${encodeURIComponent(GAME.token)}`);
  LIVE.onmessage = e => render(JSON.parse(e.data));
  LIVE.onerror = () => { if (VIEW && VIEW.over) LIVE.close(); };
}
function newGame() {
  if (LIVE) LIVE.close();
  stopWatching();
  showError("");
  GAME = VIEW = null;
  $("table").hidden = true; $("setup").hidden = false; $("replay-panel").hidden = true;
}

// ------------------------------------------------------------------ playing and watching
async function play(text) {
  showError("");
  CHOSEN = null;
  try { render(await api("POST", `/api/games/${GAME.id}/actions`, {action: text})); }
  catch (err) { showError(err.message); }
}
async function stepOnce() {
  try { render(await api("POST", `/api/games/${GAME.id}/steps`, {steps: 1})); }
  catch (err) { showError(err.message); stopWatching(); }
}
function stopWatching() { clearTimeout(TIMER); TIMER = null; $("pause").textContent = "Play"; }
function watchOn() {
  if (!VIEW || VIEW.over) { stopWatching(); return; }
  stepOnce().then(() => { if (TIMER !== null) TIMER = setTimeout(watchOn, Number($("speed").value)); });
}
function togglePlay() {
  if (TIMER !== null) { stopWatching(); return; }
  $("pause").textContent = "Pause"; TIMER = 0; watchOn();
}
function clickCard(text) {
  if (!VIEW || !VIEW.legal.length) return;
  const named = VIEW.legal.filter(a => a.split(" ").includes(text));
  const direct = named.filter(a => a === `discard ${text}` || a === `go out ${text}`);
  if (named.length === 1) { play(named[0]); return; }
  if (direct.length === 1 && named.length === direct.length) { play(direct[0]); return; }
  CHOSEN = CHOSEN === text ? null : text;
  render(VIEW, true);
}
async function download() {
  const answer = await fetch(`/api/games/${GAME.id}/recording`, {headers: {Authorization: `Bearer ${GAME.token}`}});
  if (!answer.ok) { showError((await answer.json()).error); return; }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await answer.blob());
  link.download = `${VIEW.game}-${GAME.id}.jsonl`;
  document.body.appendChild(link); link.click(); link.remove();
}
async function openRecording(file) {
  showError("");
  const answer = await fetch("/api/replays", {method: "POST", body: await file.text()});
  if (!answer.ok) { showError((await answer.json()).error); return; }
  $("replay").srcdoc = await answer.text();
  $("setup").hidden = true; $("table").hidden = true; $("replay-panel").hidden = false;
}

// ------------------------------------------------------------------ the view
function who(name) {
  const seat = VIEW.players.length ? Number(name.split("_")[1]) : -1;
  const spec = VIEW.players[seat];
  return esc(name === VIEW.you ? `${name} (you)` : spec ? `${name} (${spec})` : name);
}
function card(text, extra = "") { return cardHtml(text, VIEW.wild_rank, VIEW.deck, extra); }
function arranged(hand, marked = []) {
  const left = [...marked];
  const one = c => {
    const i = left.indexOf(c);
    if (i >= 0) left.splice(i, 1);
    return card(c, (i >= 0 ? " drawn" : "") + (c === CHOSEN ? " chosen" : ""));
  };
  return hand.melds.map(m => `<span class="group meld" title="a meld">${m.map(one).join("")}</span>`).join("") +
    (hand.loose.length ? `<span class="group">${hand.loose.map(one).join("")}</span>` : "");
}
function roundText(r) {
  const names = VIEW.names;
  return `<div>Round ${r.round} over. Penalties: ${r.penalties.map((p, i) => `${who(names[i])} ${p}`).join(", ")}</div>` +
    `<div class="revealed">${r.hands.map((h, i) => `<div class="who">${who(names[i])}: ${r.penalties[i]}</div>` +
    (h.melds.length || h.loose.length ? arranged(h) : '<span class="count">(no cards)</span>')).join("")}</div>`;
}
function render(view, again = false) {
  // a view already shown is not drawn again (the live stream repeats each answer): a click
  // landing while its card is redrawn would be lost; ``again`` redraws the same view
  if (!GAME || view.id !== GAME.id || (VIEW && (again ? view !== VIEW : view.version <= VIEW.version))) return;
  VIEW = view;
  VIEW.names = Object.keys(view.scores);
  const names = VIEW.names, legal = view.legal;
  const rule = view.contract ? `contract: ${view.contract.sets} set(s) + ${view.contract.runs} run(s)` +
    (view.contract.down_means_out ? ", every card" : "") : `wild rank: ${esc(view.wild_rank)}`;
  const turn = view.over ? "game over" : view.to_act === view.you ? `your turn: ${view.phase.replace("_", " ")}` :
    `${who(view.to_act)} to act (${view.phase.replace("_", " ")})`;
  $("sub").textContent = `${view.game.replaceAll("_", " ")}, ${names.length} players${view.seed !== null ? `, seed ${view.seed}` : ""}`;
  $("status").innerHTML = [`round ${view.round} of ${view.num_rounds}`, rule, `turn ${view.turns}`, turn].join(" \u00b7 ");
  $("step-label").textContent = `${view.actions} actions`;
  showError(view.error || "");
  const events = [];
  if (view.rounds.length) events.push(roundText(view.rounds[view.rounds.length - 1]));
  if (view.result) events.push("Game over. Final scores: " + view.result.scores.map((s, i) => `${who(names[i])} ${s}`).join(", ") +
    `. Winner${view.result.winners.length > 1 ? "s" : ""}: ` + view.result.winners.map(i => who(names[i])).join(" and ") + ".");
  $("event").innerHTML = events.join("");
  $("download").hidden = !view.result;

  const can = text => legal.includes(text);
  const top = view.discard.length ? card(view.discard[view.discard.length - 1], can("draw discard") ? " clickable" : "") :
    '<div class="count">(empty)</div>';
  const stock = view.stock_size ? `<span class="card back${can("draw stock") ? " clickable" : ""}" title="the stock"></span>` :
    can("draw stock") ? '<button class="clickable" title="drawing from an empty stock ends the round">draw</button>' : "";
  let piles = `<div class="pile" id="stock">${stock}` +
    `<div class="count">stock: ${view.stock_size}</div></div>` +
    `<div class="pile" id="discard-top">${top}<div class="count">discard pile: ${view.discard.length} ` +
    `<a href="#" id="show-pile">${$("pile-all").innerHTML ? "hide" : "show all"}</a></div></div>`;
  if (view.buy_question) piles += `<div class="pile">${card(view.buy_question.card)}<div class="count">on offer to ${who(view.buy_question.asked)}</div></div>`;
  if (view.taken_from_discard) piles += `<div class="pile">${card(view.taken_from_discard)}<div class="count">taken from the pile</div></div>`;
  $("piles").innerHTML = piles;
  if ($("pile-all").innerHTML) $("pile-all").innerHTML = view.discard.map(c => card(c)).join("") || "(empty)";
  $("melds").innerHTML = view.melds.length ? view.melds.map(m =>
    `<div class="meld"><div class="who">${m.slot}: ${who(m.owner)}, ${m.kind}</div>${m.cards.map(c => card(c)).join("")}</div>`).join("") :
    '<div class="count">no melds on the table</div>';

  if (view.hand) {
    $("hand-title").textContent = `Your hand (penalty now ${view.penalty})`;
    $("hand").innerHTML = arranged(view.hand, view.drawn);
  } else {
    $("hand-title").textContent = view.seat === null ? "Hands" : "Your hand";
    $("hand").innerHTML = view.arranged ? view.arranged.map((h, i) => `<div class="who">${who(names[i])}</div>${arranged(h)}`).join("") : "";
  }
  $("actions").innerHTML = legal.map(a => `<button class="action${CHOSEN && a.split(" ").includes(CHOSEN) ? " match" : ""}" data-action="${esc(a)}">${esc(a)}</button>`).join("");

  $("seats").innerHTML = names.map(name => {
    const tags = [];
    if (name === view.to_act) tags.push('<span class="tag act">to act</span>');
    if (names[view.dealer] === name) tags.push('<span class="tag">dealer</span>');
    if (view.gone_down[name]) tags.push('<span class="tag">down</span>');
    if (view.buys) tags.push(`<span class="count">buys: ${view.buys[name]}</span>`);
    return `<div class="panel seat${name === view.to_act ? " to-act" : ""}"><div class="seat-head"><span class="seat-name">${who(name)}</span>` +
      `<span>score ${view.scores[name]}</span><span class="count">${view.hand_sizes[name]} cards</span>${tags.join("")}</div></div>`;
  }).join("");
  const head = "<tr><th>round</th>" + names.map(n => `<th>${esc(n.replace("player_", "p"))}</th>`).join("") + "</tr>";
  const rows = view.round_penalties.map((p, r) => `<tr><td>${r + 1}</td>` + names.map(n => `<td>${p[n]}</td>`).join("") + "</tr>");
  $("scores").innerHTML = head + rows.join("") + '<tr class="total"><td>total</td>' + names.map(n => `<td>${view.scores[n]}</td>`).join("") + "</tr>";

  const entry = ([number, s, text]) => `<li value="${number}">${who(names[s])}: ${esc(text)}</li>`;
  $("since").innerHTML = view.since.map(entry).join("");
  $("log").innerHTML = view.log.slice(-12).map(entry).join("");
  if (view.over) stopWatching();
}

$("game").addEventListener("change", fillPlayers);
$("players").addEventListener("change", fillSeats);
$("seat").addEventListener("change", fillSeats);
$("start").addEventListener("click", start);
$("new-game").addEventListener("click", newGame);
$("pause").addEventListener("click", togglePlay);
$("step").addEventListener("click", () => { stopWatching(); stepOnce(); });
$("download").addEventListener("click", download);
$("recording-file").addEventListener("change", e => { if (e.target.files.length) openRecording(e.target.files[0]); });
$("actions").addEventListener("click", e => { const b = e.target.closest("button"); if (b) play(b.dataset.action); });
$("hand").addEventListener("click", e => { const c = e.target.closest(".card"); if (c && VIEW && VIEW.hand) clickCard(c.dataset.card); });
$("piles").addEventListener("click", e => {
  if (e.target.id === "show-pile") {
    e.preventDefault();
    $("pile-all").innerHTML = $("pile-all").innerHTML ? "" : (VIEW.discard.map(c => card(c)).join("") || "(empty)");
    render(VIEW, true); return;
  }
  if (e.target.closest("#stock .clickable")) play("draw stock");
  else if (e.target.closest("#discard-top .clickable")) play("draw discard");
});
setup().catch(err => showError(err.message));
"""


def render_table_page() -> str:
    """The whole page: HTML, CSS and script in one response."""
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,"><title>rummy-serve</title>'
            f"<style>{STYLE}{_STYLE}</style></head><body>\n{_BODY}\n"
            f"<script>{CARD_SCRIPT}{_SCRIPT}</script></body></html>\n")
