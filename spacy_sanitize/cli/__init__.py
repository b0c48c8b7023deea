"""The command line (``spacy-sanitize``); see ``cli.main``."""
from .main import main  # noqa: F401
