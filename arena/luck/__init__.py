"""Luck taken out of a match's score: AIVAT-style control variates at every draw (docs/luck.md).

Standard library only, above the engine: `measure(setup, events)` gives each seat's `Luck`.
"""

from arena.luck.correction import EventMismatch, Luck, measure
from arena.luck.value import CURRENT, PARAMETERS, Parameters

__all__ = ["CURRENT", "PARAMETERS", "EventMismatch", "Luck", "Parameters", "measure"]
