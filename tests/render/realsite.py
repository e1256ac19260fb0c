"""The real site (both engines, default pins), built once per test process into site_build/ for the slow tests."""

from __future__ import annotations

import functools
import os

from atlas.env import settings as load_settings
from atlas.render import build_site


@functools.lru_cache(maxsize=1)
def built():
    os.environ.setdefault("ATLAS_MIRROR", "/work/shared/sources")
    settings = load_settings()
    return settings, build_site(settings, None, "default")
