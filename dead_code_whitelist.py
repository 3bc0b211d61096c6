"""Names the dead-code check (``vulture`` in ``make test``) cannot see used: a library
reads or calls them. Add a name here only with the library that uses it."""
# ruff: noqa

# gpiozero calls a button's handlers (companion/hardware/gpio.py)
when_pressed, when_held, when_released
# pyserial's ReaderThread calls its protocol's connection_made (companion/hardware/serial_box.py)
connection_made
# machine.Timer.init's keyword, as MicroPython's (tests/firmware/board/machine.py)
hard
# a signal handler's signature (companion/hardware/commands.py)
signum
# Flask reads these (web/app.py, web/auth.py)
sort_keys, permanent
# waitress reads its adjustments (web/commands.py)
socket_options
# written to the README's style table by hand (vision/synth_tables.py)
about
# importlib calls a meta-path finder's find_spec (tests/hardware/test_pin_library.py)
find_spec
# Python calls a module's __getattr__ for a name it lacks (companion/games/shoal/__init__.py,
# companion/games/poodivers/__init__.py: the engines imported when first asked for)
__getattr__
# pytest fixtures a test asks for by name for their effect (or use pytest.mark.usefixtures)
lgpio_fails, no_decoding
# paho-mqtt calls the callbacks set on a client with these arguments, and reads the
# session's expiry from its CONNECT properties (hub/mqtt.py, hub/publish.py, hub/follow.py)
on_connect, on_disconnect, on_message, on_publish, on_subscribe, userdata, properties
SessionExpiryInterval
# OpenCV's ArUco detector reads its parameters (vision/mat.py)
minDistanceToBorder, minMarkerPerimeterRate, maxMarkerPerimeterRate
