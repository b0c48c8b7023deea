"""Coded messages of risk_perturb (range E450-459, W450-459)."""


class Errors:
    E450 = "E450: the span scorer failed on this document: {err}"
    E451 = (
        "E451: no influence can be measured: the document has no PII span of another entity "
        "to predict (or none could be scored); the span is masked (fail closed)."
    )
    E452 = "E452: unknown {what} '{value}'; use one of {options}."
    E453 = (
        "E453: no training spans to fit the threshold: the gold docs have no '{key}' spans with "
        "'mask' decisions (read them with spacy_sanitize.corpus.read_tab)."
    )
    E454 = "E454: `scale` must be > 0 (got {scale})."
    W450 = (
        "W450: the scorer '{scorer}' ignores the context (word frequencies), so every influence is 0 "
        "and risk_perturb masks nothing; use a masked LM scorer (spacy_sanitize.lm.hf.v1)."
    )
    W451 = (
        "W451: threshold = {threshold} is set in the config, so it stays in use; the fitted "
        "threshold ({fitted:.4f}) is saved but unused. Set threshold = null to use it."
    )

