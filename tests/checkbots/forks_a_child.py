"""Compliant, but leaves a child behind in its process group (like a forgotten helper)."""

import subprocess
import sys

from good import play

# The child's command line names this file, so a test can look for it after the check.
subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(300)", __file__],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
play()
