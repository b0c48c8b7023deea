import math

import pytest

from spacy_sanitize.lm import FrequencyScorer, HFMaskedLMScorer, SpanQuery, lm_token_weighting
from spacy_sanitize.lm.frequency import count_words, write_counts

from .lm_fixtures import build_tiny_bert, direct_logprobs

torch = pytest.importorskip("torch")

TEXTS = [
    "John Smith was born in Paris in March 1987. Smith studied law at the university in London.",
    "Mary Jones played football for the club in Oslo.",
    "The applicant was born in 1988 and married Mary. The court judge died.",
]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


def queries_for(text):
    out = []
    for word in ("John Smith", "Smith", "Paris", "1987", "1988", "Mary Jones", "Oslo", "Mary", "court"):
        i = text.find(word)
        if i >= 0:
            out.append(SpanQuery(i, i + len(word)))
    return out


def test_matches_direct_computation(tiny_bert):
    scorer = HFMaskedLMScorer(tiny_bert, window=128, batch_size=4)
    queries = [queries_for(t) for t in TEXTS]
    results = scorer.score(TEXTS, queries)
    n = 0
    for text, qs, rs in zip(TEXTS, queries, results):
        for q, r in zip(qs, rs):
            assert r.error is None
            assert r.logprobs == pytest.approx(direct_logprobs(tiny_bert, text, (q.start, q.end)), abs=1e-4)
            n += 1
    assert n >= 10
    # "1988" is split into subwords: one log-prob each
    r1988 = results[0][[t.start for t in queries[0]].index(TEXTS[0].find("1987"))]
    assert r1988.n_subwords > 1 and r1988.n_words == 1


def test_batched_equals_unbatched(tiny_bert):
    queries = [queries_for(t) for t in TEXTS]
    one = HFMaskedLMScorer(tiny_bert, batch_size=1)
    many = HFMaskedLMScorer(tiny_bert, batch_size=64)
    a = one.score(TEXTS, queries)
    b = many.score(TEXTS, queries)
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            assert x.logprobs == pytest.approx(y.logprobs, abs=1e-5)
    assert many.stats["forward_passes"] == 1
    assert one.stats["forward_passes"] == one.stats["rows"] > 1


def test_window_equals_full_text_when_it_fits(tiny_bert):
    text = TEXTS[0]
    n_tokens = len(HFMaskedLMScorer(tiny_bert).tokenize(text)[0])
    exact = HFMaskedLMScorer(tiny_bert, window=n_tokens + 2)
    large = HFMaskedLMScorer(tiny_bert, window=128)
    qs = queries_for(text)
    for x, y in zip(exact.score([text], [qs])[0], large.score([text], [qs])[0]):
        assert x.logprobs == pytest.approx(y.logprobs, abs=1e-5)


def test_long_text_uses_centred_window(tiny_bert):
    text = " ".join(TEXTS * 4)
    scorer = HFMaskedLMScorer(tiny_bert, window=24)
    ids, offsets = scorer.tokenize(text)
    assert len(ids) > 22
    start = text.rfind("Oslo")
    result = scorer.score([text], [[SpanQuery(start, start + 4)]])[0][0]
    own = scorer.positions(offsets, start, start + 4)
    w_start, w_end = scorer.window_for(len(ids), own[0], own[-1])
    assert w_end - w_start == 22 and w_start <= own[0] and own[-1] < w_end
    # the span is centred unless the window hits the end of the text
    assert w_end == len(ids) or abs((own[0] - w_start) - (w_end - 1 - own[-1])) <= 1
    window_text = text[offsets[w_start][0] : offsets[w_end - 1][1]]
    expected = direct_logprobs(tiny_bert, window_text, (start - offsets[w_start][0], start - offsets[w_start][0] + 4))
    assert result.logprobs == pytest.approx(expected, abs=1e-4)


def test_coreferent_mentions_masked_together(tiny_bert):
    text = TEXTS[0]
    first = (text.find("Smith"), text.find("Smith") + 5)
    second = (text.rfind("Smith"), text.rfind("Smith") + 5)
    scorer = HFMaskedLMScorer(tiny_bert)
    plain, coref, coref2 = scorer.score(
        [text] * 3, [[SpanQuery(*first)], [SpanQuery(*first, also_mask=(second,))], [SpanQuery(*second, also_mask=(first,))]]
    )
    assert coref[0].logprobs == pytest.approx(direct_logprobs(tiny_bert, text, first, also=(second,)), abs=1e-4)
    assert plain[0].logprobs == pytest.approx(direct_logprobs(tiny_bert, text, first), abs=1e-4)
    assert coref[0].logprobs != pytest.approx(plain[0].logprobs, abs=1e-6)
    # both mentions masked together are one row: one window serves both
    assert scorer.stats["rows"] == 2
    assert coref2[0].logprobs == pytest.approx(direct_logprobs(tiny_bert, text, second, also=(first,)), abs=1e-4)


def test_disk_cache_and_errors(tiny_bert, tmp_path):
    qs = [queries_for(TEXTS[1]) + [SpanQuery(3, 3), SpanQuery(0, 10_000), SpanQuery(4, 5)]]
    first = HFMaskedLMScorer(tiny_bert, cache_dir=str(tmp_path))
    a = first.score(TEXTS[1:2], qs)[0]
    second = HFMaskedLMScorer(tiny_bert, cache_dir=str(tmp_path))
    b = second.score(TEXTS[1:2], qs)[0]
    assert second.stats["rows"] == 0 and second.stats["cached_rows"] == first.stats["rows"] > 0
    assert [r.logprobs for r in a] == [r.logprobs for r in b]
    assert a[-3].error.startswith("[E403]") and a[-2].error.startswith("[E403]")
    assert a[-1].error.startswith("[E401]")  # the space between "Mary" and "Jones"


def test_missing_model_is_a_coded_error(tmp_path):
    with pytest.raises(OSError, match="E400"):
        HFMaskedLMScorer(str(tmp_path / "nothing")).score(["x"], [[SpanQuery(0, 1)]])


@pytest.fixture()
def counts_file(tmp_path):
    path = tmp_path / "counts.msgpack"
    write_counts(count_words(["the court held that the applicant was born"] * 5), path, min_count=3)
    return str(path)


def test_frequency_scorer(counts_file):
    scorer = FrequencyScorer(counts=counts_file)
    text = "The applicant Zyxwv Qwertz was born in Paris. Zyxwv later met the court."
    zs = [i for i in range(len(text)) if text.startswith("Zyxwv", i)]
    name = SpanQuery(zs[0], zs[0] + 12)
    common = SpanQuery(text.find("court"), text.find("court") + 5)
    alone = SpanQuery(zs[0], zs[0] + 12, also_mask=((zs[1], zs[1] + 5),))
    r_name, r_common, r_alone = scorer.score([text], [[name, common, alone]])[0]
    assert r_name.n_words == 2 and r_name.n_subwords == 2
    assert r_common.logprobs[0] > max(r_name.logprobs)
    # the second mention is context for the first ("Zyxwv" repeats); masked together it is not
    assert r_name.logprobs[0] > r_alone.logprobs[0]
    assert r_alone.logprobs[0] == pytest.approx(math.log(1e-8))
    # weights are the mixture's: with only wordfreq, domain counts are not read
    only_general = FrequencyScorer(1.0, 0.0, 0.0, counts="/does/not/exist")
    assert only_general.score([text], [[common]])[0][0].logprobs[0] < 0


def test_lm_token_weighting(counts_file):
    weighting = lm_token_weighting(FrequencyScorer(counts=counts_file))
    text = "the court met Zyxwv"
    weights = weighting(text, [(0, 3), (14, 19)])
    assert len(weights) == 2 and weights[1] > weights[0] > 0


def test_int8_checkpoint_round_trip(tiny_bert, tmp_path):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from spacy_sanitize.lm.quantized import INT8_WEIGHTS, save_int8

    model = AutoModelForMaskedLM.from_pretrained(tiny_bert)
    save_int8(model, AutoTokenizer.from_pretrained(tiny_bert), tmp_path / "q")
    assert (tmp_path / "q" / INT8_WEIGHTS).exists()
    qs = [queries_for(TEXTS[0])]
    full = HFMaskedLMScorer(tiny_bert).score(TEXTS[:1], qs)[0]
    quant = HFMaskedLMScorer(str(tmp_path / "q")).score(TEXTS[:1], qs)[0]
    for a, b in zip(full, quant):
        assert a.logprobs == pytest.approx(b.logprobs, abs=0.05)
    loaded = HFMaskedLMScorer(str(tmp_path / "q")).model
    assert loaded.cls.predictions.decoder.weight.data_ptr() == loaded.bert.embeddings.word_embeddings.weight.data_ptr()
