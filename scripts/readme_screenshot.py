"""The README's picture of the site: a mechanism page of the built site (`atlas build`), as Debian's chromium shows
it through Playwright (scripts/setup_browser.sh installs both).
usage: .venv/bin/python scripts/readme_screenshot.py [PAGE] [OUT]"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    page = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "site_build/html/mechanisms/prefix-cache.html")
    out = Path(sys.argv[2] if len(sys.argv) > 2 else ROOT / "docs/img/site.png")
    if not page.exists():
        sys.exit(f"{page} is missing: run `.venv/bin/atlas build` first")
    chromium = os.environ.get("ATLAS_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--allow-file-access-from-files"])
        view = browser.new_page(viewport={"width": 1280, "height": 800})
        view.goto(page.resolve().as_uri())
        view.wait_for_load_state("networkidle")
        view.screenshot(path=str(out))
        browser.close()
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
