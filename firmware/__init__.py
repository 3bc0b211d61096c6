"""Firmware of the clapper box: a Raspberry Pi Pico running MicroPython.

``protocol`` and ``box`` are plain Python (they also import under CPython, for the tests
and for the host's virtual box); ``pico`` is the thin layer over ``machine`` pins;
``main.py`` is copied to the Pico's root and starts it. Nothing here imports the host's
packages.
"""
