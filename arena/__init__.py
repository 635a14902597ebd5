"""gofish-arena: a bot arena and match runner for Go Fish.

Kept free of third-party imports so that `arena.sdk` and `arena.bots` run from a bare checkout.
The engine lives in `arena.match`, processes in `arena.transport`, the command line in `arena.cli`.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
