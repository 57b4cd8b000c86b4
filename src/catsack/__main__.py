"""``python -m catsack`` runs the command line."""

from catsack.cli import main

main()
