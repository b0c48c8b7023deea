"""The project's own registries (entry points enabled, so plugins can add to them)."""
import catalogue
from spacy.util import registry as spacy_registry

strategies = catalogue.create("spacy_sanitize", "strategies", entry_points=True)

# Also reachable from configs as @misc, which is how thinc configs refer to callables.
misc = spacy_registry.misc
