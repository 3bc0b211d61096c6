# Copied to the Pico's root as main.py; MicroPython runs it at power-up.
from firmware import pico

pico.run()
