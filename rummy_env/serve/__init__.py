"""``rummy-serve``: people play any agent, and watch agents play, in the browser.

``games`` holds the games (dealing, agents, views, recordings; no web framework), ``app`` the
FastAPI application and its API (docs/serve.md), ``page`` the page, ``cli`` the command.
Installed by the ``serve`` extra; ``import rummy_env`` never imports this package.
"""
