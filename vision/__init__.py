"""Camera scoring: the mat, deck calibration and the readers of each game."""
