"""The three models' architecture and training run, in one place.

train.py trains with these figures and export.py writes them into each
model's config.json; both import this module (it imports neither, nor
PyTorch), so that writing a model's files never needs the trainer.
"""

ARCH = dict(n_embd=64, n_layer=3, n_head=4, n_positions=16)
SEED = 1
STEPS = 1200
BATCH = 64
LR = 3e-3
WARMUP = 100
WEIGHT_DECAY = 0.01
INIT_STD = 0.02
EPS = 1e-5

# The three models differ in these two switches only.
VARIANTS = {
    "gpt": dict(positions=True, causal=True),
    "nope": dict(positions=False, causal=True),
    "bag": dict(positions=False, causal=False),
}
