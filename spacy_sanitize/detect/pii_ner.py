"""pii_ner: a trainable recognizer for the 8 PII types (seed 000, "Privacy-oriented Entity
Recognizer"), trained on a silver corpus labelled by the generic NER + CODE rules +
gazetteers.

It is spaCy's transition-based entity recognizer, trained on reference ``doc.ents`` that
carry PII labels, but it writes its predictions to ``doc.spans[spans_key]`` (merged with
what is there by the longest-span rule) and leaves ``doc.ents`` as it found them, so it can
run next to a generic NER in the same pipeline.
"""
from typing import Any, Callable, Dict, Iterable, List, Optional

from spacy.language import Language
from spacy.pipeline.ner import DEFAULT_NER_MODEL, EntityRecognizer
from spacy.scorer import Scorer
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry
from thinc.api import Config, Model

from ..errors import Errors
from ..extensions import register_extensions
from ..models import one_blas_thread, use_numpy_gemm
from ..shipped import artefact_path
from ..spans import add_pii_spans, is_list_number, name_detector


def score_pii_spans(examples: Iterable[Example], spans_key: str = "pii", **kwargs: Any) -> Dict[str, Any]:
    """Span P/R/F per type of ``doc.spans[spans_key]`` (reference: its spans, else its ents)."""

    def getter(doc: Doc, attr: str) -> List[Span]:
        return list(doc.spans[spans_key]) if spans_key in doc.spans else list(doc.ents)

    return Scorer.score_spans(examples, "pii", getter=getter, has_annotation=lambda doc: True, **kwargs)


@registry.scorers("spacy_sanitize.pii_span_scorer.v1")
def make_pii_span_scorer() -> Callable[..., Dict[str, Any]]:
    return score_pii_spans


class PIIEntityRecognizer(EntityRecognizer):
    """EntityRecognizer that predicts PII types into a span group."""

    def __init__(self, vocab: Any, model: Model, name: str, *, spans_key: str, use_blis: bool = True, **kwargs: Any) -> None:
        super().__init__(vocab, model, name, **kwargs)
        self.spans_key = spans_key
        if not use_blis:
            use_numpy_gemm(self.model)

    def predict(self, docs: Iterable[Doc]) -> Any:
        """Predict on copies without ``doc.ents``: entities preset by a generic NER would
        constrain the transition system, and ``predict`` must leave the docs untouched."""
        copies = [_without_ents(doc) if _has_ents(doc) else doc for doc in docs]
        with one_blas_thread():
            return super().predict(copies)

    def set_annotations(self, docs: Iterable[Doc], states_or_beams: Any) -> None:
        docs = list(docs)
        # The parser writes its entities to doc.ents: let it write to scratch copies and move
        # the predictions into the span group, so doc.ents stays as the generic NER left it.
        # A doc without entities (no generic NER before: the fast pipeline) is its own scratch
        # copy: its entities are read and reset to "missing", as the tokenizer left them
        # (a Doc.copy per doc copies every span extension value).
        scratch = [_without_ents(doc) if _has_ents(doc) else doc for doc in docs]
        super().set_annotations(scratch, states_or_beams)
        for doc, predicted in zip(docs, scratch):
            spans = [
                Span(doc, ent.start, ent.end, label=ent.label_)
                for ent in predicted.ents
                if not is_list_number(doc, ent.start, ent.end)
            ]
            if predicted is doc:
                doc.set_ents([], default="missing")
            for span in spans:
                name_detector(span, self.name)
            add_pii_spans(doc, spans, self.spans_key)

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Example]]] = None,
        *,
        nlp: Optional[Language] = None,
        labels: Optional[Any] = None,
        shipped: Optional[str] = None,
        data: Optional[str] = None,
    ) -> None:
        """Initialize for training (spaCy's), or with ``shipped`` load the trained weights of
        the ``pii_ner`` component of the pipeline directory ``shipped`` under ``data`` (None:
        the package's data folder): shipped configs hold the model architecture and
        ``[initialize.components.pii_ner] shipped = "pii_ner"``, so spaCy can build them."""
        if shipped is None:
            super().initialize(get_examples, nlp=nlp, labels=labels)  # type: ignore[arg-type]
            return
        folder = artefact_path(shipped, data, component=self.name)
        pipeline_config = Config().from_disk(folder / "config.cfg", interpolate=False)
        names = [n for n, c in pipeline_config["components"].items() if c.get("factory") == "pii_ner"]
        if not names:
            raise OSError(Errors.E019.format(folder=folder, component=self.name))
        try:
            self.from_disk(folder / names[0], exclude=["vocab"])
        except ValueError as err:
            raise ValueError(
                Errors.E020.format(path=folder / names[0], component=self.name, config=folder / "config.cfg", err=err)
            ) from None

    def score(self, examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
        """The configured scorer on ``doc.spans[spans_key]`` (the base class would only pass
        settings it finds in ``self.cfg``, and ``spans_key`` is not there)."""
        return super().score(examples, **{"spans_key": self.spans_key, **kwargs})


def _has_ents(doc: Doc) -> bool:
    """Whether any token of ``doc`` has an entity annotation (IOB tag set, "O" included)."""
    return doc.has_annotation("ENT_IOB")


def _without_ents(doc: Doc) -> Doc:
    copy = doc.copy()
    copy.set_ents([], default="missing")
    return copy


@Language.factory(
    "pii_ner",
    assigns=["doc.spans", "span._.risk_explain"],
    default_config={
        "model": DEFAULT_NER_MODEL,
        "moves": None,
        "update_with_oracle_cut_size": 100,
        "incorrect_spans_key": None,
        "spans_key": "pii",
        "use_blis": False,
        "scorer": {"@scorers": "spacy_sanitize.pii_span_scorer.v1"},
    },
    default_score_weights={"pii_f": 1.0, "pii_p": 0.0, "pii_r": 0.0, "pii_per_type": None},
)
def make_pii_ner(
    nlp: Language,
    name: str,
    model: Model,
    moves: Optional[Any],
    update_with_oracle_cut_size: int,
    incorrect_spans_key: Optional[str],
    spans_key: str,
    use_blis: bool,
    scorer: Optional[Callable],
) -> PIIEntityRecognizer:
    """model (Model): spaCy's transition-based NER model (tok2vec + parser head).
    spans_key (str): span group the predictions are merged into.
    use_blis (bool): thinc's BLIS matrix products (spaCy's default); False: numpy's BLAS (see
        ``use_numpy_gemm``), the same predictions up to float rounding."""
    register_extensions()
    return PIIEntityRecognizer(
        nlp.vocab,
        model,
        name,
        moves=moves,
        update_with_oracle_cut_size=update_with_oracle_cut_size,
        incorrect_spans_key=incorrect_spans_key,
        scorer=scorer,
        spans_key=spans_key,
        use_blis=use_blis,
    )
