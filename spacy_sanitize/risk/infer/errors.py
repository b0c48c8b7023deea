"""Coded messages of risk_infer and its attacker (range E600-699)."""


class Errors:
    E601 = (
        "E601: the risk_infer component '{name}' has no trained attacker, so it cannot tell "
        "which words give the attribute away. Initialize it with a training file "
        "(`[initialize.components.{name}] train_path = \"data.jsonl\"` with a text and a label "
        "field) or a trained attacker (`attacker_path = \"dir\"` from "
        "`python -m spacy_sanitize attacker train`), or load a pipeline saved after that."
    )
    E602 = (
        "E602: risk_infer.initialize needs training data: give train_path (JSONL with "
        "'{text_field}' and '{label_field}'), attacker_path (a trained attacker), or examples "
        "whose reference docs carry doc.cats."
    )
    E603 = "E603: attacker file format {found} is not supported (expected {expected}); retrain it with this version."
    E604 = "E604: attacker coefficients have shape {shape}, expected ({classes}, {features}); the file is corrupt."
    E605 = "E605: '{path}' does not exist; train an attacker with `python -m spacy_sanitize attacker train`."
    E606 = "E606: unknown token attribute '{attr}' for the attacker; use one of {attrs}."
    E607 = (
        "E607: cannot train an attacker from {n} texts and {n_labels} labels with {n_classes} "
        "distinct value(s): give one label per text and at least two classes."
    )
    E608 = "E608: no record of '{path}' has a string '{text_field}' and a '{label_field}' label."
    E609 = "E609: unknown search '{search}' for risk_infer; use one of {searches}."
    E611 = "E611: threshold must be in (0, 1], got {threshold}."
    E612 = "E612: no gold document in '{path}' could be scored to fit the threshold."


class Warnings:
    W601 = (
        "W601: risk_infer could not bring the attacker's confidence in '{label}' below "
        "{threshold:.3f} (reached {reached:.3f}, {reason}); the words it found are masked anyway."
    )
    W602 = (
        "W602: threshold = {threshold} is set in the config, so it stays in use; the fitted "
        "threshold ({fitted:.4f}) is saved but unused. Set threshold = null to use it."
    )
