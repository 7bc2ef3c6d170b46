"""``rummy-serve [--host 127.0.0.1] [--port 8000]``: the web table (docs/serve.md).

    rummy-serve                                          # http://127.0.0.1:8000/
    rummy-serve --port 8080 --agent runs/mine/best.pt    # offer one more agent in the page

The page offers the baselines, every checkpoint under ``--checkpoints`` (default
``checkpoints``) and each ``--agent`` spec (``module:Class`` or a checkpoint path): a request
names one of those, so that a page never makes the server import a module or read a file
that its command line did not name. A user's error is one line on stderr and exit code 2.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Sequence

from ..agents import make_agent
from ..cli import OneLineParser, fail, integer_at_least

PROG = "rummy-serve"


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog=PROG, description="Play against agents, or watch them play, in the browser.",
                           epilog="See docs/serve.md.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=integer_at_least(0), default=8000, help="port (default 8000; 0: any free one)")
    parser.add_argument("--checkpoints", metavar="DIR",
                        help="offer every *.pt under DIR (default: checkpoints, where there is one)")
    parser.add_argument("--agent", metavar="SPEC", nargs="+", default=[],
                        help="more agent specs to offer: module:Class or a checkpoint path")
    parser.add_argument("--idle-minutes", type=integer_at_least(1), default=30,
                        help="a game nobody asked about for this long is dropped (default 30)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from .app import create_app
    except ImportError as err:
        fail(PROG, f"the web server needs the serve extra (pip install -e '.[serve]'): {err}")
    if args.checkpoints is not None and not Path(args.checkpoints).is_dir():
        fail(PROG, f"--checkpoints {args.checkpoints} is not a folder")
    for spec in args.agent:
        try:
            make_agent(spec)
        except ValueError as err:
            fail(PROG, f"--agent {spec}: {err}")
    try:  # listening before the address is printed: connections wait in line until the server takes them
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        listening = socket.create_server((args.host, args.port), family=family, backlog=2048)
    except OSError as err:
        fail(PROG, f"cannot listen on {args.host}:{args.port}: {err.strerror or err}")
    sockets = [listening]
    app = create_app(Path(args.checkpoints or "checkpoints"), args.agent, idle_seconds=60.0 * args.idle_minutes)
    # uvicorn's Config sets up logging (its dictConfig closes the handlers already there): only once all is checked
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port, log_level="warning"))
    host, port = listening.getsockname()[:2]
    print(f"rummy-serve: open http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{port}/ (Ctrl-C stops)",
          flush=True)
    server.run(sockets=sockets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
