"""Browser tests: Playwright (Python) driving Debian's chromium (scripts/setup_browser.sh installs both; nothing is
downloaded). Every request is intercepted: file:// and the local `atlas serve` pass, anything else is refused and
recorded, and each test asserts none was made."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "render"))

CHROMIUM = os.environ.get("ATLAS_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "site_build" / "screenshots"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def browser():
    """One chromium per test file, closed after its last test: Playwright's sync API runs an event loop while it is
    open, which later tests' own loops (the MCP server's) would find running."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing; run `bash scripts/setup_browser.sh` (Debian chromium + Playwright)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--allow-file-access-from-files"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory):
    """The site of the fixture engine (500 extra kv_cache nodes for the timing test), built once."""
    import sitefixture

    from atlas.render import build_site

    tmp = tmp_path_factory.mktemp("site")
    report = build_site(
        sitefixture.settings_for(tmp), site=sitefixture.site_for(tmp, num_extra=520), out=str(tmp / "out")
    )
    return report.out


class Guard:
    """Routes every request of a page: local ones continue, others are aborted and kept in `refused`."""

    def __init__(self, local_prefixes: tuple[str, ...]):
        self.local = local_prefixes
        self.refused: list[str] = []
        self.errors: list[str] = []

    def route(self, route):
        url = route.request.url
        if url.startswith(self.local) or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            self.refused.append(url)
            route.abort()


@pytest.fixture()
def open_page(browser):
    contexts = []

    def make(local_prefixes: tuple[str, ...] = ("file://",), width: int = 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        guard = Guard(local_prefixes)
        context.route("**/*", guard.route)
        page = context.new_page()
        page.on("pageerror", lambda exc: guard.errors.append(str(exc)))
        contexts.append((context, guard))
        return page, guard

    yield make
    for context, guard in contexts:
        context.close()
        assert guard.refused == [], f"requests to other hosts: {guard.refused}"
        assert guard.errors == [], f"script errors: {guard.errors}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def served(fixture_site):
    """`atlas serve` on the fixture site: the base URL."""
    port = free_port()
    atlas = shutil.which("atlas") or str(Path(sys.executable).with_name("atlas"))  # on PATH, or beside this Python
    proc = subprocess.Popen(
        [atlas, "serve", "--out", str(fixture_site), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"atlas serve exited: {proc.stderr.read().decode()}")
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/"
    proc.terminate()
    proc.wait(timeout=10)


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    assert path.stat().st_size > 1000
    return path


CUT_WORDS = """() => Array.from(document.querySelectorAll('article table code, article table small'))
    .filter(el => !el.closest('table.atlas-src-table, table.atlas-code-table') && el.getClientRects().length > 1)
    .map(el => el.textContent)"""


def cut_words(page) -> list[str]:
    """The names in code (and small notes such as "(l. 136)") that a table of the page draws over more than one line:
    mkdocs-material lets text break anywhere, which cut `hit_tokens` into `hit_token` / `s`."""
    return page.evaluate(CUT_WORDS)
