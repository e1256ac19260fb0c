#!/usr/bin/env bash
# Installs what the browser tests need, with no browser download: Debian's chromium (apt) and Playwright for
# Python (pip; its own browser fetch is never run). The tests launch /usr/bin/chromium through
# chromium.launch(executable_path=...). Idempotent: a second run only checks.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if ! command -v chromium >/dev/null 2>&1; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
python -c "import playwright" 2>/dev/null || python -m pip install -q "playwright>=1.45"
chromium --version
python - <<'PY'
from playwright.sync_api import sync_playwright
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page()
    page.set_content("<p id=ok>ok</p>")
    assert page.inner_text("#ok") == "ok"
    print("playwright drives", browser.version)
    browser.close()
PY
