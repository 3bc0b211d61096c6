"""The Pi's pins as the system sees them: which pin library gpiozero took for the ``gpio``
timer (and why it passed over lgpio), and whether a released output keeps its level.

On a Raspberry Pi 5 only lgpio drives the header's pins. When lgpio cannot be imported
(not installed, or no folder it may write its notification pipes in: ``LG_WD``) gpiozero
falls back, with nothing but a Python warning, to RPi.GPIO, pigpio or its own native
library, none of which drive a Pi 5's pins: the buttons stay dead and the clapper silent.
:func:`choose` keeps gpiozero's reasons; :func:`fallback` and :func:`fix` turn them into
the sentences ``serve`` and ``doctor`` say loudly.

Current Raspberry Pi kernels keep a released output's level, so a service killed during
the clapper's pulse would leave the solenoid powered; ``dtparam=strict_gpiod`` in
config.txt returns released pins to inputs, and the gate's pull-down then holds the MOSFET
off. :func:`release` tells which of the two this kernel does.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

FIRST_CHOICES = ("LGPIOFactory", "MockFactory")
"""Pin libraries that are no fallback: lgpio (gpiozero's first choice), the tests' mock."""
UNIT = "deploy/companion.service"
SYS_MODULE = Path("/sys/module")
PIN_DRIVERS = ("pinctrl_bcm2835", "pinctrl_rp1")  # Pi 4 and earlier; the Pi 5's RP1
BOOT_CONFIGS = (Path("/boot/firmware/config.txt"), Path("/boot/config.txt"))
MODEL = Path("/proc/device-tree/model")
STRICT = ("add the line dtparam=strict_gpiod to /boot/firmware/config.txt and reboot "
          "(hardware.md, 'After a crash'); `sudo make pi-install` adds it")

_chosen: tuple[Any, list[str]] = (None, [])
"""The pin factory gpiozero chose here, and why it passed over the ones before it."""


def choose() -> list[str]:
    """Let gpiozero pick its pin library now (if none is picked yet) and return why it
    passed over the libraries it tried first: nothing when it took lgpio, or when the
    library was named (``GPIOZERO_PIN_FACTORY``) or set by the program.

    Raises gpiozero's ``BadPinFactory`` when no library loads; :func:`reasons` then says
    why each one failed.
    """
    global _chosen
    from gpiozero import Device
    from gpiozero.exc import NativePinFactoryFallback, PinFactoryFallback

    if Device.pin_factory is not None:
        return reasons()
    fallbacks = (PinFactoryFallback, NativePinFactoryFallback)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            Device.ensure_pin_factory()
        finally:
            _chosen = (Device.pin_factory,
                       [str(w.message) for w in seen if issubclass(w.category, fallbacks)])
    for w in seen:  # any other warning is not ours to swallow
        if not issubclass(w.category, fallbacks):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return reasons()


def reasons() -> list[str]:
    """gpiozero's reasons for passing over pin libraries, for the factory now in use."""
    from gpiozero import Device

    factory, why = _chosen
    return list(why) if factory is Device.pin_factory else []


def fallback(factory: str, why: list[str]) -> str | None:
    """What is wrong when gpiozero fell back from lgpio to ``factory``; ``None`` when it
    did not fall back."""
    if not why or factory in FIRST_CHOICES:
        return None
    return (f"gpiozero could not use lgpio and fell back to {factory}, which does not drive "
            "a Raspberry Pi 5's pins (the buttons stay dead, the clapper silent): "
            + "; ".join(why))


def fix(why: list[str]) -> str:
    """What to do about lgpio, from gpiozero's reasons."""
    said = " ".join(why)
    if not why:
        return ("install lgpio (`sudo make pi-install`) and leave GPIOZERO_PIN_FACTORY unset, "
                "or set it to a pin library that is installed")
    if "lgd-nfy" in said:
        where = (f"in LG_WD ({os.environ['LG_WD']}), a folder" if os.environ.get("LG_WD")
                 else f"in the working directory ({os.getcwd()}), which")
        return (f"lgpio makes its notification pipes {where} this user cannot write: "
                f"point LG_WD at a folder it may write (the shipped {UNIT} sets "
                "RuntimeDirectory=companion and LG_WD=/run/companion; install it again "
                "with `sudo make pi-install`)")
    if "No module named 'lgpio'" in said:
        return ("install lgpio into the companion's virtualenv: `sudo make pi-install`, or "
                ".venv/bin/pip install lgpio")
    return ("check that lgpio opens the GPIO chip as the service's user (group gpio): "
            "python -c 'import lgpio; lgpio.gpiochip_open(0)'; see hardware.md, "
            "'Service on Raspberry Pi OS'")



def release() -> tuple[bool, str, str]:
    """Whether a released output returns to an input here: ``(ok, what was seen, fix)``."""
    keeping: list[str] = []
    returning: list[str] = []
    for driver in PIN_DRIVERS:
        # persist_gpio_outputs (=Y keeps the level) in current kernels, strict_gpiod (=N
        # keeps it) in the first ones that had a choice
        for name, keeps in (("persist_gpio_outputs", "Y"), ("strict_gpiod", "N")):
            file = SYS_MODULE / driver / "parameters" / name
            try:
                value = file.read_text("ascii").strip()
            except (OSError, UnicodeDecodeError):
                continue
            seen = f"{driver}.{name}={value}"
            (keeping if value.upper().startswith(keeps) else returning).append(seen)
    boot = strict_in_boot_config()
    if keeping:
        return (False, f"a released GPIO output keeps its level ({', '.join(keeping)}): "
                "a crash during the clapper's pulse leaves the solenoid on",
                f"reboot: {boot} has dtparam=strict_gpiod, not yet in effect" if boot
                else STRICT)
    if returning:
        return True, f"released GPIO outputs return to inputs ({', '.join(returning)})", ""
    try:
        model = MODEL.read_text("ascii", "replace").rstrip("\0\n")
    except OSError:
        model = ""
    if not model.startswith("Raspberry Pi"):
        return True, "not a Raspberry Pi: no GPIO outputs to release", ""
    if boot:
        return (True, f"dtparam=strict_gpiod is in {boot} (this kernel shows no "
                "persist_gpio_outputs to confirm it)", "")
    return (False, f"{model}: cannot tell whether a released GPIO output keeps its level, "
            "and config.txt has no dtparam=strict_gpiod",
            f"update the system (sudo apt full-upgrade), then {STRICT}")


def strict_in_boot_config() -> Path | None:
    """The config.txt that asks for ``dtparam=strict_gpiod``, if one does."""
    for boot in BOOT_CONFIGS:
        try:
            lines = boot.read_text("utf-8", "replace").splitlines()
        except OSError:
            continue
        if any(line.strip().startswith("dtparam=strict_gpiod") for line in lines):
            return boot
    return None
