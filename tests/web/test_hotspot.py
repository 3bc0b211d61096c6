"""``companion hotspot`` against a fake ``nmcli`` on PATH, and the start page's two QR
codes (the Pi's Wi-Fi, then the dashboard) read back from a chromium screenshot."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import ARTIFACTS, DEVICES, Server, screenshot, touch_page

FAKE = Path(__file__).with_name("fake_nmcli.py")


@pytest.fixture
def nm(tmp_path: Path) -> dict[str, Any]:
    """A PATH with the fake nmcli, its state file, and a config home."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "nmcli"
    script.write_text(f"#!{sys.executable}\nimport runpy, sys\n"
                      f"sys.argv[0] = 'nmcli'\nrunpy.run_path({str(FAKE)!r}, "
                      "run_name='__main__')\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    state = tmp_path / "nm.json"
    state.write_text(json.dumps({"devices": [["wlan0", "wifi", "disconnected", "--"],
                                             ["eth0", "ethernet", "unavailable", "--"]]}))
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "FAKE_NMCLI_STATE": str(state), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return {"env": env, "state": state, "config": tmp_path / "config" / "companion"}


def companion(nm: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion.cli", "hotspot", *args],
                          env={**os.environ, **nm["env"]}, capture_output=True, text=True,
                          timeout=60, check=False)


def calls(nm: dict[str, Any]) -> list[list[str]]:
    return list(json.loads(nm["state"].read_text())["calls"])


def test_on_no_network_the_pi_opens_its_own(nm: dict[str, Any]) -> None:
    done = companion(nm, "--ssid", "Ann's table")
    assert done.returncode == 0, done.stderr
    hotspot = next(c for c in calls(nm) if c[:3] == ["device", "wifi", "hotspot"])
    opts = dict(zip(hotspot[3::2], hotspot[4::2], strict=True))
    assert opts["ifname"] == "wlan0" and opts["ssid"] == "Ann's table"
    assert opts["con-name"] == "companion-hotspot" and len(opts["password"]) == 12
    assert ["connection", "modify", "companion-hotspot", "connection.autoconnect", "yes",
            "connection.autoconnect-priority", "-10"] in calls(nm)
    saved = nm["config"] / "hotspot.json"
    assert json.loads(saved.read_text())["password"] == opts["password"]
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600      # the password is in it
    assert opts["password"] in done.stdout and "http://10.42.0.1:8000/" in done.stdout
    again = companion(nm, "--force")                         # the same name and password
    assert again.returncode == 0 and opts["password"] in again.stdout


def test_a_pi_on_a_network_opens_nothing(nm: dict[str, Any]) -> None:
    state = json.loads(nm["state"].read_text())
    state["devices"][0] = ["wlan0", "wifi", "connected", "House: 2.4 GHz"]
    nm["state"].write_text(json.dumps(state))
    done = companion(nm)
    assert done.returncode == 0
    assert "'House: 2.4 GHz'" in done.stdout and "--force" in done.stdout
    assert not [c for c in calls(nm) if "hotspot" in c]
    assert not (nm["config"] / "hotspot.json").exists()


def test_what_nmcli_refuses_is_said_in_one_line(nm: dict[str, Any]) -> None:
    state = json.loads(nm["state"].read_text())
    state["fail"] = "Error: No Wi-Fi device found."
    nm["state"].write_text(json.dumps(state))
    done = companion(nm)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "companion: nmcli device wifi hotspot failed: Error: No Wi-Fi device found."]
    assert not (nm["config"] / "hotspot.json").exists()
    assert companion(nm, "--password", "short").returncode == 2
    nm["env"]["PATH"] = str(nm["state"].parent / "nowhere")
    missing = companion(nm)
    assert missing.returncode == 2 and "nmcli was not found" in missing.stderr


def test_off_closes_it_and_keeps_it_closed_at_boot(nm: dict[str, Any]) -> None:
    assert companion(nm).returncode == 0
    done = companion(nm, "--off")
    assert done.returncode == 0
    assert ["connection", "modify", "companion-hotspot", "connection.autoconnect", "no"] \
        in calls(nm)
    assert json.loads(nm["state"].read_text())["active"] == []


def test_the_start_page_shows_the_wifi_code_then_the_dashboard(
        nm: dict[str, Any], tmp_path: Path, new_browser: Any) -> None:
    import cv2

    assert companion(nm, "--ssid", "Ann's table", "--password", "sea;shell:42").returncode == 0
    server = Server(tmp_path, env=nm["env"])
    try:
        for size in DEVICES:
            page = touch_page(new_browser, size)
            page.goto(server.url + "/")
            assert page.inner_text("#wifi-ssid") == "Ann's table"
            assert page.inner_text("#wifi-password") == "sea;shell:42"
            shot = screenshot(page, f"hotspot-start-{size}")
            codes: list[str] = []
            for img in ("#join-wifi img.qr", ".join:not(#join-wifi) img.qr"):
                # Chromium decodes an image apart from the page's drawing and paints it once
                # decoded: on a busy machine a picture taken first showed a blank square.
                page.locator(img).evaluate("img => img.decode()")
                page.locator(img).screenshot(path=str(tmp_path / "qr.png"))
                qr = cv2.imread(str(tmp_path / "qr.png"))          # enlarged, with a quiet zone
                assert qr is not None
                big = cv2.copyMakeBorder(cv2.resize(qr, None, fx=3, fy=3,
                                                    interpolation=cv2.INTER_NEAREST),
                                         40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
                # OpenCV's first detector misses the finder patterns of about 1 in 400 of
                # these codes as chromium draws them (the dashboard's address on ports 49064,
                # 50743, 50959, 51069, 51127, 51316 and 51762 of 49000-51999); the ArUco-based
                # one reads each of those, as a phone's camera app would.
                text = (cv2.QRCodeDetector().detectAndDecode(big)[0]
                        or cv2.QRCodeDetectorAruco().detectAndDecode(big)[0])
                if not text:                             # kept for a look at what was shown
                    cv2.imwrite(str(ARTIFACTS / f"hotspot-unread-qr-{size}-{len(codes)}.png"), big)
                codes.append(text)
            assert codes == [r"WIFI:T:WPA;S:Ann's table;P:sea\;shell\:42;;",
                             f"http://10.42.0.1:{server.port}/"]
            assert shot.exists()
    finally:
        server.stop()
