"""Span log-probs from any Hugging Face masked LM (``bert-large-cased`` in seed 000).

For each span all of its subwords are replaced by the mask token (with ``coref``
queries, the subwords of the co-referent mentions too) and the model reads the rest of
the document as context. Documents longer than the window are read through a window
centred on the span, so every span gets as much context on both sides as fits; there are
no fixed cuts. Rows (window + masked positions) are deduplicated, so mentions of one
entity masked together and identical texts share one row, then sorted by length and run
``batch_size`` rows per forward pass. Results can be kept in an SQLite disk cache keyed by
the model name, the window's token ids and the masked positions.
"""
import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ..registry import misc
from .base import SpanLogProbs, SpanQuery
from .loader import load_pretrained, position_limit, resolve_model, warn_num_threads  # noqa: F401 (re-exported)
from .windows import centred_window
from ..errors import Errors
from ..shipped import SHIPPED_MLM, current_name

WORD = re.compile(r"\w+")
Row = Tuple[int, int, Tuple[int, ...]]  # window start, window end (token indices), masked token indices



class DiskCache:
    """model + window content -> log-probs of the masked positions, in one SQLite file."""

    def __init__(self, path: Union[str, Path]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path))
        self._db.execute("CREATE TABLE IF NOT EXISTS lp (key TEXT PRIMARY KEY, value TEXT)")

    def get(self, key: str) -> Optional[List[float]]:
        row = self._db.execute("SELECT value FROM lp WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, items: Dict[str, List[float]]) -> None:
        self._db.executemany("INSERT OR REPLACE INTO lp VALUES (?, ?)", [(k, json.dumps(v)) for k, v in items.items()])
        self._db.commit()

    def close(self) -> None:
        self._db.close()


class HFMaskedLMScorer:
    """model (Optional[str]): Hugging Face model name or local directory of a masked LM with a
        fast tokenizer; None (or ``minilm_mlm``): the shipped domain MiniLM MLM under ``data``.
    window (int): tokens per window, special tokens included (at most the model's maximum).
    batch_size (int): rows per forward pass.
    device (str): torch device.
    num_threads (int): not applied (W400): a script sets torch's threads itself.
    cache_dir (Optional[str]): directory of the SQLite disk cache (None: no disk cache).
    data (Optional[str]): the shipped artefacts' folder (``${paths.sanitize_data}`` in configs;
        None: the package's data folder), read for the shipped MLM only.
    """

    def __init__(
        self,
        model: Optional[str] = None,
        window: int = 512,
        batch_size: int = 16,
        device: str = "cpu",
        num_threads: int = 0,
        cache_dir: Optional[str] = None,
        data: Optional[str] = None,
    ) -> None:
        self.model_name = SHIPPED_MLM if model is None else current_name(str(model))
        self.data = data
        if self.model_name == SHIPPED_MLM:
            # Checked (not loaded) now: a missing shipped MLM fails when the pipeline is
            # built, not as fail-closed risk 1.0 on every span at the first document.
            resolve_model(self.model_name, data)
        self.name = f"hf:{self.model_name}"
        self.window = int(window)
        self.batch_size = max(1, int(batch_size))
        self.device = device
        self.num_threads = int(num_threads)
        warn_num_threads(self.num_threads)
        self.cache_dir = cache_dir
        self._tokenizer: Any = None
        self._model: Any = None
        self._cache: Optional[DiskCache] = None
        self.stats = {"rows": 0, "forward_passes": 0, "cached_rows": 0, "tokens": 0}

    # loading -----------------------------------------------------------------------------------
    def load(self) -> None:
        if self._model is not None:
            return
        try:
            tokenizer, model = load_pretrained(resolve_model(self.model_name, self.data), "masked_lm", device=self.device)
        except Exception as err:  # any loading problem: missing files, no internet, bad config
            raise OSError(Errors.E400.format(model=self.model_name, err=err)) from err
        if not getattr(tokenizer, "is_fast", False):
            raise OSError(Errors.E404.format(model=self.model_name))
        self.window = min(self.window, position_limit(model, self.window))
        self._tokenizer, self._model = tokenizer, model
        if self.cache_dir:
            self._cache = DiskCache(Path(self.cache_dir) / "lm_logprobs.sqlite")

    @property
    def tokenizer(self) -> Any:
        self.load()
        return self._tokenizer

    @property
    def model(self) -> Any:
        self.load()
        return self._model

    # scoring -----------------------------------------------------------------------------------
    def tokenize(self, text: str) -> Tuple[List[int], List[Tuple[int, int]]]:
        enc = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        return list(enc["input_ids"]), [tuple(o) for o in enc["offset_mapping"]]

    @staticmethod
    def positions(offsets: Sequence[Tuple[int, int]], start: int, end: int) -> List[int]:
        """Token indices whose characters overlap [start, end)."""
        return [i for i, (s, e) in enumerate(offsets) if e > s and s < end and e > start]

    def window_for(self, n_tokens: int, first: int, last: int) -> Tuple[int, int]:
        """The window of at most ``window - 2`` tokens centred on tokens [first, last]."""
        return centred_window(n_tokens, first, last, self.window - 2)

    def plan(self, text: str, queries: Sequence[SpanQuery]) -> Tuple[List[int], List[Optional[Row]], List[List[int]], List[SpanLogProbs]]:
        """Tokenize once and give, per query, its row, its own subword positions and a
        result to fill (already carrying the error when the span cannot be scored)."""
        ids, offsets = self.tokenize(text)
        rows: List[Optional[Row]] = []
        owns: List[List[int]] = []
        results: List[SpanLogProbs] = []
        for q in queries:
            result = SpanLogProbs(n_words=len(WORD.findall(text[q.start : q.end])))
            results.append(result)
            rows.append(None)
            own = self.positions(offsets, q.start, q.end) if 0 <= q.start < q.end <= len(text) else []
            owns.append(own)
            if not 0 <= q.start < q.end <= len(text):
                result.error = Errors.E403.format(start=q.start, end=q.end, length=len(text))
            elif not own:
                result.error = Errors.E401.format(start=q.start, end=q.end)
            elif len(own) > self.window - 2:
                result.error = Errors.E402.format(start=q.start, end=q.end, n=len(own), window=self.window)
            else:
                w_start, w_end = self.window_for(len(ids), own[0], own[-1])
                masked = set(own)
                for s, e in q.also_mask:
                    masked.update(i for i in self.positions(offsets, s, e) if w_start <= i < w_end)
                rows[-1] = (w_start, w_end, tuple(sorted(masked)))
        return ids, rows, owns, results

    def _row_key(self, ids: Sequence[int], row: Row) -> str:
        w_start, w_end, masked = row
        payload = json.dumps([self.model_name, list(ids[w_start:w_end]), [m - w_start for m in masked]])
        return hashlib.sha256(payload.encode("utf8")).hexdigest()

    def score(self, texts: Sequence[str], queries: Sequence[Sequence[SpanQuery]]) -> List[List[SpanLogProbs]]:
        """See :class:`SpanScorer`. Many spans of many documents share each forward pass."""
        plans = [self.plan(text, qs) for text, qs in zip(texts, queries)]
        unique: Dict[str, Tuple[List[int], Row]] = {}
        for ids, rows, _, _ in plans:
            for row in rows:
                if row is not None:
                    unique.setdefault(self._row_key(ids, row), (ids, row))
        computed: Dict[str, List[float]] = {}
        todo = []
        for key, item in unique.items():
            cached = self._cache.get(key) if self._cache else None
            if cached is not None:
                computed[key] = cached
                self.stats["cached_rows"] += 1
            else:
                todo.append((key, item))
        new = self._run(todo)
        computed.update(new)
        if self._cache and new:
            self._cache.put(new)
        out: List[List[SpanLogProbs]] = []
        for ids, rows, owns, results in plans:
            for row, own, result in zip(rows, owns, results):
                if row is not None:
                    lps = dict(zip(row[2], computed[self._row_key(ids, row)]))
                    result.logprobs = [lps[i] for i in own]
            out.append(results)
        return out

    def _run(self, todo: List[Tuple[str, Tuple[List[int], Row]]]) -> Dict[str, List[float]]:
        import torch

        if not todo:
            return {}
        tok, model = self.tokenizer, self.model
        cls_id, sep_id, mask_id = tok.cls_token_id, tok.sep_token_id, tok.mask_token_id
        pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
        if cls_id is None:
            cls_id = tok.bos_token_id
        if sep_id is None:
            sep_id = tok.eos_token_id
        todo = sorted(todo, key=lambda item: item[1][1][1] - item[1][1][0])
        out: Dict[str, List[float]] = {}
        for b in range(0, len(todo), self.batch_size):
            batch = todo[b : b + self.batch_size]
            length = max(row[1] - row[0] for _, (_, row) in batch) + 2
            input_ids = torch.full((len(batch), length), pad_id, dtype=torch.long)
            attention = torch.zeros((len(batch), length), dtype=torch.long)
            where_b, where_t, targets = [], [], []
            for r, (_, (ids, (w_start, w_end, masked))) in enumerate(batch):
                seq = [cls_id] + list(ids[w_start:w_end]) + [sep_id]
                input_ids[r, : len(seq)] = torch.tensor(seq)
                attention[r, : len(seq)] = 1
                for m in masked:
                    input_ids[r, m - w_start + 1] = mask_id
                    where_b.append(r)
                    where_t.append(m - w_start + 1)
                    targets.append(ids[m])
            with torch.inference_mode():
                logits = self._masked_logits(model, input_ids.to(self.device), attention.to(self.device), where_b, where_t)
                logp = torch.log_softmax(logits.float(), dim=-1)
                picked = logp[torch.arange(len(targets)), torch.tensor(targets, device=logp.device)].tolist()
            self.stats["forward_passes"] += 1
            self.stats["rows"] += len(batch)
            self.stats["tokens"] += int(attention.sum())
            cursor = 0
            for key, (_, (_, _, masked)) in batch:
                out[key] = picked[cursor : cursor + len(masked)]
                cursor += len(masked)
        return out

    @staticmethod
    def _masked_logits(model: Any, input_ids: Any, attention: Any, where_b: List[int], where_t: List[int]) -> Any:
        """Vocabulary logits at the masked positions only: BERT- and RoBERTa-style heads are
        applied to the gathered hidden states, which saves batch x length x vocab memory."""
        head = getattr(model, "cls", None)
        if head is None:
            head = getattr(model, "lm_head", None)
        base = getattr(model, model.base_model_prefix, None)
        if head is not None and base is not None:
            hidden = base(input_ids=input_ids, attention_mask=attention)[0]
            return head(hidden[where_b, where_t])
        logits = model(input_ids=input_ids, attention_mask=attention).logits
        return logits[where_b, where_t]


@misc("spacy_sanitize.lm.hf.v1")
def make_hf_scorer(
    model: Optional[str] = None,
    window: int = 512,
    batch_size: int = 16,
    device: str = "cpu",
    num_threads: int = 0,
    cache_dir: Optional[str] = None,
    data: Optional[str] = None,
) -> HFMaskedLMScorer:
    """A Hugging Face masked-LM scorer (loaded on first use); model None: the shipped domain
    MiniLM MLM under ``data`` (``${paths.sanitize_data}`` in the shipped configs)."""
    return HFMaskedLMScorer(model, window, batch_size, device, num_threads, cache_dir, data)
