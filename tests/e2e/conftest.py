"""JupyterLab and headless Chromium for the end-to-end test (one server, one browser a module).

The server runs from this environment's Python on a free loopback port with a random token,
with every Jupyter directory (runtime, config, data, settings, workspaces) in a temporary folder
and nothing that reaches the network: no news feed, no update check, a read-only extension
manager. Its root is a temporary folder, so autosave never touches the repository's notebooks.
Screenshots go to ``artifacts/e2e/`` at the repository root (git-ignored).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts" / "e2e"
CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_S = 120  # generous: a loaded 2-core machine


def missing_requirement() -> str | None:
    """Why the browser test cannot run here, or None when it can."""
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed (pip install playwright)"
    return None


def skip_without_browser(what: str) -> None:
    """Skip the calling test module when the browser cannot run (an error with E2E_REQUIRED=1)."""
    missing = missing_requirement()
    if missing:
        if os.environ.get("E2E_REQUIRED") == "1":
            raise RuntimeError(f"E2E_REQUIRED=1 but the {what} cannot run: {missing}")
        pytest.skip(f"{what} skipped: {missing}", allow_module_level=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A running JupyterLab: ``url(path)`` opens ``path`` (relative to ``root``) in a workspace."""

    def __init__(self, root: Path, port: int, token: str, proc: subprocess.Popen, log: Path):
        self.root, self.port, self.token, self.proc, self.log = root, port, token, proc, log

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str, workspace: str) -> str:
        return f"{self.base}/lab/workspaces/{workspace}/tree/{path}?token={self.token}"

    def api(self, endpoint: str):
        req = urllib.request.Request(
            f"{self.base}/api/{endpoint}", headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())


def _start_lab(root: Path, home: Path) -> Lab:
    env = dict(os.environ)
    for name in (
        "JUPYTER_RUNTIME_DIR",
        "JUPYTER_CONFIG_DIR",
        "JUPYTER_DATA_DIR",
        "IPYTHONDIR",
        "JUPYTERLAB_SETTINGS_DIR",
        "JUPYTERLAB_WORKSPACES_DIR",
        "MPLCONFIGDIR",
    ):
        env[name] = str(home / name.lower())
        Path(env[name]).mkdir(parents=True, exist_ok=True)
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env.pop("JUPYTER_TOKEN", None)
    # no "would you like to receive news?" prompt, no extension manager listing from PyPI
    labconfig = Path(env["JUPYTER_CONFIG_DIR"]) / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "page_config.json").write_text(
        json.dumps(
            {
                "disabledExtensions": {
                    "@jupyterlab/apputils-extension:announcements": True,
                    "@jupyterlab/extensionmanager-extension:plugin": True,
                }
            }
        )
    )
    token = secrets.token_hex(16)
    log = home / "jupyterlab.log"
    last_error = ""
    for _ in range(3):  # the port picked may be taken before the server binds it
        port = free_port()
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.open_browser=False",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI containers run as root
            cmd.append("--allow-root")
        with open(log, "ab") as out:
            proc = subprocess.Popen(cmd, env=env, cwd=root, stdout=out, stderr=subprocess.STDOUT)
        lab = Lab(root, port, token, proc, log)
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                lab.api("status")
                return lab
            except OSError as exc:
                last_error = str(exc)
                time.sleep(0.25)
        proc.terminate()
        proc.wait(timeout=30)
    tail = log.read_text(errors="replace")[-3000:]
    raise RuntimeError(f"JupyterLab did not start ({last_error}); its log ends with:\n{tail}")


@pytest.fixture(scope="module")
def artifacts() -> Path:
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Lab:
    root = tmp_path_factory.mktemp("lab_root")
    home = tmp_path_factory.mktemp("lab_home")
    lab = _start_lab(root, home)
    yield lab
    try:  # the server shuts its kernels down when it stops
        lab.proc.terminate()
        lab.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        lab.proc.kill()
        lab.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium_profile")  # a fresh user-data dir
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 1000},
            timeout=120_000,
        )
        context.set_default_timeout(60_000)
        yield context
        context.close()
