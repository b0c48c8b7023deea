"""Components for the Ray tests. Ray workers do not import the test modules, so the test
fixture ships ``register`` by value as the workers' ``worker_process_setup_hook``."""
import os
from pathlib import Path

from spacy.language import Language


def die_once(doc):
    # "DIE:<path>": the first worker to see it creates <path> and exits at once (a killed
    # actor); the retry finds <path> and goes on
    if doc.text.startswith("DIE:"):
        marker = Path(doc.text[4:].split()[0])
        if not marker.exists():
            marker.write_text(str(os.getpid()), encoding="utf-8")
            os._exit(1)
    return doc


def register() -> None:
    if not Language.has_factory("test_die_once"):
        Language.component("test_die_once", func=die_once)
