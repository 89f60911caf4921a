"""Browser fixtures: Debian's Chromium driven by Playwright, and a headless JupyterLab.

Playwright is used with `executable_path="/usr/bin/chromium"` (never `playwright install`, which
downloads a browser build). Every test here skips itself when that Chromium or the playwright
package is absent. Every wait is bounded; the JupyterLab server is killed at teardown.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parent.parent.parent
TIMEOUT_MS = 30_000


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (/usr/bin/chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=TIMEOUT_MS)
        try:
            yield b
        finally:
            b.close()


class OfflineGuard:
    """Routes every request of a browser context; anything not local is aborted and recorded."""

    def __init__(self, context: Any, allowed_hosts: tuple[str, ...] = ("127.0.0.1",)) -> None:
        self.blocked: list[str] = []
        self.allowed_hosts = allowed_hosts
        context.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        local = url.startswith(("file:", "data:", "blob:", "about:")) or any(
            url.startswith((f"http://{h}", f"ws://{h}")) for h in self.allowed_hosts
        )
        if local:
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


@pytest.fixture
def page(browser: Any) -> Iterator[tuple[Any, OfflineGuard]]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    guard = OfflineGuard(context)
    try:
        yield context.new_page(), guard
    finally:
        context.close()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f} s")


@pytest.fixture
def jupyterlab(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """JupyterLab on 127.0.0.1 at a free port, no token, in a temp dir: (base URL, root dir)."""
    if shutil.which("jupyter", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("jupyterlab is not installed next to this Python")
    root = tmp_path / "lab"
    root.mkdir()
    home = tmp_path / "home"
    env = dict(os.environ)
    env.update(
        {
            # a private config/data/runtime dir: no user settings, workspaces or extensions leak in
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "IPYTHONDIR": str(home / "ipython"),
            "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
            # the kernel imports tensortrace from this checkout when it is not installed
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(REPO / "src"), env.get("PYTHONPATH", "")])
            ),
        }
    )
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",  # no extension search on a package index
        "--ServerApp.terminals_enabled=False",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # CI and containers run as root
    log = (tmp_path / "jupyterlab.log").open("wb")
    proc = subprocess.Popen(
        cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_http(f"{base}/api", proc, timeout=90)
        yield base, root
    finally:
        # the server and the kernels it started share its session: end them all, then reap
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        log.close()
