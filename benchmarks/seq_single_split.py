"""Single train/test split check used while building risk_seq (not the CV benchmark):
train on the first 56 biographies of wiki_dev.json (file order), tag the last 14 with their
annotated spans. Usage: python benchmarks/seq_single_split.py cnn|trf EPOCHS"""
import random
import sys
import time

import spacy
from spacy.training import Example
from spacy.util import minibatch

from spacy_sanitize.corpus import read_tab

kind = sys.argv[1]
nlp = spacy.blank("en")
docs = read_tab("/work/shared/data/wiki/wiki_dev.json", nlp)
tagger = {"@misc": "spacy_sanitize.seq_cnn.v1"} if kind == "cnn" else {"@misc": "spacy_sanitize.seq_transformer.v1", "num_threads": 2}
nlp.add_pipe("risk_seq", config={"tagger": tagger})
exs = [Example(nlp.make_doc(d.text), d) for d in docs]
train, test = exs[:56], exs[56:]
t=time.time(); nlp.initialize(lambda: train); print("init", time.time()-t)
for ep in range(int(sys.argv[2])):
    random.shuffle(train); losses={}
    t=time.time()
    for b in minibatch(train, 8): nlp.update(b, losses=losses)
    print(ep, losses, round(time.time()-t,1), flush=True)
tdocs=[]
for eg in test:
    d = nlp.make_doc(eg.reference.text); d.spans["pii"] = [d.char_span(s.start_char, s.end_char, label=s.label_) for s in eg.reference.spans["pii"]]; d._.doc_id=eg.reference._.doc_id; tdocs.append(d)
t=time.time(); out=list(nlp.pipe(tdocs)); print("pred", time.time()-t)
from spacy_sanitize.corpus import docs_to_tab
from spacy_sanitize.evaluation import tab_scores

gold = docs_to_tab([eg.reference for eg in test])
for thr in (0.2,0.35,0.5):
  for agg, f in (("max",max),("min",min)):
    pred = {d._.doc_id: [[s.start_char,s.end_char] for s in d.spans["pii"] if f(d.spans["pii"] and s._.risk_explain["seq"]["token_probs"] or [1]) >= thr] for d in out}
    print(thr, agg, {k: round(v,3) for k,v in tab_scores(gold, pred).as_dict().items() if isinstance(v,float)})
