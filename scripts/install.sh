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

# Debian's headless Chromium and its driver, for the playground's browser test
# (tests/test_faces_playground.py skips without them). NL2SPARQL_CHROMIUM=0 skips this.
if [ "${NL2SPARQL_CHROMIUM:-1}" != 0 ] && ! command -v chromedriver >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else SUDO=none; fi
  if [ "$SUDO" != none ] && command -v apt-get >/dev/null 2>&1; then
    echo "install: chromium chromium-driver (apt-get)"
    $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium chromium-driver >/dev/null
  else
    echo "install: cannot install chromium chromium-driver (need root or sudo and apt-get); the playground test will skip"
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

# The official TEXT2SPARQL client, for the acceptance test of the TEXT2SPARQL API
# (tests/test_faces_text2sparql.py), in its own venv: it pins numpy<2, uvicorn<0.35 and
# fastapi 0.128, which nl2sparql's own environment does not. Its pytrec-eval dependency
# downloads trec_eval while it builds from source, which fails offline, so the client is
# installed --no-deps and pytrec-eval-terrier (the same pytrec_eval module, as wheels) in
# its place. NL2SPARQL_T2S_VENV=none skips it.
T2S_VENV=${NL2SPARQL_T2S_VENV:-.venv-t2s}
if [ "$T2S_VENV" != none ] && [ ! -x "$T2S_VENV/bin/text2sparql" ]; then
  echo "install: text2sparql-client into $T2S_VENV (--no-deps, pytrec-eval-terrier for pytrec-eval)"
  [ -x "$T2S_VENV/bin/python" ] || "$PYTHON" -m venv "$T2S_VENV"
  T2S_PIP=("$T2S_VENV/bin/python" -m pip -q --disable-pip-version-check)
  "${T2S_PIP[@]}" install --no-deps 'text2sparql-client==2.1.0' 2>&1 | grep -v '^WARNING: Location' || true
  "${T2S_PIP[@]}" install 'SPARQLWrapper>=2,<3' 'click>=8.1.8,<9' 'fastapi>=0.128,<0.129' 'loguru>=0.7.3,<0.8' \
    'numpy<2' 'pydantic-settings>=2.8.1,<3' pytrec-eval-terrier 'pyyaml>=6,<7' 'requests>=2.32.3,<3' \
    'scipy>=1.1,<2' 'setuptools<81' 'tqdm>=4.67.1,<5' 'uvicorn>=0.34.1,<0.35' 2>&1 \
    | grep -vE '^WARNING: Location|dependency resolver|requires pytrec-eval' || true
fi
"$VENV/bin/nl2sparql" --version
