"""Table companion: rules engines, timer hardware and storage for four board games."""

__version__ = "0.1.0"
