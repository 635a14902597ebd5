"""`python -m arena`: the command line, as the `arena` script."""

from arena.ui.cli import main

main()
