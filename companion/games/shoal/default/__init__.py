"""The default Shoal deck (``deck.json``): a reconstruction, see docs/shoal.md."""
