"""The ``rummy-serve`` web application (FastAPI): the page, and the API that docs/serve.md
documents. Errors are JSON ``{"error": message, ...}`` with the status the docs give; a
refused request changes nothing.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, StreamingResponse
from pydantic import BaseModel, Field, StrictInt, StrictStr

from ..recording import RecordError, check_record
from ..registry import GAMES
from ..replay import page_data
from ..replay_page import render_page
from .games import GameError, GameStore, ServedGame, offered_agents
from .page import render_table_page

LIVE_POLL_SECONDS = 0.1
"""How often a live stream looks for a change of its game."""


class NewGame(BaseModel, extra="forbid"):
    game: StrictStr
    num_players: StrictInt | None = None
    seat: StrictInt | None = 0
    """The person's seat, or null: agents in every seat, watched."""
    opponents: list[StrictStr] = Field(default_factory=lambda: ["greedy"])
    seed: StrictInt | None = None
    rules: dict[str, Any] = Field(default_factory=dict)
    """Rule options, as ``<game>_v0.env()`` takes them (``max_turns_per_round``, say)."""


class Action(BaseModel, extra="forbid"):
    action: StrictStr


class Steps(BaseModel, extra="forbid"):
    steps: StrictInt = Field(default=1, ge=1, le=1000)


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def create_app(checkpoints: Path | None = Path("checkpoints"), agents: Sequence[str] = (),
               idle_seconds: float = 1800.0, max_games: int = 200) -> FastAPI:
    """The application: agents offered are the baselines, ``checkpoints``' ``*.pt`` files and
    ``agents``; a game idle for ``idle_seconds`` is dropped."""
    offered = offered_agents(checkpoints, agents)
    store = GameStore(idle_seconds, max_games)

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        async def sweep() -> None:  # idle games go even when no request comes to look for them
            while True:
                await asyncio.sleep(min(60.0, idle_seconds / 2))
                store.sweep()

        sweeper = asyncio.create_task(sweep())
        yield
        sweeper.cancel()

    app = FastAPI(title="rummy-serve", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.store = store

    @app.exception_handler(GameError)
    async def refused(_: Request, err: GameError) -> JSONResponse:
        return JSONResponse({"error": err.message, **err.extra}, status_code=err.status)

    @app.exception_handler(RequestValidationError)
    async def malformed(_: Request, err: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:]) or 'body'}: {e['msg']}" for e in err.errors())
        return JSONResponse({"error": f"malformed request: {problems}"}, status_code=422)

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return render_table_page()

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return {"games": {name: {"players": list(spec.player_counts), "default_players": spec.default_players,
                                 "description": spec.description} for name, spec in GAMES.items()},
                "agents": offered}

    @app.post("/api/games")
    def new_game(body: NewGame) -> dict[str, str]:
        game = ServedGame(body.game, body.num_players, body.seat, body.opponents, body.seed, body.rules, offered)
        store.add(game)
        return {"id": game.id, "token": game.token}

    @app.get("/api/games/{game_id}/view")
    def view(game_id: str, request: Request) -> dict[str, Any]:
        return store.get(game_id, _token(request)).view()

    @app.post("/api/games/{game_id}/actions")
    def act(game_id: str, body: Action, request: Request) -> dict[str, Any]:
        game = store.get(game_id, _token(request))
        game.play(body.action)
        return game.view()

    @app.post("/api/games/{game_id}/steps")
    def step(game_id: str, body: Steps, request: Request) -> dict[str, Any]:
        game = store.get(game_id, _token(request))
        game.step_agents(body.steps)
        return game.view()

    @app.get("/api/games/{game_id}/recording", response_class=PlainTextResponse)
    def recording(game_id: str, request: Request) -> PlainTextResponse:
        game = store.get(game_id, _token(request))
        return PlainTextResponse(game.recording(), media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="{game.game}-{game.id}.jsonl"'})

    @app.get("/api/games/{game_id}/live")
    async def live(game_id: str, token: str | None = None) -> StreamingResponse:
        """Server-sent events: the view, each time the game changes (an ``EventSource``
        cannot send headers, so the token comes as ``?token=``)."""
        game = store.get(game_id, token)

        async def views():
            seen = None
            while store.games.get(game_id) is game:
                if game.version != seen:
                    seen = game.version
                    view = await asyncio.to_thread(game.view)
                    yield f"data: {json.dumps(view)}\n\n"
                    if view["over"]:
                        return
                await asyncio.sleep(LIVE_POLL_SECONDS)

        return StreamingResponse(views(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    @app.post("/api/replays", response_class=HTMLResponse)
    async def replay(request: Request) -> HTMLResponse:
        """A recording's first game (JSON, or JSON lines) as rummy-replay's page."""
        text = (await request.body()).decode("utf-8", errors="replace").strip()
        try:
            record = check_record(json.loads(text.splitlines()[0] if text else ""))
            data = page_data(record)
        except (json.JSONDecodeError, RecordError) as err:
            raise GameError(422, f"not a recording this version can replay: {err}") from None
        return HTMLResponse(render_page(data))

    return app


class ServerThread:
    """``app`` served by uvicorn in a daemon thread of this process, on ``host`` and a free
    port: for tests, benchmarks and notebooks. ``url`` is its address; ``stop`` ends it and
    drops its games."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1") -> None:
        import socket
        import threading
        import time

        import uvicorn

        with socket.socket() as probe:
            probe.bind((host, 0))
            port = probe.getsockname()[1]
        self.app, self.url = app, f"http://{host}:{port}"
        # log_config None: uvicorn leaves the process's logging as it is (its own dictConfig would
        # close the handlers already there, a test runner's among them)
        self.server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", log_config=None))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.app.state.store.games.clear()  # the core's objects go before the interpreter does
