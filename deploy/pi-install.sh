#!/usr/bin/env bash
# Install the table companion as a service on Raspberry Pi OS (64-bit, bookworm or newer),
# as hardware.md ("Service on Raspberry Pi OS") describes. Run it from a checkout:
#
#   sudo deploy/pi-install.sh [--timer gpio|serial:/dev/clapperbox|browser] [--no-start]
#   (or: sudo make pi-install TIMER=serial:/dev/clapperbox)
#   sudo deploy/pi-install.sh --doctor   (only the doctor, as the service runs it)
#
# It copies the checkout to /opt/companion, makes the virtualenv there with the system's
# packages visible (Picamera2 comes from Raspberry Pi OS, not from PyPI), installs the
# companion with lgpio, creates the `companion` user, installs the systemd unit and the
# clapper box's udev rule, asks for dtparam=strict_gpiod when the solenoid hangs on the
# Pi's pins, and ends with `companion doctor` run as the service runs it.
# Running it again updates the installation and keeps the config file and the database.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=/opt/companion
STATE=/var/lib/companion
UNIT=/etc/systemd/system/companion.service
TIMER=gpio
START=1
DOCTOR_ONLY=0

say() { printf 'pi-install: %s\n' "$*"; }
die() { printf 'pi-install: %s\n' "$*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case $1 in
        --timer) TIMER=${2:?--timer needs gpio, browser or serial:URL}; shift 2 ;;
        --timer=*) TIMER=${1#--timer=}; shift ;;
        --no-start) START=0; shift ;;
        --doctor) DOCTOR_ONLY=1; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
case $TIMER in
    gpio|browser|serial:?*) ;;
    *) die "--timer is gpio, browser or serial:URL (serial:/dev/clapperbox), not '$TIMER'" ;;
esac
[ "$(id -u)" = 0 ] || die "run it as root: sudo $0"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "Python 3.11 or newer is needed; this system has $(python3 --version 2>&1)"

# COMMAND... as the service runs: its user, its working directory, its environment.
as_service() {
    local unit_env=() passed=() runtime
    unit_value() { sed -n "s/^$1=//p" "$UNIT" | tail -n 1; }
    mapfile -t unit_env < <(sed -n 's/^Environment=//p' "$UNIT")
    runtime=/run/$(unit_value RuntimeDirectory)
    install -d -o companion -g companion -m 0750 "$runtime"
    # for tests: a mock pin factory where no pins exist
    [ -n "${GPIOZERO_PIN_FACTORY:-}" ] && passed+=("GPIOZERO_PIN_FACTORY=$GPIOZERO_PIN_FACTORY")
    (cd "$(unit_value WorkingDirectory)" &&
        runuser -u companion -- env -i PATH=/usr/bin:/bin "${unit_env[@]}" "${passed[@]}" "$@")
}

service_doctor() {
    say "companion doctor, as the service runs it:"
    as_service "$PREFIX/.venv/bin/companion" doctor
}

if [ $DOCTOR_ONLY = 1 ]; then
    [ -f "$UNIT" ] || die "no $UNIT: install first (sudo make pi-install)"
    running=0
    if systemctl is-active --quiet companion 2>/dev/null; then
        running=1
        systemctl stop companion   # it holds the pins and the box the doctor opens
    fi
    set +e
    service_doctor
    doctor=$?
    set -e
    [ $running = 0 ] || systemctl start companion
    exit $doctor
fi

say "Debian packages: python3-venv (and python3-picamera2 where the system has it)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
packages=(python3-venv)
if apt-cache show python3-picamera2 >/dev/null 2>&1; then
    packages+=(python3-picamera2)
else
    say "no python3-picamera2 here (Raspberry Pi OS has it): camera scoring can still use" \
        "a USB webcam or image files"
fi
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

say "the service user 'companion' (groups gpio, dialout, video; home $STATE)"
for group in gpio dialout video; do   # gpio exists on Raspberry Pi OS; elsewhere make it
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if id companion >/dev/null 2>&1; then
    usermod --append --groups gpio,dialout,video companion
else
    useradd --system --create-home --home-dir "$STATE" --shell /usr/sbin/nologin \
        --groups gpio,dialout,video companion
fi

if [ "$SRC" != "$PREFIX" ]; then
    say "copying $SRC to $PREFIX"
    install -d "$PREFIX"
    tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude='*.egg-info' \
        --exclude=__pycache__ -cf - . | tar -C "$PREFIX" -xf -
fi

say "virtualenv $PREFIX/.venv (--system-site-packages, for Picamera2) with lgpio"
python3 -m venv --system-site-packages "$PREFIX/.venv"
"$PREFIX/.venv/bin/pip" install --quiet --disable-pip-version-check "$PREFIX[pi]"

config=$STATE/.config/companion/config.toml
install -d -o companion -g companion "$(dirname "$config")"
if [ -e "$config" ]; then
    say "keeping $config"
else
    say "writing $config: timer = \"$TIMER\""
    printf 'timer = "%s"\n' "$TIMER" > "$config"
    chown companion:companion "$config"
fi

say "systemd unit $UNIT and udev rule /etc/udev/rules.d/99-clapperbox.rules"
install -m 644 "$PREFIX/deploy/companion.service" "$UNIT"
install -m 644 "$PREFIX/deploy/99-clapperbox.rules" /etc/udev/rules.d/99-clapperbox.rules
if [ -d /run/udev ]; then   # udevd runs (not in a chroot)
    udevadm control --reload && udevadm trigger --subsystem-match=tty
fi

# A released output keeps its level on current Raspberry Pi kernels: a service killed
# mid-pulse would leave the solenoid on. strict_gpiod returns released pins to inputs.
reboot=0
if [ "$TIMER" = gpio ]; then
    for boot in /boot/firmware/config.txt /boot/config.txt; do
        [ -f "$boot" ] || continue
        if ! grep -Eq '^[[:space:]]*dtparam=strict_gpiod' "$boot"; then
            say "adding dtparam=strict_gpiod to $boot (takes effect after a reboot)"
            printf '\n# table companion: released GPIO outputs return to inputs\n%s\n' \
                dtparam=strict_gpiod >> "$boot"
            reboot=1
        fi
        break
    done
fi

systemd=0
[ -d /run/systemd/system ] && systemd=1   # systemd runs (not in a chroot)
if [ $systemd = 1 ]; then
    systemctl daemon-reload
    systemctl stop companion 2>/dev/null || true   # it would hold the pins the doctor checks
fi
systemctl enable companion 2>&1 | sed 's/^/pi-install: /'

# The table PIN, made now as `companion serve` makes it on its first start (and kept).
as_service "$PREFIX/.venv/bin/python" -c 'from companion.settings import ConfigError, Settings
try:
    pin, new = Settings.load().table_pin()
except (ConfigError, OSError) as err:
    raise SystemExit(f"pi-install: no table PIN yet ({err}); the doctor says more")
print(f"pi-install: the table PIN is {pin}" + (" (new)" if new else ""))' || true

set +e
service_doctor
doctor=$?
set -e

if [ $systemd = 1 ] && [ $START = 1 ]; then
    systemctl start companion
    say "started: journalctl -u companion -f shows the PIN and the dashboard's address"
else
    say "enabled; it starts at the next boot (or now: sudo systemctl start companion)"
fi
[ $reboot = 0 ] || say "reboot once so that dtparam=strict_gpiod takes effect"
[ $doctor = 0 ] || say "the doctor found problems (above): fix them, then check again" \
    "with: sudo $0 --doctor"
exit $doctor
