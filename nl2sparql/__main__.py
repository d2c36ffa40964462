"""``python -m nl2sparql`` runs the CLI."""

import sys

from nl2sparql.cli import main

sys.exit(main())
