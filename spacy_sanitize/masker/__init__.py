"""masker: strategies, consistent replacement, reversibility and the privacy report."""
from .options import build_operators, build_strategy
from .restore import build_mapping, load_mapping, restore, save_mapping

__all__ = ["build_operators", "build_strategy", "build_mapping", "load_mapping", "restore", "save_mapping"]
