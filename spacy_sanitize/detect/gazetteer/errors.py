"""Coded errors and warnings of the gazetteer (range E200-E299)."""


class Errors:
    E200 = (
        "E200: gazetteer '{name}' not found. Give 'default' (the gazetteer shipped with the "
        "package), a JSONL(.gz) file of terms, or a directory saved by GazetteerMatcher.to_disk."
    )
    E201 = "E201: line {line} of gazetteer file '{path}' is not a JSON object with a string 'term' and a 'label': {problem}."
    E202 = "E202: unknown gazetteer label '{label}' for term '{term}'. Use one of: {labels}."
    E204 = "E204: unknown filter setting '{setting}' for '{scope}'. Known settings: {known}."
    E205 = (
        "E205: the Wikidata dump '{path}' could not be read: {err}. Give a .json, .json.gz or "
        ".json.bz2 file with one entity per line, as published on dumps.wikimedia.org."
    )
    E206 = "E206: the properties file '{path}' has a bad row {row!r}: expected property id (P123), label, and DEM or MISC."
    E207 = "E207: the SPARQL endpoint '{url}' failed after {tries} tries: {err}."
    E208 = "E208: the gazetteer data is corrupt ('{path}'): {problem}. Rebuild it or save it again."


class Warnings:
    W200 = "W200: {errors} line(s) of the Wikidata dump '{path}' were not valid JSON and were skipped; first at line {line}."
    W201 = (
        "W201: could not use the saved gazetteer index in '{path}' ({err}); it was rebuilt "
        "from the saved keys. Save the matcher or pipeline again to store the current index."
    )
    W202 = (
        "W202: the saved pii_gazetteer matcher was compiled for gazetteer = {saved!r}, but the config "
        "says gazetteer = {configured!r}: the config wins and the saved matcher is not used."
    )
