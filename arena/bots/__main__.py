"""`python -m arena.bots LEVEL`: one built-in bot over stdin and stdout."""

import sys

from arena.bots import main

sys.exit(main(sys.argv[1:]))
