#!/usr/bin/env bash
# The test command: install everything from nothing (scripts/install.sh), lint, run the tests.
# Slow end-to-end tests run when NL2SPARQL_SLOW=1 (the default under CI=true); extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
if [ "${CI:-}" = true ]; then export NL2SPARQL_SLOW=${NL2SPARQL_SLOW:-1}; fi
.venv/bin/ruff check .
.venv/bin/python -m pytest "$@"
