"""Shared test set-up: make tests/ importable for fixture helpers (gitfixtures)."""

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).parent))
