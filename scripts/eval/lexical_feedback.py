#!/usr/bin/env python3
"""Two classic lexical levers tried on SciFact train, per half of the claims:
term proximity (query-bigram matches within a window, re-scoring the fused
top 50) and RM3 pseudo-relevance feedback on BM25 over whole abstracts.

    beir_hybrid <dataset> train <work> --grid --dump /tmp/dump.jsonl
    python scripts/eval/lexical_feedback.py /tmp/dump.jsonl <dataset>    # needs nltk (Porter)

Halves as in beir_hybrid: alternate claims in file order (A even, B odd).
Fusion as the store's default: z-scores, lexical weight 0.45, document level.
"""
import json
import math
import re
import sys
from collections import Counter, defaultdict

from nltk.stem.porter import PorterStemmer

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from fuse_dump import collapse, load_qrels, ndcg, zscore  # noqa: E402

STOP = set(
    "a an and are as at be by for from has have in is it its of on or that the to was were will "
    "with this these those which not no than then there their they been being into can may might "
    "also but such".split()
)
WORD = re.compile(r"[a-z0-9]+")
stemmer, stems = PorterStemmer(), {}


def toks(text):
    out = []
    for w in WORD.findall(text.lower()):
        s = stems.get(w)
        if s is None:
            s = stems[w] = stemmer.stem(w)
        out.append(s)
    return out


def rank(scores):
    return sorted(scores, key=lambda d: (-scores[d], d))


def fuse(lex, den, wl=0.45):
    (zl, fl), (zd, fd) = zscore(lex), zscore(den)
    return {d: wl * zl.get(d, fl) + (1 - wl) * zd.get(d, fd) for d in set(zl) | set(zd)}


def main():
    runs = [json.loads(line) for line in open(sys.argv[1])]
    data = sys.argv[2]
    qrels = load_qrels(f"{data}/qrels/train.tsv")
    queries = {q["_id"]: q["text"] for q in map(json.loads, open(f"{data}/queries_train.jsonl"))}
    corpus = {d["_id"]: (d["title"], d["text"]) for d in map(json.loads, open(f"{data}/corpus.jsonl"))}

    def halves(ranked):
        out = []
        for parity in (0, 1):
            rs = [r for i, r in enumerate(runs) if i % 2 == parity]
            out.append(sum(ndcg(ranked(r), qrels.get(r["qid"], {})) for r in rs) / len(rs))
        return "A %.4f  B %.4f" % tuple(out)

    doc_toks = {d: toks(t + " . " + b) for d, (t, b) in corpus.items()}
    n = len(corpus)
    df = Counter(w for ts in doc_toks.values() for w in set(ts))

    def idf(w):
        return math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))

    base = {r["qid"]: fuse(dict(r["whole"][:200]), collapse(r["den"][:200])) for r in runs}
    print("fused (store default)        ", halves(lambda r: rank(base[r["qid"]])), flush=True)

    # Proximity: the idf-weighted share of the query's adjacent term pairs
    # found within `win` positions of each other in the abstract.
    def proximity(q, d, win):
        qt = [w for w in toks(q) if w not in STOP]
        pairs = [(a, b) for a, b in zip(qt, qt[1:]) if a != b]
        if not pairs:
            return 0.0
        pos = defaultdict(list)
        for i, w in enumerate(doc_toks[d]):
            pos[w].append(i)
        total = hit = 0.0
        for a, b in pairs:
            weight = min(idf(a), idf(b))
            total += weight
            if any(abs(i - j) <= win for i in pos.get(a, ()) for j in pos.get(b, ())):
                hit += weight
        return hit / total

    for win in (1, 4, 8):
        feats = {}
        for r in runs:
            top = rank(base[r["qid"]])[:50]
            feats[r["qid"]] = {d: proximity(queries[r["qid"]], d, win) for d in top}
        for beta in (0.1, 0.3, 0.8):
            def ranked(r, beta=beta, win=win):
                s, f = base[r["qid"]], feats[r["qid"]]
                return rank({d: s[d] + beta * f[d] for d in f})
            print(f"proximity win {win} beta {beta:<3}     ", halves(ranked), flush=True)

    # BM25 over title (×3) + abstract, Porter stems, stop list, then RM3.
    tf, dl = {}, {}
    for d, (t, b) in corpus.items():
        c = Counter({w: 3 * v for w, v in Counter(w for w in toks(t) if w not in STOP).items()})
        c.update(w for w in toks(b) if w not in STOP)
        tf[d], dl[d] = c, sum(c.values())
    avg = sum(dl.values()) / n
    postings = defaultdict(list)
    for d, c in tf.items():
        for w, v in c.items():
            postings[w].append((d, v))

    def bm25(weights, k1=1.2, b=0.75):
        s = defaultdict(float)
        for w, qv in weights.items():
            for d, v in postings.get(w, ()):
                s[d] += qv * idf(w) * v * (k1 + 1) / (v + k1 * (1 - b + b * dl[d] / avg))
        return s

    def qvec(q):
        return Counter(w for w in toks(q) if w not in STOP)

    def top200(s):
        return {d: s[d] for d in rank(s)[:200]}

    plain = {r["qid"]: bm25(qvec(queries[r["qid"]])) for r in runs}
    print("BM25 (this script)           ", halves(lambda r: rank(plain[r["qid"]])))
    print("  fused with dense           ", halves(lambda r: rank(fuse(top200(plain[r["qid"]]), collapse(r["den"][:200])))))

    def rm3(qid, docs, terms, lam):
        q, s = qvec(queries[qid]), plain[qid]
        top = rank(s)[:docs]
        w = [math.exp(s[d] - s[top[0]]) for d in top]
        z, model = sum(w), Counter()
        for d, wd in zip(top, w):
            for t, v in tf[d].items():
                model[t] += wd / z * v / dl[d]
        expansion = dict(model.most_common(terms))
        ez, qz = sum(expansion.values()), sum(q.values())
        new = Counter({t: lam * v / qz for t, v in q.items()})
        for t, v in expansion.items():
            new[t] += (1 - lam) * v / ez
        return bm25(new)

    for docs, terms, lam in [(3, 10, 0.5), (10, 20, 0.5), (5, 10, 0.7), (10, 30, 0.7), (3, 5, 0.8)]:
        fb = {r["qid"]: rm3(r["qid"], docs, terms, lam) for r in runs}
        print(f"RM3 {docs} docs {terms} terms λ {lam}  lexical", halves(lambda r: rank(fb[r["qid"]])),
              "| fused", halves(lambda r: rank(fuse(top200(fb[r["qid"]]), collapse(r["den"][:200])))), flush=True)


if __name__ == "__main__":
    main()
