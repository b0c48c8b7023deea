"""Grouped 5-fold cross-validation on the annotated court cases (TAB dev, 92 ECHR cases,
356 annotator views), end to end from raw text: the spans of `court`'s detector (its components before the risk
stage: ``ensemble``'s detector + ``pii_extend``), a risk_seq
tagger trained on the training folds' annotations (all annotators of a case in one fold),
the decision (risk >= a threshold chosen by inner CV on the training folds only, under each
protection policy of ``POLICIES``: labels, listed names, name rules, validated codes, dates after
cues, as ``decide/rules.py`` applies them), the masker's plan (every mention of a masked entity, string
propagation) and the TAB metrics over the pooled out-of-fold predictions.

    python benchmarks/quality/tab_eval.py --data ../shared/data/tab/tab_dev.json

Detection does not depend on the folds: its spans are cached in ``--cache``, and the
out-of-fold token probabilities next to it (delete them after changing the detector or the tagger).
``--mean-with transformer`` decides on the mean of two taggers' span risks (risk_vote's ``mean``)
from both runs' probabilities; ``--propose`` lets the tagger add and widen spans. The same run on the biographies
(``--data wiki_dev.json --width 0 --epochs 10``: the shipped biography tagger's settings) shows
the protection policies there. ``--with-protect-field meta.applicant`` adds the same policies
with the person to protect given (``Doc._.protect`` from each record's field: every span sharing a
name part with the applicant stays masked, as risk_vote/risk_threshold decide with it set).
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import spacy
from spacy.tokens import Doc


from spacy_sanitize.corpus import TabDocument, docs_to_tab, load_tab, shared_data_dir, tab_to_docs  # noqa: E402
from spacy_sanitize.decide.protect import protect_from_record  # noqa: E402
from spacy_sanitize.decide.rules import ProtectRules  # noqa: E402
from spacy_sanitize.decide.threshold import RiskThreshold  # noqa: E402
from spacy_sanitize.evaluation import Tokens, detect_docs, document_folds, predicted_mask_offsets, tab_scores  # noqa: E402
from spacy_sanitize.evaluation.thresholds import best_threshold, recall_first_threshold  # noqa: E402
from spacy_sanitize.masker.plan import PlanSettings  # noqa: E402
from spacy_sanitize.pipeline import load_detector  # noqa: E402
from spacy_sanitize.risk.seq import proposed_spans, span_risk  # noqa: E402
from spacy_sanitize.spans import VALIDATED, is_validated  # noqa: E402
from spacy_sanitize.training.seq_train import FAMILIES, cnn_tagger, train_risk_seq  # noqa: E402
from spacy_sanitize.training.stack_train import fit_stack  # noqa: E402

# doc id -> the --data file it came from (its name), when more than one is given: folds deal
# each corpus in turn and the scores are reported per corpus too
STRATA: Dict[str, str] = {}
METRICS = ("P", "R_all", "F1", "R_ent", "R_direct", "R_quasi")
THRESHOLDS = [0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
# risk_seq's propose_threshold: its own spans, runs of tokens outside the detected ones at least
# this likely to be masked (--propose chooses one by inner CV, None = no proposals)
PROPOSE = [0.5, 0.7, 0.8, 0.9, 0.95]
PROPOSED, WIDENED = "proposed", "widened"
# the risk key the replayed decider reads a row's risk under (the stack's or the tagger's)
ROW_RISK = "row"
# risk_stack's thresholds (its risk is calibrated by the fit: a probability of masking); steps
# of 0.025 let the recall-first choice stop close to its R_quasi bound
STACK_THRESHOLDS = [round(0.2 + 0.025 * i, 3) for i in range(17)]
# The decision policies compared: the labels kept masked whatever the risk.
# The decision policies compared: the decider's protection settings (risk_threshold's config
# keys, decide/rules.py): what stays masked whatever the risk.
DATE_CUES = ["born", "birth", "birthdate", "birthday", "dob", "d.o.b", "b.", "died", "death", "d.",
             "né le", "née le", "naissance", "geboren", "admitted", "discharged"]
NAMED = {"protect": ["CODE", "PERSON"], "protect_names": True}
RULES = {**NAMED, "protect_detectors": ["pii_titles", "pii_script"], "protect_validated": True}
POLICIES: Dict[str, Dict[str, Any]] = {
    "no protection": {"protect": []},
    "protect CODE": {"protect": ["CODE"]},
    "protect CODE, PERSON": {"protect": ["CODE", "PERSON"]},
    "protect CODE, PERSON, listed names": NAMED,
    "protect CODE, PERSON, dates after cues": {"protect": ["CODE", "PERSON"], "protect_date_cues": DATE_CUES},
    "protect CODE, PERSON, listed names, name rules, validated codes": RULES,
    "protect CODE, PERSON, listed names, name rules, validated codes, dates after cues": {**RULES, "protect_date_cues": DATE_CUES},
}
# The policy parts/court.cfg ships (tests/test_court_benchmarks.py checks they agree).
COURT_POLICY = "protect CODE, PERSON, listed names, name rules, validated codes, dates after cues"
# default's: court's, with the code rules' spans and spans shaped like an identifier (parts/default.cfg)
DEFAULT_POLICY = COURT_POLICY + ", code rules, code-shaped"
POLICIES[DEFAULT_POLICY] = {**POLICIES[COURT_POLICY], "protect_detectors": ["pii_titles", "pii_script", "pii_codes"], "protect_code_shaped": True}
# default's since the numeric-date rule ("1990-06-11" in a record: the decision never saw one)
POLICIES[DEFAULT_POLICY + ", numeric dates"] = {**POLICIES[DEFAULT_POLICY], "protect_numeric_dates": True}
# and the special categories of personal data where a person is named (health, orientation, religion, ethnicity)
POLICIES[DEFAULT_POLICY + ", numeric dates, special categories"] = {**POLICIES[DEFAULT_POLICY + ", numeric dates"], "protect_special": True}
# and ages where a person is named ("Patient: John Smith, age 52")
POLICIES[DEFAULT_POLICY + ", numeric dates, special categories, ages"] = {**POLICIES[DEFAULT_POLICY + ", numeric dates, special categories"],
                                                                          "protect_ages": True}
# A span row: [start, end, label, entity_id, risk]; risk None = masked (no score: fail closed).
# Detected rows carry two more: [..., detector, validated] (risk_explain["detector"] and
# spans.is_validated), which the span protection rules read.
Row = List[Any]
DETECTED_ROW_LEN = 7


def detected_rows(texts: Sequence[str], doc_ids: Sequence[str], cache: Optional[Path], pipeline: str) -> Dict[str, List[Row]]:
    """The detector's spans per document (cached: detection does not depend on the folds). A
    cache of an older format (rows without detector and validated) or without one of the
    documents is detected again."""
    if cache is not None and cache.exists():
        cached = json.loads(cache.read_text())
        fresh = all(len(row) == DETECTED_ROW_LEN for rows in cached.values() for row in rows)
        if fresh and set(doc_ids) <= set(cached):
            return cached
    start = time.perf_counter()
    docs = detect_docs(load_detector(pipeline), texts, doc_ids)
    rows = {
        doc._.doc_id: [
            [s.start_char, s.end_char, s.label_, s._.entity_id, None, str(s._.risk_explain.get("detector", "")), is_validated(s)]
            for s in doc.spans.get("pii", [])
        ]
        for doc in docs
    }
    print(f"detected {len(docs)} docs in {time.perf_counter() - start:.0f}s", flush=True)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(rows))
    return rows


def span_docs(nlp, texts: Dict[str, str], rows: Dict[str, List[Row]], doc_ids: Sequence[str]) -> List[Doc]:
    """Fresh tokenizations carrying the detected spans (what risk_seq sees in the pipeline)."""
    docs = []
    for doc_id in doc_ids:
        doc = nlp.make_doc(texts[doc_id])
        spans = []
        for start, end, label, entity_id in (row[:4] for row in rows[doc_id]):
            span = doc.char_span(start, end, label=label, alignment_mode="expand")
            if span is not None:
                span._.entity_id = entity_id
                spans.append(span)
        doc.spans["pii"] = spans
        doc._.doc_id = doc_id
        docs.append(doc)
    return docs


def tagged_rows(docs: List[Doc], probs: Dict[str, List[float]], other: Optional[Dict[str, List[float]]] = None) -> Dict[str, List[Row]]:
    """Span rows from the tagger's out-of-fold token probabilities: risk_seq's risk is the max
    of the span's token probabilities (partial match, ``stack_train.seq_risks``), or with
    ``other`` (a second tagger's, ``--mean-with``) the mean of the two (risk_vote's ``mean``).
    Each doc's rows are followed by the first tagger's own spans at every threshold of
    ``PROPOSE`` (risk_seq's ``proposed_spans``): new ones ``[start, end, label, None, risk,
    "proposed", threshold]`` and widened ones ``[..., "widened", threshold, old start, old end]``."""
    out = {}
    for doc in docs:
        taggers = [np.asarray(probs[doc._.doc_id])] + ([] if other is None else [np.asarray(other[doc._.doc_id])])
        spans = list(doc.spans["pii"])
        rows = [[s.start_char, s.end_char, s.label_, s._.entity_id, mean_risk(s, taggers)] for s in spans]
        for t in PROPOSE:
            new, widened = proposed_spans(doc, spans, taggers[0], t, "MISC")
            rows += [[s.start_char, s.end_char, s.label_, None, mean_risk(s, taggers), PROPOSED, t] for s in new]
            rows += [[s.start_char, s.end_char, s.label_, s._.entity_id, mean_risk(s, taggers), WIDENED, t, spans[i].start_char, spans[i].end_char]
                     for i, s in widened.items()]
        out[doc._.doc_id] = rows
    return out


def mean_risk(span, taggers: List[np.ndarray]) -> float:
    """The mean over taggers of risk_seq's span risk (one tagger: its risk)."""
    return sum(span_risk(span, p) for p in taggers) / len(taggers)


def with_proposals(rows: Dict[str, List[Row]], threshold: Optional[float]) -> Dict[str, List[Row]]:
    """Tagged rows with the tagger's own spans at ``threshold`` (None: the detector's spans only)."""
    return {d: with_own([r for r in rs if len(r) <= 5], [r for r in rs if len(r) > 5 and r[6] == threshold]) for d, rs in rows.items()}


def with_own(spans: List[Row], own: List[Row]) -> List[Row]:
    """Span rows with the tagger's own rows of one threshold: a widened row replaces the row it grew from."""
    replaced = {(r[7], r[8]) for r in own if r[5] == WIDENED}
    return [r for r in spans if (r[0], r[1]) not in replaced] + own


def policy_rules(settings: Dict[str, Any]) -> ProtectRules:
    """The protection rules of a policy, as risk_threshold builds them from these settings."""
    return ProtectRules(settings.get("protect", []), settings.get("protect_names", False), settings.get("protect_detectors"),
                        settings.get("protect_validated", False), settings.get("protect_date_cues"), settings.get("date_cue_window", 5),
                        settings.get("protect_code_shaped", False), settings.get("protect_numeric_dates", False),
                        settings.get("protect_special", False), settings.get("protect_ages", False))


NO_RULES = ProtectRules([])


class Masker:
    """The masked character spans of span rows as the pipeline writes them: the decider itself
    (``risk_threshold``, decide/threshold.py: risk >= threshold; a span a protection rule holds,
    a span of the person to protect or an unscored span is masked) on a Doc carrying the rows'
    spans, then the masker's plan (all mentions of a masked entity, propagation), via ``masking_plan``."""

    def __init__(self, texts: Dict[str, str], detected: Dict[str, List[Row]], persons: Optional[Dict[str, Any]] = None,
                 plan: Optional[PlanSettings] = None) -> None:
        self.nlp = spacy.blank("en")
        self.plan = plan or PlanSettings()
        self.texts = texts
        self.detected = detected  # the spans of every doc (rows of any fold carry the same ones)
        self.docs: Dict[Any, Doc] = {}
        self.persons = dict(persons or {})  # Doc._.protect per document (--with-protect-field)
        # (detector, validated) of each detected span, which out-of-fold rows do not carry
        self.found = {doc_id: {(r[0], r[1]): (r[5], r[6]) if len(r) >= DETECTED_ROW_LEN else ("", False) for r in doc_rows}
                      for doc_id, doc_rows in detected.items()}

    def decider(self, threshold: float, rules: ProtectRules) -> RiskThreshold:
        """risk_threshold deciding from the rows' risk with a policy's protection rules (the
        rules it builds from the same settings: ``policy_rules``)."""
        decider = RiskThreshold(self.nlp, "risk_threshold", ROW_RISK, threshold, "pii", "mask", protect=[], types_always_mask=None)
        decider.rules = rules
        return decider

    def doc(self, doc_id: str, doc_rows: List[Row]) -> Doc:
        """The doc's detected spans and the tagger's own spans among ``doc_rows`` (``with_proposals``),
        tokenized once per set of own spans (the same ones recur across a threshold grid)."""
        own = [r for r in doc_rows if len(r) > 5]
        key = (doc_id, tuple((r[0], r[1]) for r in own))
        if key not in self.docs:
            self.docs[key] = span_docs(self.nlp, self.texts, {doc_id: with_own(self.detected[doc_id], own)}, [doc_id])[0]
        return self.docs[key]

    def decide(self, doc_id: str, doc_rows: List[Row], decider: RiskThreshold, person: bool) -> Doc:
        """The doc of ``doc_rows`` with ``Span._.mask`` written by ``decider``: each span carries its
        row's risk, and the detector and validated flag of the span its row was found as (a
        widened row: the span it grew from); a span without a row or a risk is masked (fail closed)."""
        doc = self.doc(doc_id, doc_rows)
        found = self.found.get(doc_id, {})
        rows = {}
        for r in doc_rows:
            origin = (r[7], r[8]) if len(r) > 5 and r[5] == WIDENED else (r[0], r[1])
            rows[(r[0], r[1])] = (r[4], *found.get(origin, ("", False)))
        for span in doc.spans["pii"]:
            risk, detector, validated = rows.get((span.start_char, span.end_char), (None, "", False))
            span._.risk = {} if risk is None else {ROW_RISK: float(risk)}
            span._.risk_explain = {"detector": detector, **({VALIDATED: span.label_} if validated else {})}
        doc._.protect = self.persons.get(doc_id) if person else None
        return decider(doc)

    def decisions(self, doc_id: str, doc_rows: List[Row], threshold: float, rules: ProtectRules, person: bool) -> Dict[Any, bool]:
        """The decision of each span of the doc by its offsets."""
        doc = self.decide(doc_id, doc_rows, self.decider(threshold, rules), person)
        return {(s.start_char, s.end_char): bool(s._.mask) for s in doc.spans["pii"]}

    def decision(self, doc_id: str, row: Row, threshold: float, rules: ProtectRules, person: bool) -> bool:
        """The decision of one span row (its doc's other detected spans unscored)."""
        return self.decisions(doc_id, [row], threshold, rules, person).get((row[0], row[1]), True)

    def __call__(self, rows: Dict[str, List[Row]], threshold: float, rules: ProtectRules, person: bool = False) -> Dict[str, List[List[int]]]:
        """The tagger's own spans in ``rows`` (``with_proposals``) are spans of their doc too."""
        decider = self.decider(threshold, rules)
        return {doc_id: predicted_mask_offsets(self.decide(doc_id, doc_rows, decider, person), settings=self.plan)
                for doc_id, doc_rows in rows.items()}


def folds_of(ids: Sequence[str], k: int, seed: int) -> List[List[int]]:
    """Grouped folds, each corpus dealt in turn (``STRATA``)."""
    return document_folds(ids, k, seed, STRATA or None)


def scores(gold: Sequence[TabDocument], predictions: Dict[str, List[List[int]]], tokens: Tokens) -> Dict[str, float]:
    """TAB metrics pooled over ``gold``; with several corpora (``STRATA``) the threshold
    choices read ``F1`` as the mean of the corpora's F1 (each corpus counts the same, whatever
    its size) and the pooled F1 stays as ``F1_pooled``."""
    result = tab_scores(gold, predictions, tokens=tokens).as_dict()
    out = {k: round(float(result[k]), 4) for k in METRICS}
    corpora = sorted({STRATA[d.doc_id] for d in gold}) if STRATA else []
    if len(corpora) > 1:
        per = [tab_scores([d for d in gold if STRATA[d.doc_id] == c], predictions, tokens=tokens).as_dict() for c in corpora]
        out["F1_pooled"], out["F1"] = out["F1"], round(float(np.mean([float(r["F1"]) for r in per])), 4)
    return out


def by_corpus(gold: Sequence[TabDocument], rows: Dict[str, Dict[str, List[List[int]]]], tokens: Tokens) -> Dict[str, Dict[str, Dict[str, float]]]:
    """{corpus: {row name: its scores on that corpus' documents}}."""
    out: Dict[str, Dict[str, Dict[str, float]]] = {}
    for corpus in sorted(set(STRATA.values())):
        part = [d for d in gold if STRATA[d.doc_id] == corpus]
        out[corpus] = {name: scores(part, predictions, tokens) for name, predictions in rows.items()}
    return out


def choose_threshold(gold: Sequence[TabDocument], rows: Dict[str, List[Row]], rules: ProtectRules, tokens: Tokens, masked: Masker,
                     person: bool = False, grid: Sequence[float] = THRESHOLDS) -> float:
    """The threshold with the best F1 on out-of-fold rows; ties go to the lower (safer) one."""
    return best_threshold({t: scores(gold, masked(rows, t, rules, person), tokens) for t in grid}, "F1")


def stack_rows(texts: Dict[str, str], detected: Dict[str, List[Row]]) -> Dict[str, List[Any]]:
    """The detected spans as risk_stack's rows (entity key, detector, validated)."""
    return {d: [(r[0], r[1], r[2], r[3] or f"{r[2]}:{texts[d][r[0]:r[1]]}", r[5], bool(r[6])) for r in rs] for d, rs in detected.items()}


def seq_risks(detected: Dict[str, List[Row]], tagged: Dict[str, List[Row]]) -> Dict[str, List[float]]:
    """risk_seq's risk of each detected span from tagged rows (unscored: 1.0, fail closed)."""
    out = {}
    for doc_id, rows in tagged.items():
        risk = {(r[0], r[1]): r[4] for r in rows}
        out[doc_id] = [1.0 if risk.get((r[0], r[1])) is None else float(risk[(r[0], r[1])]) for r in detected[doc_id]]
    return out


def stacked(gold: Dict[str, TabDocument], srows: Dict[str, List[Any]], detected: Dict[str, List[Row]], train_risks: Dict[str, List[float]],
            train_ids: Sequence[str], test_risks: Dict[str, List[float]], test_ids: Sequence[str], seed: int,
            doc_features: bool = False, doc_weight: float = 0.0, doc_fence: Optional[float] = None) -> Dict[str, List[Row]]:
    """Span rows of ``test_ids`` with risk_stack's risk, fit on ``train_ids`` (their out-of-fold
    risk_seq risks; ``doc_features``: with risk.stack.DOC_FEATURES; ``doc_weight``: StackModel.fit's;
    ``doc_fence``: risk_stack's, a document beyond it gets risk 1.0 on every span)."""
    model = fit_stack(gold, srows, train_risks, train_ids, seed=seed, doc_features=doc_features, doc_weight=doc_weight)
    return {d: [[r[0], r[1], r[2], r[3], float(p)] for r, p in zip(detected[d], model.predict(gold[d].text, srows[d], [[x] for x in test_risks[d]], doc_fence))]
            for d in test_ids}


def crossfit_stack(gold: Dict[str, TabDocument], srows: Dict[str, List[Any]], detected: Dict[str, List[Row]], risks: Dict[str, List[float]],
                   train_ids: Sequence[str], folds: int, fold_seed: int, fit_seed: int, doc_features: bool = False,
                   doc_weight: float = 0.0, doc_fence: Optional[float] = None) -> Dict[str, List[Row]]:
    """risk_stack's rows of ``train_ids`` out of fold: each of ``folds`` parts stacked by a model
    fit on the other parts (what a stack threshold is chosen on)."""
    out: Dict[str, List[Row]] = {}
    for j, part in enumerate(folds_of(train_ids, folds, fold_seed)):
        part_ids = sorted(train_ids[i] for i in part)
        held = set(part_ids)
        out.update(stacked(gold, srows, detected, risks, [d for d in train_ids if d not in held], risks, part_ids, fit_seed + j, doc_features, doc_weight,
                           doc_fence))
    return out


def cross_val_probs(references: List[Doc], texts: Dict[str, str], rows: Dict[str, List[Row]], folds: int, seed: int,
                    tagger: Dict[str, Any], epochs: int, log: str, merge: bool = False, batch_size: int = 8) -> Dict[str, List[float]]:
    """Out-of-fold token MASK probabilities (of ``span_docs``' tokenization): each fold tagged
    by a risk_seq trained on the other folds."""
    blank = spacy.blank("en")
    ids = [ref._.doc_id for ref in references]
    out: Dict[str, List[float]] = {}
    for k, test in enumerate(folds_of(ids, folds, seed)):
        held = {ids[i] for i in test}
        train = [ref for ref in references if ref._.doc_id not in held]
        start = time.perf_counter()
        nlp = train_risk_seq(train, tagger, epochs, seed=seed + k, detected=rows, merge=merge, batch_size=batch_size)
        docs = span_docs(blank, texts, rows, sorted(held))
        out.update({doc._.doc_id: [round(float(x), 5) for x in p] for doc, p in zip(docs, nlp.get_pipe("risk_seq").tagger.predict(docs))})
        print(f"{log} fold {k}: {len(train)} views, {time.perf_counter() - start:.0f}s", flush=True)
    return out


def oof_path(cache: Path, family: str, merge: bool) -> Path:
    """Where the out-of-fold probabilities of a tagger family and labelling are kept, next to the detections."""
    suffix = "" if family == "cnn" and not merge else f"_{family}" + ("_merged" if merge else "")
    return cache.with_name(f"{cache.stem}_oof{suffix}.json")


UNION = "mask what any annotator masked"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, nargs="+", default=[shared_data_dir() / "tab" / "tab_dev.json"],
                        help="TAB JSON files; several (the biographies and the court cases) are one corpus each: folds deal each in turn, scores per corpus too")
    parser.add_argument("--pipeline", default="court", help="the pipeline whose detection stage (before its risk components) finds the spans")
    parser.add_argument("--family", default="cnn", choices=sorted(FAMILIES))
    parser.add_argument("--epochs", type=int, default=2, help="passes over the annotator views (~4 per case)")
    parser.add_argument("--width", type=int, default=64, help="CNN: 0 = the pretrained tok2vec, else a fresh one this wide")
    parser.add_argument("--depth", type=int, default=3, help="CNN: layers of a fresh tok2vec (receptive field +-depth tokens)")
    parser.add_argument("--window-size", type=int, default=1, help="CNN: words each layer sees on each side (fresh tok2vec)")
    parser.add_argument("--span-features", default="", help="CNN: comma-separated features of the detected spans (label,count,early,position)")
    parser.add_argument("--batch-size", type=int, default=8, help="documents (or views) per update")
    parser.add_argument("--window-batch", type=int, default=None, help="transformer: windows per optimizer step (the tagger's update_batch_size; default its batch_size, 8)")
    parser.add_argument("--merge-views", action="store_true",
                        help="train the tagger once per case on the share of annotators masking each token (an epoch is then a pass over the cases)")
    parser.add_argument("--mask-titles", action="store_true", help="the masker's mask_titles: a PERSON span takes in the title before it")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--inner-folds", type=int, default=3, help="inner CV on the training folds for the threshold")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=Path("corpus/tab_detected_court.json"))
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/tab_eval.json"))
    parser.add_argument("--stack", action="store_true",
                        help="also risk_stack over the risk_seq risks (court's decision): fit per fold on the inner out-of-fold risks")
    parser.add_argument("--min-quasi", type=float, default=0.9,
                        help="--stack: also choose risk_stack's threshold recall first (the highest whose inner R_quasi reaches this)")
    parser.add_argument("--mean-with", default=None, choices=sorted(FAMILIES),
                        help="a span's risk is the mean of this tagger's and this family's (risk_vote's mean rule; its out-of-fold probabilities from an earlier run with the same --cache and folds)")
    parser.add_argument("--propose", action="store_true",
                        help="also let the tagger add spans (risk_seq's propose_threshold), chosen with the threshold by inner CV under --propose-policy")
    parser.add_argument("--stack-policy", default=COURT_POLICY, choices=sorted(POLICIES),
                        help="--stack: the protection policy of risk_stack's decision (default's: the last of the list)")
    parser.add_argument("--propose-policy", default=COURT_POLICY, choices=sorted(POLICIES), help="--propose: the protection policy")
    parser.add_argument("--with-protect-field", default=None, metavar="FIELD",
                        help="also score every policy with Doc._.protect set from this record field (e.g. meta.applicant)")
    parser.add_argument("--doc-features", action="store_true", help="--stack: risk_stack with document features (length, span density, mean risk)")
    parser.add_argument("--doc-weight", type=float, default=0.0,
                        help="--stack: each span of a document with n spans weighs n ** -DOC_WEIGHT in risk_stack's fit (0: every span alike)")
    parser.add_argument("--doc-fence", type=float, default=None,
                        help="--stack: risk_stack's doc_fence (a document beyond the training documents' quartiles by this many IQRs is masked whole)")
    parser.add_argument("--stack-only", action="store_true", help="score risk_stack's rows only, not each protection policy of the tagger's risk")
    args = parser.parse_args()
    # policy name -> (protection rules, whether the person to protect is given)
    policies = {name: (policy_rules(settings), False) for name, settings in POLICIES.items()} if not args.stack_only else {}
    corpora = {data.stem: load_tab(data) for data in args.data}
    documents = [d for docs in corpora.values() for d in docs]
    if len(corpora) > 1:
        STRATA.update({d.doc_id: corpus for corpus, docs in corpora.items() for d in docs})
    persons: Dict[str, Any] = {}
    if args.with_protect_field:
        persons = {d.doc_id: protect_from_record(d.meta, args.with_protect_field) for d in documents}
        policies.update({f"{name}, Doc._.protect = {args.with_protect_field}": (policy_rules(settings), True) for name, settings in POLICIES.items()})

    blank = spacy.blank("en")
    references = sorted(tab_to_docs(documents, blank), key=lambda d: (d._.doc_id, d._.annotator or ""))
    gold = docs_to_tab(references)
    texts = {doc.doc_id: doc.text for doc in gold}
    doc_ids = sorted(texts)
    rows = detected_rows([texts[i] for i in doc_ids], doc_ids, args.cache, args.pipeline)
    features = [f for f in args.span_features.split(",") if f]
    tagger = cnn_tagger(args.width, args.depth, args.window_size, features) if args.family == "cnn" else dict(FAMILIES[args.family])
    if args.family == "transformer" and args.window_batch:
        tagger["update_batch_size"] = args.window_batch
    tokens = Tokens()
    masked = Masker(texts, rows, persons, PlanSettings(mask_titles=args.mask_titles))
    gold_masks = {d.doc_id: [[m.start, m.end] for ms in d.annotations.values() for m in ms] for d in gold}
    # what any annotator masked (NO_MASK mentions left): F1 1.0 where one annotator marked each document
    union_masks = {d.doc_id: [[m.start, m.end] for ms in d.annotations.values() for m in ms if m.needs_masking] for d in gold}
    results: Dict[str, Any] = {
        "data": [str(d) for d in args.data] if len(args.data) > 1 else str(args.data[0]), "detector": args.pipeline, "folds": args.folds, "inner_folds": args.inner_folds,
        "seed": args.seed, "tagger": tagger, "doc_features": args.doc_features, "doc_weight": args.doc_weight, "doc_fence": args.doc_fence, "mean_with": args.mean_with, "epochs": args.epochs, "merge_views": args.merge_views, "batch_size": args.batch_size, "protect_field": args.with_protect_field, "mask_titles": args.mask_titles,
        "rows": {"mask all annotated spans": scores(gold, gold_masks, tokens), UNION: scores(gold, union_masks, tokens),
                 f"{args.pipeline}: mask all detected": scores(gold, masked(rows, 0.0, NO_RULES), tokens)},
        "thresholds": {},
        "threshold_grid": THRESHOLDS,  # the thresholds the inner CV chooses from (and the fixed-threshold rows)
        "policies": POLICIES,  # each policy's protection settings (risk_threshold's config keys)
    }
    by_id = {doc_id: [ref for ref in references if ref._.doc_id == doc_id] for doc_id in doc_ids}
    start = time.perf_counter()
    # the cases' out-of-fold token probabilities, one file per tagger family and labelling
    path = oof_path(args.cache, args.family, args.merge_views)
    oof = json.loads(path.read_text()) if path.exists() else {}
    settings = json.dumps([tagger, args.epochs, args.folds, args.inner_folds, args.seed] + (["merge"] if args.merge_views else []) + ([args.batch_size] if args.batch_size != 8 else [])
                          + [{"probs": True}])
    if oof.get("settings") != settings:
        oof = {"settings": settings, "inner": {}}
    if "outer" not in oof:
        oof["outer"] = cross_val_probs(references, texts, rows, args.folds, args.seed, tagger, args.epochs, "outer", args.merge_views, args.batch_size)
        path.write_text(json.dumps(oof))
    other = None
    if args.mean_with:  # the other family's probabilities, from its own run of this script (same folds)
        other_path = oof_path(args.cache, args.mean_with, args.merge_views)
        other = json.loads(other_path.read_text()) if other_path.exists() else {}
        if "outer" not in other or len(other.get("inner", {})) < args.folds or json.loads(other["settings"])[2:5] != [args.folds, args.inner_folds, args.seed]:
            sys.exit(f"--mean-with {args.mean_with}: no complete out-of-fold probabilities with these folds in {other_path}; "
                     f"run this script with --family {args.mean_with} and the same --cache, --folds, --inner-folds and --seed first")
    docs_by_id = {d._.doc_id: d for d in span_docs(blank, texts, rows, doc_ids)}

    def tagged(probs: Dict[str, List[float]], others: Optional[Dict[str, List[float]]]) -> Dict[str, List[Row]]:
        return tagged_rows([docs_by_id[d] for d in sorted(probs)], probs, others)

    all_outer = tagged(oof["outer"], None if other is None else other["outer"])
    outer = with_proposals(all_outer, None)
    predictions: Dict[str, Dict[str, List[List[int]]]] = {policy: {} for policy in policies}
    gold_by_id = {d.doc_id: d for d in gold}
    srows = stack_rows(texts, rows)
    family = args.family + (f" + {args.mean_with} (mean)" if args.mean_with else "")
    stack_name = f"risk_stack over risk_seq {family} (grouped CV), {args.stack_policy}"
    recall_name = f"{stack_name}, threshold: highest with inner R_quasi >= {args.min_quasi}"
    stack_out: Dict[str, List[Row]] = {}
    stack_predictions: Dict[str, List[List[int]]] = {}
    recall_predictions: Dict[str, List[List[int]]] = {}
    propose_name = f"risk_seq {family} (grouped CV), {args.propose_policy}, + the tagger's spans (propose_threshold by inner CV)"
    propose_predictions: Dict[str, List[List[int]]] = {}
    for k, test in enumerate(folds_of(doc_ids, args.folds, args.seed)):
        held = {doc_ids[i] for i in test}
        train_refs = [ref for doc_id in doc_ids if doc_id not in held for ref in by_id[doc_id]]
        if str(k) not in oof["inner"]:
            oof["inner"][str(k)] = cross_val_probs(train_refs, texts, rows, args.inner_folds, args.seed + 100 + k, tagger, args.epochs, f"inner {k}", args.merge_views, args.batch_size)
            path.write_text(json.dumps(oof))
        all_inner = tagged(oof["inner"][str(k)], None if other is None else other["inner"][str(k)])
        inner = with_proposals(all_inner, None)
        inner_gold = [d for d in gold if d.doc_id not in held]
        if args.propose:  # the threshold and propose_threshold with the best inner F1 (ties: the lower, safer ones)
            rules = policy_rules(POLICIES[args.propose_policy])
            grid = {(t, a): scores(inner_gold, masked(with_proposals(all_inner, a), t, rules), tokens)["F1"]
                    for t in THRESHOLDS for a in [None] + PROPOSE}
            t, a = max(grid, key=lambda ta: (grid[ta], -ta[0], -(ta[1] or 2.0)))
            results["thresholds"].setdefault(propose_name, []).append([t, a])
            propose_predictions.update(masked(with_proposals({d: all_outer[d] for d in held}, a), t, rules))
        test_rows = {doc_id: outer[doc_id] for doc_id in held}
        for policy, (rules, person) in policies.items():
            threshold = choose_threshold(inner_gold, inner, rules, tokens, masked, person)
            results["thresholds"].setdefault(policy, []).append(threshold)
            predictions[policy].update(masked(test_rows, threshold, rules, person))
        if args.stack:  # fit on the training cases' inner out-of-fold risks; threshold by a 3-fold cross-fit within them
            train_ids = [d for d in doc_ids if d not in held]
            inner_risks = seq_risks(rows, inner)
            crossfit = crossfit_stack(gold_by_id, srows, rows, inner_risks, train_ids, args.inner_folds, args.seed + 200 + k, args.seed + 10 * k,
                                      args.doc_features, args.doc_weight, args.doc_fence)
            rules = policy_rules(POLICIES[args.stack_policy])
            grid_scores = {t: scores(inner_gold, masked(crossfit, t, rules), tokens) for t in STACK_THRESHOLDS}
            threshold = best_threshold(grid_scores, "F1")
            recall_threshold = recall_first_threshold(grid_scores, args.min_quasi)
            results["thresholds"].setdefault(stack_name, []).append(threshold)
            results["thresholds"].setdefault(recall_name, []).append(recall_threshold)
            test_stack = stacked(gold_by_id, srows, rows, inner_risks, train_ids, seq_risks(rows, test_rows), sorted(held), args.seed + k, args.doc_features, args.doc_weight,
                                 args.doc_fence)
            stack_out.update(test_stack)
            stack_predictions.update(masked(test_stack, threshold, rules))
            recall_predictions.update(masked(test_stack, recall_threshold, rules))
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=1))
    final = {"mask all annotated spans": gold_masks, UNION: union_masks, f"{args.pipeline}: mask all detected": masked(rows, 0.0, NO_RULES)}
    for policy in policies:
        final[f"risk_seq {family} (grouped CV), {policy}"] = predictions[policy]
    if args.propose:
        final[propose_name] = propose_predictions
    if args.stack:
        final.update({stack_name: stack_predictions, recall_name: recall_predictions})
    if STRATA:
        results["by_corpus"] = by_corpus(gold, final, tokens)
    if args.with_protect_field:
        results["rows"][f"{args.pipeline}: mask all detected, Doc._.protect = {args.with_protect_field}"] = scores(gold, masked(rows, 0.0, NO_RULES, True), tokens)
    for policy in policies:
        results["rows"][f"risk_seq {family} (grouped CV), {policy}"] = scores(gold, predictions[policy], tokens)
    if args.propose:
        results["rows"][propose_name] = scores(gold, propose_predictions, tokens)
        # the same out-of-fold rows at each propose_threshold, each fold at the threshold its inner CV chose without proposals
        rules = policy_rules(POLICIES[args.propose_policy])
        plain = results["thresholds"][args.propose_policy]
        results["propose_grid"] = PROPOSE
        results["propose_fixed"] = {
            str(a): scores(gold, {d: p for k, test in enumerate(folds_of(doc_ids, args.folds, args.seed))
                                  for d, p in masked(with_proposals({doc_ids[i]: all_outer[doc_ids[i]] for i in test}, a), plain[k], rules).items()}, tokens)
            for a in [None] + PROPOSE}
        # and at every fixed threshold (the shipped biography pipeline's is 0.1): not a CV choice
        results["propose_fixed_thresholds"] = {
            str(t): {str(a): scores(gold, masked(with_proposals(all_outer, a), t, rules), tokens) for a in [None] + PROPOSE} for t in THRESHOLDS}
    if args.stack:
        results["rows"][stack_name] = scores(gold, stack_predictions, tokens)
        results["rows"][recall_name] = scores(gold, recall_predictions, tokens)
        rules = policy_rules(POLICIES[args.stack_policy])
        results["stack_threshold_grid"] = STACK_THRESHOLDS
        results["stack_fixed_thresholds"] = {str(t): scores(gold, masked(stack_out, t, rules), tokens) for t in STACK_THRESHOLDS}
    # The same out-of-fold scores at fixed thresholds (not a CV result: the threshold is not chosen on training folds).
    results["fixed_thresholds"] = {
        policy: {str(t): scores(gold, masked(outer, t, rules, person), tokens) for t in THRESHOLDS} for policy, (rules, person) in policies.items()
    }
    # Without the masker's plan (the decided spans only, as benchmarks/quality/seq_eval.py scores).
    results["decided_spans_only"] = {
        policy: scores(gold, {d: [[r[0], r[1]] for r in rs if decided.get((r[0], r[1]), True)]
                              for d, rs in outer.items() for decided in [masked.decisions(d, rs, t, rules, person)]}, tokens)
        for (policy, (rules, person)), t in zip(policies.items(), [float(np.median(results["thresholds"][p])) for p in policies])
    }
    results["seconds"] = round(time.perf_counter() - start)
    args.output.write_text(json.dumps(results, indent=1))
    print(markdown(results))


def markdown(results: Dict[str, Any]) -> str:
    lines = ["| system | " + " | ".join(METRICS) + " |", "|" + "---|" * (1 + len(METRICS))]
    for name, row in results["rows"].items():
        lines.append(f"| {name} | " + " | ".join(f"{row[m]:.3f}" for m in METRICS) + " |")
    for corpus, rows in results.get("by_corpus", {}).items():
        lines += ["", f"{corpus}:", "| system | " + " | ".join(METRICS) + " |", "|" + "---|" * (1 + len(METRICS))]
        lines += [f"| {name} | " + " | ".join(f"{row[m]:.3f}" for m in METRICS) + " |" for name, row in rows.items()]
    lines.append("")
    lines.append("thresholds chosen by inner CV per fold: " + "; ".join(f"{p}: {t}" for p, t in results["thresholds"].items()))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
