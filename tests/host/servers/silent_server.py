"""A "server" that reads its input and never answers: the host's startup timeout must end the wait."""

import sys

for _line in sys.stdin:
    pass
