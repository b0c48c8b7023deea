"""The review report (``spacy-sanitize report``) and the displaCy view (``render``)."""
from .displacy import displacy_data, displacy_options, render  # noqa: F401
from .why import span_why  # noqa: F401
