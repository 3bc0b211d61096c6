"""A stand-in ``nmcli`` for the hotspot tests: NetworkManager's command line as far as
``companion hotspot`` and the start page use it, over a JSON state file
($FAKE_NMCLI_STATE). Every call is noted in the file's ``calls``."""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    path = os.environ["FAKE_NMCLI_STATE"]
    with open(path, encoding="utf-8") as f:
        state = json.load(f)
    state.setdefault("calls", []).append(argv)
    code = run(state, argv)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(state, f)
    return code


def run(state: dict, argv: list[str]) -> int:
    devices, active = state.setdefault("devices", []), state.setdefault("active", [])
    if argv[:4] == ["-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device"]:
        for dev in devices:
            print(":".join(part.replace(":", "\\:") for part in dev))
        return 0
    if argv[:3] == ["device", "wifi", "hotspot"]:
        if state.get("fail"):
            print(state["fail"], file=sys.stderr)
            return 10
        opts = dict(zip(argv[3::2], argv[4::2], strict=False))
        state.setdefault("profiles", {})[opts["con-name"]] = opts
        active.append(opts["con-name"])
        for dev in devices:
            if dev[0] == opts["ifname"]:
                dev[2:] = ["connected", opts["con-name"]]
        print(f"Device '{opts['ifname']}' successfully activated with 'f00d-cafe'.")
        return 0
    if argv[:2] == ["connection", "modify"] or argv[:2] == ["connection", "down"]:
        if argv[2] not in state.get("profiles", {}):
            print(f"Error: unknown connection '{argv[2]}'.", file=sys.stderr)
            return 10
        if argv[1] == "down" and argv[2] in active:
            active.remove(argv[2])
        return 0
    if argv == ["-t", "-f", "NAME", "connection", "show", "--active"]:
        print("\n".join(active))
        return 0
    if argv[:4] == ["-g", "IP4.ADDRESS", "connection", "show"]:
        if argv[4] not in active:
            print(f"Error: {argv[4]} - no such connection profile.", file=sys.stderr)
            return 10
        print("10.42.0.1/24")
        return 0
    print(f"Error: the fake nmcli does not know {' '.join(argv)}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
