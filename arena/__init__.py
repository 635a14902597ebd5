"""gofish-arena: a bot arena and match runner for Go Fish.

The folders are the layers (docs/design.md): `engine` (the pure rules), `sdk` and `bots`
(standard library only), `base`, `seats` (participants and their processes), `referee` (the
match loop), `replays`, `tournaments` and `ui` (the command line). This file stays free of
third-party imports so that `arena.sdk` and `arena.bots` run from a bare checkout.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
