"""The world the three models are trained on: who did what to whom.

A statement names a doer, a verb and a receiver ("dog bites man ."); a
question asks for one of the two ("who bites ?" for the doer, "who is bitten ?"
for the receiver). The same words answer both questions, so only word order
says which noun is which: a model that cannot see order can do no better than
guess between the two nouns.

Plain Python (no NumPy, no PyTorch), so that the core's table test can import
it on a machine without either.
"""

import random

NOUNS = ["dog", "man", "cat", "woman", "child", "teacher", "student", "horse",
         "bird", "fox", "king", "queen", "doctor", "nurse", "farmer", "baker"]
# present tense and participle
VERBS = [("bites", "bitten"), ("chases", "chased"), ("sees", "seen"),
         ("helps", "helped"), ("pushes", "pushed"), ("thanks", "thanked"),
         ("kicks", "kicked"), ("follows", "followed")]

SPLIT_SEED = 23
HELD_OUT_FRACTION = 0.2
# The lab's own example: never seen in training, in either order.
ALWAYS_HELD_OUT = (frozenset(("dog", "man")), "bites")

ACTIVE, PASSIVE = "active", "passive"


def prompt_text(doer, verb, receiver, question):
    """The prompt as a student types it; the core puts one space before it."""
    participle = dict(VERBS)[verb]
    ask = f"who {verb} ?" if question == ACTIVE else f"who is {participle} ?"
    return f"{doer} {verb} {receiver} . {ask}"


def answer(doer, receiver, question):
    return doer if question == ACTIVE else receiver


def triples():
    """The 960 (unordered noun pair, verb) triples, in a fixed order."""
    out = []
    for i, a in enumerate(NOUNS):
        for b in NOUNS[i + 1:]:
            for verb, _ in VERBS:
                out.append((a, b, verb))
    return out


def split(seed=SPLIT_SEED, fraction=HELD_OUT_FRACTION):
    """Held-out and training triples: a seeded shuffle, the first 20% held out.

    The lab's example is put first so that it is always among them (the count
    stays at exactly 20%: it takes the place of the last triple the shuffle
    would have held out).
    """
    order = triples()
    random.Random(seed).shuffle(order)
    pair, verb = ALWAYS_HELD_OUT
    example = next(t for t in order if frozenset(t[:2]) == pair and t[2] == verb)
    order.remove(example)
    order.insert(0, example)
    n_held = round(len(order) * fraction)
    return order[:n_held], order[n_held:]


def prompts(triple_list):
    """Every prompt of the given triples: both orders, both questions.

    Each item: (text, answer word, doer, verb, receiver, question). Mirrored
    prompts (X and Y swapped, same question) come next to each other.
    """
    out = []
    for a, b, verb in triple_list:
        for question in (ACTIVE, PASSIVE):
            for doer, receiver in ((a, b), (b, a)):
                out.append((prompt_text(doer, verb, receiver, question),
                            answer(doer, receiver, question),
                            doer, verb, receiver, question))
    return out


def mirrored_pairs(triple_list):
    """(prompt, its mirror) for every held-out triple and question."""
    p = prompts(triple_list)
    return [(p[i], p[i + 1]) for i in range(0, len(p), 2)]


def corpus():
    """The world's text as the core sees it (one space before each prompt):
    what the tokenizer is trained on."""
    return [" " + p[0] for p in prompts(triples())]


if __name__ == "__main__":
    held, train = split()
    print(f"{len(triples())} triples, {len(held)} held out, {len(train)} for training")
    print(f"{len(prompts(held))} held-out prompts, {len(prompts(train))} training prompts")
    print("first held out:", held[:3])
