"""A tok2vec for ``risk_seq``'s CNN tagger that also sees the detector's spans.

What decides MASK/NO_MASK in court texts is often what the entity is and how it recurs,
not the +-depth words around it: the applicant's name comes early and often, "the
Government" often too but as an ORG, a judge once near the end. Each token gets, next to
the NORM/PREFIX/SUFFIX/SHAPE hash embeddings of ``spacy.HashEmbedCNN.v2``, embeddings of:

- ``label``: the detected span it is in, as a BILUO tag of its label (``B-PERSON``, ``O``);
- ``count``: how many mentions its entity has in the document (log2 buckets);
- ``early``: whether its entity is first mentioned in the first tenth of the text;
- ``position``: which tenth of the document the token is in (procedure, facts, law).

The spans are read from ``doc.spans[spans_key]`` at training and prediction alike, so the
tagger must be trained on documents carrying the detector's spans (``train_risk_seq``'s
``detected``), as the pipeline gives it. Nothing is learned here but the embeddings.
"""
from typing import Dict, List, Sequence

import numpy as np
from spacy.ml.models.tok2vec import MaxoutWindowEncoder, build_Tok2Vec_model
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import HashEmbed, Maxout, Model, chain, concatenate, list2ragged, ragged2list, with_array
from thinc.types import Floats2d, Ints2d

from ..doc_reads import doc_text
from ..spans import entity_key
from ..types import PII_TYPES

SPAN_FEATURES = ("label", "count", "early", "position")
TEXT_ATTRS = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
BILUO = "BILU"
EARLY_FRACTION = 0.1


def span_feature_array(doc: Doc, spans_key: str, features: Sequence[str] = SPAN_FEATURES) -> np.ndarray:
    """The ids of ``features`` per token of ``doc`` (one column each; 0 = outside any span)."""
    n = len(doc)
    columns: Dict[str, np.ndarray] = {name: np.zeros(n, dtype=np.uint64) for name in SPAN_FEATURES}
    spans = list(doc.spans.get(spans_key, [])) if spans_key in doc.spans else []
    counts: Dict[str, int] = {}
    first: Dict[str, int] = {}
    for span in spans:
        key = entity_key(span)
        counts[key] = counts.get(key, 0) + 1
        first[key] = min(first.get(key, span.start_char), span.start_char)
    early_until = EARLY_FRACTION * max(len(doc_text(doc)), 1)
    for span in spans:
        key = entity_key(span)
        label = PII_TYPES.index(span.label_) if span.label_ in PII_TYPES else len(PII_TYPES)
        for i in range(span.start, span.end):
            if span.end - span.start == 1:
                tag = BILUO.index("U")
            else:
                tag = BILUO.index("B") if i == span.start else BILUO.index("L") if i == span.end - 1 else BILUO.index("I")
            columns["label"][i] = 1 + 4 * label + tag
            columns["count"][i] = 1 + min(int(np.log2(counts[key])), 6)
            columns["early"][i] = 1 if first[key] < early_until else 2
    if n:
        columns["position"] = (np.arange(n, dtype=np.uint64) * 10) // n
    return np.stack([columns[name] for name in features], axis=1) if features else np.zeros((n, 0), dtype=np.uint64)


def span_features(spans_key: str, features: Sequence[str]) -> Model[List[Doc], List[Ints2d]]:
    """docs -> per-token feature ids (not trained: no gradient goes back)."""

    def forward(model: Model, docs: List[Doc], is_train: bool):
        out = [model.ops.asarray2i(span_feature_array(doc, spans_key, features), dtype="uint64") for doc in docs]
        return out, lambda d_out: []

    return Model("span_features", forward, attrs={"spans_key": spans_key, "features": list(features)})


@registry.architectures("spacy_sanitize.SpanFeatureTok2Vec.v1")
def span_feature_tok2vec(
    width: int = 64,
    depth: int = 3,
    embed_size: int = 2000,
    window_size: int = 1,
    maxout_pieces: int = 3,
    spans_key: str = "pii",
    features: Sequence[str] = SPAN_FEATURES,
    feature_width: int = 16,
) -> Model[List[Doc], List[Floats2d]]:
    """``spacy.HashEmbedCNN.v2`` (subword features, no vectors) plus embeddings of the
    detected spans' ``features`` (see the module docstring), mixed by one Maxout layer before
    ``depth`` window encoders of ``window_size`` (receptive field +-depth*window_size tokens)."""
    unknown = [f for f in features if f not in SPAN_FEATURES]
    if unknown:
        from ..errors import Errors

        raise ValueError(Errors.E520.format(features=unknown, known=", ".join(SPAN_FEATURES)))
    rows = [embed_size] + [embed_size // 2] * 3
    text = chain(
        _extract_text_attrs(),
        list2ragged(),
        with_array(concatenate(*[HashEmbed(width, rows[i], column=i, seed=8 + i, dropout=0.0) for i in range(len(TEXT_ATTRS))])),
    )
    layers = [text]
    if features:
        layers.append(
            chain(
                span_features(spans_key, features),
                list2ragged(),
                with_array(concatenate(*[HashEmbed(feature_width, 64, column=i, seed=20 + i, dropout=0.0) for i in range(len(features))])),
            )
        )
    embed = chain(
        concatenate(*layers) if len(layers) > 1 else layers[0],
        with_array(Maxout(width, width * len(TEXT_ATTRS) + feature_width * len(features), nP=3, dropout=0.0, normalize=True)),
        ragged2list(),
    )
    return build_Tok2Vec_model(embed, MaxoutWindowEncoder(width, window_size, maxout_pieces, depth))


def _extract_text_attrs() -> Model[List[Doc], List[Ints2d]]:
    from spacy.ml.featureextractor import FeatureExtractor

    return FeatureExtractor(TEXT_ATTRS)
