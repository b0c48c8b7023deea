"""Coded errors and warnings of the masker (range E100-E199, W100-W199)."""
from ..masking_plan import Errors as PlanErrors


class Errors:
    E100 = "E100: strategy '{name}' is not registered. Registered: {names}."
    E101 = "E101: invalid parameter for strategy '{name}': {problem}."
    E102 = (
        "E102: operator label '{label}' is not a PII type. Use one of: {labels} or DEFAULT."
    )
    E103 = (
        "E103: could not parse the operator spec '{spec}': {problem}. Write "
        "'PERSON=numbered,DATETIME=generalize,DEFAULT=redact' or a JSON object."
    )
    E104 = PlanErrors.E104
    E105 = "E105: '{text}' is both in the allow-list and in the deny-list; remove it from one."
    E106 = (
        "E106: do not put the surrogate secret into the config (nlp.to_disk writes the config "
        "to disk). Set the environment variable {env} or call "
        "nlp.get_pipe('masker').set_secret(...)."
    )
    E107 = "E107: the mapping is not a spacy-sanitize mapping (version {version!r}); write it with save_mapping()."
    E108 = (
        "E108: replacement {index} ('{replacement}') is not at [{start}, {end}) of the "
        "sanitized text and could not be found after offset {start}; the text was edited."
    )
    E109 = "E109: p must be in (0, 1], got {p}."
    E110 = "E110: custom strategy '{name}' must be a callable (text, label, entity_id) -> str; got {type_name}."
    E111 = "E111: custom strategy '{name}' returned {type_name}, expected str."
    E112 = PlanErrors.E112
    E113 = (
        "E113: the masker's {where} config {cfg!r} does not name a registered strategy with "
        "'@strategies'. Write it as {new!r}, i.e. [components.masker.{where}] "
        "@strategies = \"<name>\" with the strategy's parameters as further keys."
    )


class Warnings:
    W100 = (
        "W100: no surrogate secret given (env {env} unset): a random one-time secret is used, "
        "so surrogates are not reproducible across runs. Set {env} for reproducible output."
    )
    W101 = (
        "W101: the mapping written to '{path}' holds the ORIGINAL text of every replaced span: "
        "it is as sensitive as the input. Store it encrypted and apart from the sanitized text."
    )
    W102 = (
        "W102: the {strategy} strategy gave a {label} span back unchanged; it was replaced by "
        "'[{label}]' instead. Check the span's type (a surrogate or generalization of another "
        "type leaves the text as is) or the strategy configured for {label}."
    )
    W103 = (
        "W103: p = {p} is set in the config, so the privacy report keeps it; the p estimated "
        "by initialize ({learned:.3f}) is saved but unused. Set p = null to use the estimate."
    )
