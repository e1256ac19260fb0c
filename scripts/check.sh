#!/usr/bin/env bash
# The static checks CI runs before the tests (and pre-commit runs on each commit): ruff's lint and format, mypy
# (strict where pyproject.toml lists no relaxation), and import-linter's layer contracts (.importlinter).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${ATLAS_VENV:-.venv}/bin
"$BIN/ruff" check --quiet .
"$BIN/ruff" format --check --quiet .
"$BIN/mypy" --no-error-summary
"$BIN/lint-imports" --no-cache >/dev/null || "$BIN/lint-imports" --no-cache
echo "lint, format, types and layers: ok"
