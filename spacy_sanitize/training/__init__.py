"""Offline tooling (silver corpus, training, cross-validation, attack benchmark, Wikidata
gazetteer builder, weak labels): run as ``spacy-sanitize <subcommand>``, never imported at run time."""
