"""Coded messages of pii_relabel (range E300-E309)."""


class Errors:
    E300 = "E300: pii_relabel has no model. Set model = \"spacy_sanitize:pii_relabel\" (the shipped one), a model directory, or train one with nlp.initialize / PIIRelabel.fit."
    E301 = (
        "E301: could not load the pii_relabel model from '{path}': {err}. Rebuild it with "
        "`spacy project run train-relabel` (or `python scripts/train_relabel.py`), or point model at a valid directory."
    )
    E302 = "E302: the pii_relabel model in '{path}' has format '{got}', this version reads '{expected}'. Retrain it with `spacy project run train-relabel`."
    E303 = "E303: no training spans: the examples' predicted docs have no '{key}' spans that overlap a reference '{key}' span."
    E304 = "E304: unknown PII label(s) {labels} in the pii_relabel model; labels must be among {known}."
