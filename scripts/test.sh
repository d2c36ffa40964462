#!/usr/bin/env bash
# The test command: install everything from nothing (scripts/install.sh), lint, run the tests.
# Slow end-to-end tests run when NL2SPARQL_SLOW=1; extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/python -m pytest "$@"
