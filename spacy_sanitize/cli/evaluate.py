"""``spacy-sanitize evaluate``: the TAB metrics of a pipeline or a predictions file against gold TAB JSON."""
import argparse
import sys
from pathlib import Path
from typing import Any, Dict, List

import srsly
from tqdm import tqdm

from ..corpus.tab import load_tab, read_submission
from ..pipeline import load_pipeline
from ..run.pieces import sanitize_texts
from .options import add_verbose

def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..evaluation import Tokens, detection_scores, predicted_mask_offsets, tab_scores
    from ..evaluation.provenance import warn_if_in_sample
    from ..evaluation.report import check_prediction_ids, format_table, with_undefined

    gold = load_tab(args.gold, lenient=args.lenient)
    detections: Dict[str, List[List[Any]]] = {}
    if args.predictions:
        predictions = read_submission(args.predictions)
        check_prediction_ids(gold, predictions, args.predictions)
    else:
        nlp = load_pipeline(args.pipeline)
        texts = [document.text for document in gold]
        warn_if_in_sample(nlp.config, texts)
        predictions = {}
        # Advanced by hand: a tqdm wrapping the generator inside zip() stops one short (69/70).
        progress = tqdm(total=len(gold), desc="evaluating", disable=args.quiet, file=sys.stderr)
        for document, (_, docs, offsets) in zip(gold, sanitize_texts(nlp, texts)):
            predictions[document.doc_id] = [[s + o, e + o] for doc, o in zip(docs, offsets) for s, e in predicted_mask_offsets(doc)]
            detections[document.doc_id] = [
                [span.start_char + o, span.end_char + o, span.label_] for doc, o in zip(docs, offsets) for span in doc.spans.get("pii", [])
            ]
            progress.update(1)
        progress.close()
    tokens = Tokens()
    result: Dict[str, Any] = {"masking": tab_scores(gold, predictions, tokens=tokens, token_weighting=token_weighting(args.weighting)).as_dict()}
    result["masking"]["weighting"] = args.weighting
    if detections:
        result["detection"] = with_undefined(detection_scores(gold, detections, tokens=tokens).as_dict())
    print(format_table(result))
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(args.output, result)
    return 0


def token_weighting(name: str) -> Any:
    """The token weighting of P_w: ``uniform``, ``frequency`` (information content from word
    frequencies, no torch), ``mlm`` (the shipped domain masked LM) or a masked-LM name/path."""
    from ..evaluation import uniform_weighting

    if name == "uniform":
        return uniform_weighting
    from ..lm.weighting import lm_token_weighting

    if name == "frequency":
        from ..lm.frequency import make_frequency_scorer

        return lm_token_weighting(make_frequency_scorer())
    from ..lm.hf import make_hf_scorer

    return lm_token_weighting(make_hf_scorer(model=None if name == "mlm" else name))


def add_evaluate_subparser(sub: Any) -> None:
    evaluate = sub.add_parser("evaluate", help="TAB metrics of a pipeline or a predictions file against gold TAB JSON", description=(
        "Compute the TAB metrics (P, P_w, R_all, F1, R_ent, R_direct, R_quasi, per-type recall) of masked spans "
        "against gold TAB JSON, from a predictions file in TAB's submission format or by running a pipeline "
        "(which also reports token-level detection P/R/F1 per type). A ratio without support prints '-' (null in JSON); "
        "a warning says when the pipeline's shipped models were trained on the gold documents (in-sample figures)."))
    evaluate.add_argument("gold", help="gold TAB JSON file")
    source = evaluate.add_mutually_exclusive_group()
    source.add_argument("--predictions", help="TAB submission JSON: {doc_id: [[start, end], ...]}")
    source.add_argument("-p", "--pipeline", default="default", help="pipeline to run (default: default)")
    evaluate.add_argument("-o", "--output", help="write the scores as JSON here")
    evaluate.add_argument("--lenient", action="store_true", help="skip malformed gold mentions with a warning")
    evaluate.add_argument("--weighting", default="uniform", help="token weights of P_w: uniform (default), frequency, mlm (shipped masked LM, needs torch) or a masked-LM name/path")
    evaluate.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_verbose(evaluate)
    evaluate.set_defaults(func=cmd_evaluate)
