"""GPT-2's byte-level BPE, trained on the world's text.

The files it writes (vocab.json, merges.txt) are read by the same tokenizer
that reads GPT-2's: bytes become characters by GPT-2's bytes_to_unicode, text
is cut into pieces by GPT-2's pattern (a word with the space before it, " .",
" ?"), and each piece is merged by the rank of its merges.

Training is the classic loop: count adjacent symbol pairs over the pieces
(weighted by how often each piece occurs), merge the most frequent pair
everywhere, repeat. It stops when every piece is one symbol, so every word of
the world, with its leading space, is one token.
"""

import json
import re
from collections import Counter


def bytes_to_unicode():
    """GPT-2's table: printable bytes stand for themselves, the other 68 are
    moved to U+0100 and up, in increasing order (so a space is 'Ġ')."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


# GPT-2's pattern with its Unicode classes narrowed to ASCII, which is all the
# world's text holds (pieces() refuses anything else rather than cut it wrong).
_PATTERN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def pieces(text):
    if not text.isascii():
        raise ValueError("the world's tokenizer is trained on ASCII text only")
    return _PATTERN.findall(text)


def _symbols(piece, table):
    return tuple(table[b] for b in piece.encode("utf-8"))


def train(texts):
    """Merges (in rank order) and vocab (symbol -> id) for the given texts."""
    table = bytes_to_unicode()
    counts = Counter(_symbols(p, table) for t in texts for p in pieces(t))
    words = dict(counts)
    merges = []
    while True:
        pairs = Counter()
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        if not pairs:
            break
        # most frequent first; among equals the smallest pair, so that the
        # result does not depend on dictionary order
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        joined = best[0] + best[1]
        new_words = {}
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(joined)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_words[tuple(out)] = new_words.get(tuple(out), 0) + n
        words = new_words
    # ids: the 256 byte symbols in GPT-2's order, then each merge's result
    vocab = {}
    for ch in table.values():
        vocab[ch] = len(vocab)
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    return merges, vocab


class Tokenizer:
    """The encoder as the core runs it (tokenizer.md, "The three steps")."""

    def __init__(self, merges, vocab):
        self.ranks = {tuple(m): i for i, m in enumerate(merges)}
        self.vocab = vocab
        self.text_of = {i: s for s, i in vocab.items()}
        self.table = bytes_to_unicode()
        self.untable = {c: b for b, c in self.table.items()}

    def _merge(self, word):
        word = list(word)
        while len(word) > 1:
            ranked = [(self.ranks.get(p, None), p) for p in zip(word, word[1:])]
            ranked = [r for r in ranked if r[0] is not None]
            if not ranked:
                break
            _, (a, b) = min(ranked)
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            word = out
        return word

    def encode(self, text):
        return [self.vocab[s] for p in pieces(text) for s in self._merge(_symbols(p, self.table))]

    def decode_one(self, i):
        return bytes(self.untable[c] for c in self.text_of[i]).decode("utf-8")


def save(folder, merges, vocab):
    with open(f"{folder}/vocab.json", "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, separators=(",", ":"))
    with open(f"{folder}/merges.txt", "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")


def load(folder):
    with open(f"{folder}/vocab.json", encoding="utf-8") as f:
        vocab = json.load(f)
    with open(f"{folder}/merges.txt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    if not lines[0].startswith("#version"):
        raise ValueError(f"{folder}/merges.txt: no #version first line")
    merges = [tuple(line.split(" ")) for line in lines[1:] if line]
    return Tokenizer(merges, vocab)


if __name__ == "__main__":
    import world
    merges, vocab = train(world.corpus())
    tok = Tokenizer(merges, vocab)
    print(len(merges), "merges, vocabulary", len(vocab))
    ids = tok.encode(" dog bites man . who is bitten ?")
    print(ids, [tok.decode_one(i) for i in ids])
