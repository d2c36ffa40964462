#!/usr/bin/env bash
# Install everything nl2sparql needs, from nothing, into ./.venv:
#   - Debian's Virtuoso (for the remote-endpoint tests) when we are root or have sudo;
#   - a virtualenv with the CPU build of torch first (so no package pulls a CUDA build),
#     then the package itself (editable) with its test extras.
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
VENV=${NL2SPARQL_VENV:-.venv}

if ! command -v virtuoso-t >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else SUDO=none; fi
  if [ "$SUDO" != none ] && command -v apt-get >/dev/null 2>&1; then
    echo "install: virtuoso-opensource-7-bin (apt-get)"
    $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q virtuoso-opensource-7-bin >/dev/null
  else
    echo "install: cannot install virtuoso-opensource-7-bin (need root or sudo and apt-get); Virtuoso tests will skip"
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "install: creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip -q --disable-pip-version-check)
"${PIP[@]}" install --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
if ! "$VENV/bin/python" -c 'import torch' >/dev/null 2>&1; then
  echo "install: torch==2.13.0 (CPU build)"
  "${PIP[@]}" install torch==2.13.0 2>&1 | grep -v '^WARNING: Location' || true
fi
echo "install: nl2sparql and its test extras"
"${PIP[@]}" install -e '.[test]' 2>&1 | grep -vE '^WARNING: Location|BuildBackendWarning' || true
"$VENV/bin/python" -c 'import torch; print("install: torch", torch.__version__)'
"$VENV/bin/nl2sparql" --version
