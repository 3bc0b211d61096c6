#!/usr/bin/env bash
# The Pi install proven on a Pi-like system: an arm64 Debian bookworm root (Python 3.11.2,
# as on Raspberry Pi OS) built with mmdebstrap and run under qemu-user-static. Not part of
# `make test`: it takes 15 minutes or more. As root, from a checkout:
#
#   sudo nice -n 15 deploy/pi-proof.sh [--rebuild] [--no-tests] [WORKDIR]
#   (WORKDIR: default /var/tmp/pi-proof)
#
# 1. builds the root once (kept as WORKDIR/bookworm-arm64; --rebuild makes it again) and
#    works in a fresh copy of it;
# 2. installs the companion there the way hardware.md says (`make pi-install`);
# 3. checks the systemd unit (`systemd-analyze verify`) and, as the `companion` user, lgpio
#    importable from the unit's working directory with the unit's LG_WD (and not without
#    it), the doctor and `serve` saying loudly that the gpio timer fell back (a chroot has
#    no GPIO chip);
# 4. runs the engine, companion, firmware (MicroPython's WebAssembly port on Debian's node,
#    installed by `make micropython`), hardware (GPIOZERO_PIN_FACTORY=mock) and vision
#    tests there.
# Each step's result and time go to WORKDIR/summary.txt, everything else to WORKDIR/proof.log.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
REBUILD=0
TESTS=1
while [ $# -gt 0 ]; do
    case $1 in
        --rebuild) REBUILD=1; shift ;;
        --no-tests) TESTS=0; shift ;;   # the install and the unit only
        *) break ;;
    esac
done
WORK=${1:-/var/tmp/pi-proof}
BASE=$WORK/bookworm-arm64
ROOT=$WORK/root
LOG=$WORK/proof.log
SUMMARY=$WORK/summary.txt
PACKAGES=python3,python3-venv,passwd,systemd,udev,ca-certificates,make,git
# qemu runs the root's programs as a Raspberry Pi 4's core (cortex-a76 for a Pi 5): its
# default CPU has features no Pi has (SME, whose OpenBLAS kernels raise every floating-
# point flag, docs/pi-proof.txt) and is some six times slower to emulate. binfmt starts
# a qemu for each program, which reads this from the program's environment.
export QEMU_CPU=${QEMU_CPU:-cortex-a72}

[ "$(id -u)" = 0 ] || { echo "pi-proof: run it as root" >&2; exit 2; }
mkdir -p "$WORK"
: > "$LOG"
: > "$SUMMARY"
START_ALL=$(date +%s)
failed=0

note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
# step NAME COMMAND...: run it with its output in the log, note pass/FAIL and its time.
step() {
    local name=$1 t0 rc
    shift
    t0=$(date +%s)
    printf '\n===== %s: %s\n' "$name" "$*" >> "$LOG"
    set +e
    "$@" >> "$LOG" 2>&1
    rc=$?
    set -e
    if [ $rc = 0 ]; then
        note "pass  $name ($(( $(date +%s) - t0 )) s)"
    else
        note "FAIL  $name ($(( $(date +%s) - t0 )) s, exit $rc; see $LOG)"
        failed=1
    fi
    return $rc
}
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/ca-certificates.crt QEMU_CPU="$QEMU_CPU" "$@"; }

unmount() {
    for m in dev/pts dev sys proc; do
        mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m"
    done
    return 0
}
trap unmount EXIT

host_tools() {
    local missing=()
    for p in mmdebstrap qemu-user-static binfmt-support arch-test; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    fi
    [ -e /proc/sys/fs/binfmt_misc/status ] ||
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    update-binfmts --enable qemu-aarch64 || true   # "already enabled" is fine
    arch-test arm64
}

build_root() {
    if [ $REBUILD = 1 ] || [ ! -x "$BASE/usr/bin/python3" ]; then
        rm -rf "$BASE" "$BASE.new"
        mmdebstrap --arch=arm64 --variant=apt --include="$PACKAGES" bookworm "$BASE.new"
        mv "$BASE.new" "$BASE"
    fi
    unmount
    rm -rf "$ROOT"
    cp -a "$BASE" "$ROOT"
    mount -t proc proc "$ROOT/proc"
    mount --bind /sys "$ROOT/sys"
    mount --bind /dev "$ROOT/dev"
    mount --bind /dev/pts "$ROOT/dev/pts"
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
    # the host's trusted certificates, should its network need them for the package index
    cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
}

copy_project() {
    mkdir -p "$ROOT/root/table-companion"
    tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude=__pycache__ \
        --exclude='*.egg-info' --exclude=./build -cf - . |
        tar -C "$ROOT/root/table-companion" -xf -
}

# As hardware.md says: `sudo make pi-install` in the checkout. The root has no GPIO chip,
# so the doctor at its end uses gpiozero's mock pins.
pi_install() {
    in_root GPIOZERO_PIN_FACTORY=mock make -C /root/table-companion pi-install TIMER=gpio
}

unit() { sed -n "s/^$1=//p" "$ROOT/etc/systemd/system/companion.service" | tail -n 1; }
# as_service [--without NAME] COMMAND...: as the unit runs it (user, folder, environment),
# less the unit's variable NAME.
as_service() {
    local env=() drop=NONE
    [ "$1" = --without ] && { drop=$2; shift 2; }
    mapfile -t env < <(sed -n 's/^Environment=//p' "$ROOT/etc/systemd/system/companion.service" |
                       grep -v "^$drop=")
    install -d -o "$(in_root id -u companion)" -m 0750 "$ROOT/run/$(unit RuntimeDirectory)"
    chroot "$ROOT" /bin/sh -c 'cd "$1" && shift && exec runuser -u companion -- "$@"' \
        sh "$(unit WorkingDirectory)" env -i PATH=/usr/bin:/bin LANG=C.UTF-8 QEMU_CPU="$QEMU_CPU" \
        "${env[@]}" "$@"
}

# as systemd loads it (systemd-analyze needs root to set up its runtime folder); the unit's
# user, folder and environment are checked by the steps after it
verify_unit() {
    in_root systemd-analyze verify /etc/systemd/system/companion.service
    in_root runuser -u companion -- test -r /etc/systemd/system/companion.service
}

lgpio_with_lg_wd() {
    as_service /opt/companion/.venv/bin/python -c \
        'import os, lgpio; print("lgpio", lgpio.LGPIO_PY_VERSION, "imported; cwd", os.getcwd())'
}

# The fault the unit fixes, shown: without LG_WD the import fails in /opt/companion.
lgpio_fails_without_lg_wd() {
    local out
    if out=$(as_service --without LG_WD /opt/companion/.venv/bin/python -c 'import lgpio' 2>&1); then
        echo "lgpio imported without LG_WD: the check proves nothing"
        return 1
    fi
    echo "$out" | tail -n 2
    echo "$out" | grep -q 'lgd-nfy'
}

doctor_is_loud() {
    local out
    out=$(as_service /opt/companion/.venv/bin/companion doctor 2>&1) && return 1
    echo "$out"
    echo "$out" | grep -q '^BAD  timer:'
}

# serve as the unit starts it, stopped with SIGINT (as systemd does) after a minute
serve_is_loud() {
    local out
    out=$(as_service timeout -s INT 60 /opt/companion/.venv/bin/companion serve \
          --host 127.0.0.1 --port 18765 2>&1)
    echo "$out"
    echo "$out" | grep -q 'serving on' && echo "$out" | grep -q 'WARNING' &&
        echo "$out" | grep -q 'browser timer'
}

# the test runners of the dev extra and scikit-image, which the vision tests' synthetic
# tables use (the rest of it, ruff, mypy, playwright, is not needed),
# and what the firmware tests run MicroPython on: node and npm (Debian's, arm64, as a Pi's
# `make test` installs them) and the WebAssembly port, `make micropython` in the installed
# copy. -B: a node_modules copied in with a checkout makes the target look done, and then
# neither node nor npm is installed (the test fails "the port is not installed").
test_tools() {
    local wanted=()
    mapfile -t wanted < <(python3 -c 'import sys, tomllib
dev = tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]["dev"]
print("\n".join(r for r in dev if r.startswith(("pytest", "hypothesis", "scikit-image"))))' \
        "$SRC/pyproject.toml")
    in_root /opt/companion/.venv/bin/pip install --quiet --disable-pip-version-check \
        "${wanted[@]}"
    in_root make -B -C /opt/companion micropython
}

tests() {
    in_root GPIOZERO_PIN_FACTORY=mock sh -c \
        'cd /opt/companion && exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"' \
        sh "$@"
}

note "pi-proof of $(git -C "$SRC" describe --always --dirty 2>/dev/null || echo "$SRC")," \
     "$(date -u +%Y-%m-%dT%H:%MZ), host $(uname -m), $(nproc) cores"
step "host tools (mmdebstrap, qemu-user-static, binfmt qemu-aarch64)" host_tools
step "arm64 bookworm root" build_root || exit 1
note "      $(in_root uname -m), $(in_root python3 --version), qemu CPU $QEMU_CPU"
step "project copied into the root" copy_project
step "make pi-install (venv --system-site-packages, lgpio, user, unit, udev, doctor)" \
    pi_install || true
step "systemd-analyze verify companion.service" verify_unit || true
step "lgpio importable in the unit's WorkingDirectory with its LG_WD" lgpio_with_lg_wd || true
step "lgpio import fails there without LG_WD (the fault)" lgpio_fails_without_lg_wd || true
step "doctor as the service: BAD timer (no GPIO chip in a chroot)" doctor_is_loud || true
step "serve as the service: loud fallback to the browser timer" serve_is_loud || true
if [ $TESTS = 1 ]; then
    step "pytest, hypothesis, scikit-image in the venv; node, npm, MicroPython's port" \
        test_tools || true
    port=$ROOT/opt/companion/tests/firmware/board/node_modules/@micropython
    port=$port/micropython-webassembly-pyscript/package.json
    note "      node $(in_root node --version 2>/dev/null || echo missing), MicroPython's" \
         "WebAssembly port $(sed -n 's/^ *"version": "\(.*\)",$/\1/p' "$port" 2>/dev/null ||
                             echo missing)"
    for group in games companion firmware hardware vision; do
        step "tests/$group" tests "tests/$group" || true
        note "      $(grep -E '(passed|failed|error)' "$LOG" | tail -n 1)"
    done
fi
note "total $(( ($(date +%s) - START_ALL) / 60 )) min $(( ($(date +%s) - START_ALL) % 60 )) s:" \
     "$([ $failed = 0 ] && echo 'all passed' || echo 'some steps FAILED')"
exit $failed
