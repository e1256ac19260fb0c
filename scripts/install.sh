#!/usr/bin/env bash
# Set up atlas from scratch in ./.venv: the package, and with --test what the test suite needs
# (test libraries, the CPU vLLM engine for the trace tests, Debian's chromium for the browser tests).
#   bash scripts/install.sh            # atlas only
#   bash scripts/install.sh --test     # + everything the tests need
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${ATLAS_VENV:-.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e .
if [ "${1:-}" = "--test" ]; then
  "$VENV/bin/python" -m pip install -q -e '.[test]'
  for extra in scripts/setup_*.sh; do
    [ -e "$extra" ] && VENV="$VENV" bash "$extra"
  done
fi
echo "atlas installed in $VENV ($("$VENV/bin/atlas" --version))"
