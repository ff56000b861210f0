"""Train the three models of the world: gpt, nope and bag.

The model is GPT-2's, computed exactly as Hugging Face's GPT2Model computes it
in eval mode (pre-LayerNorm blocks, GELU with tanh, a final LayerNorm, the
output layer tied to the token table), with its weights in GPT-2's own layout
(Conv1D: x @ W + b, W of shape in x out), so that export.py writes them as
they are. The three models differ in two switches only:

    gpt   learned position table, causal mask
    nope  no position table,      causal mask
    bag   no position table,      no mask

Same data, same seed, same steps. The loss is the cross-entropy of the answer
at the prompt's last token only: the models learn to answer, not to write
statements.

Usage: python3 train.py OUT_DIR [--steps N]   (writes OUT_DIR/{gpt,nope,bag})
"""

import argparse
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpe  # noqa: E402
import export  # noqa: E402
import world  # noqa: E402
from recipe import (ARCH, BATCH, EPS, INIT_STD, LR, SEED, STEPS, VARIANTS,  # noqa: E402
                    WARMUP, WEIGHT_DECAY)


def gelu(x):
    # GPT-2's gelu_new
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


class GPT2(torch.nn.Module):
    """GPT-2's forward pass; parameter names are the safetensors names."""

    def __init__(self, vocab_size, n_embd, n_layer, n_head, n_positions, positions, causal):
        super().__init__()
        self.C, self.L, self.H, self.P = n_embd, n_layer, n_head, n_positions
        self.positions, self.causal = positions, causal
        C = n_embd
        p = torch.nn.ParameterDict()

        def add(name, *shape, fill=None, std=None):
            t = torch.empty(*shape)
            if fill is not None:
                t.fill_(fill)
            else:
                t.normal_(0.0, std)
            p[name.replace(".", "__")] = torch.nn.Parameter(t)

        # GPT-2's initialisation: weights N(0, 0.02), the two projections
        # into the residual stream scaled by 1/sqrt(2L), biases 0, gains 1.
        add("wte.weight", vocab_size, C, std=INIT_STD)
        if positions:
            add("wpe.weight", n_positions, C, std=INIT_STD)
        proj_std = INIT_STD / math.sqrt(2 * n_layer)
        for i in range(n_layer):
            add(f"h.{i}.ln_1.weight", C, fill=1.0)
            add(f"h.{i}.ln_1.bias", C, fill=0.0)
            add(f"h.{i}.attn.c_attn.weight", C, 3 * C, std=INIT_STD)
            add(f"h.{i}.attn.c_attn.bias", 3 * C, fill=0.0)
            add(f"h.{i}.attn.c_proj.weight", C, C, std=proj_std)
            add(f"h.{i}.attn.c_proj.bias", C, fill=0.0)
            add(f"h.{i}.ln_2.weight", C, fill=1.0)
            add(f"h.{i}.ln_2.bias", C, fill=0.0)
            add(f"h.{i}.mlp.c_fc.weight", C, 4 * C, std=INIT_STD)
            add(f"h.{i}.mlp.c_fc.bias", 4 * C, fill=0.0)
            add(f"h.{i}.mlp.c_proj.weight", 4 * C, C, std=proj_std)
            add(f"h.{i}.mlp.c_proj.bias", C, fill=0.0)
        add("ln_f.weight", C, fill=1.0)
        add("ln_f.bias", C, fill=0.0)
        self.p = p

    def w(self, name):
        return self.p[name.replace(".", "__")]

    def tensors(self):
        """name -> tensor in GPT-2's names; a model without positions has an
        all-zero table (so the core's learned scheme adds nothing)."""
        out = {name.replace("__", "."): t.detach() for name, t in self.p.items()}
        if not self.positions:
            out["wpe.weight"] = torch.zeros(self.P, self.C, dtype=out["wte.weight"].dtype)
        return out

    def ln(self, x, prefix):
        mean = x.mean(-1, keepdim=True)
        var = (x - mean).pow(2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + EPS) * self.w(prefix + ".weight") + self.w(prefix + ".bias")

    def forward(self, ids, lengths):
        """ids: B x T (padded after each prompt's end), lengths: B.
        Returns the last hidden state, B x T x C. Padding is masked out of
        every key, so each prompt is computed as if it were alone."""
        B, T = ids.shape
        C, H = self.C, self.H
        h = self.w("wte.weight")[ids]
        if self.positions:
            h = h + self.w("wpe.weight")[:T].unsqueeze(0)
        keys = torch.arange(T)
        allowed = (keys.unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(1).unsqueeze(1)  # B 1 1 T
        if self.causal:
            allowed = allowed & (keys.unsqueeze(0) <= keys.unsqueeze(1))  # B 1 T T
        for i in range(self.L):
            a = self.ln(h, f"h.{i}.ln_1")
            qkv = a @ self.w(f"h.{i}.attn.c_attn.weight") + self.w(f"h.{i}.attn.c_attn.bias")
            q, k, v = qkv.split(C, dim=-1)
            q = q.view(B, T, H, C // H).transpose(1, 2)
            k = k.view(B, T, H, C // H).transpose(1, 2)
            v = v.view(B, T, H, C // H).transpose(1, 2)
            scores = q @ k.transpose(-1, -2) / math.sqrt(C // H)
            scores = scores.masked_fill(~allowed, float("-inf"))
            att = torch.softmax(scores, dim=-1) @ v
            att = att.transpose(1, 2).reshape(B, T, C)
            h = h + att @ self.w(f"h.{i}.attn.c_proj.weight") + self.w(f"h.{i}.attn.c_proj.bias")
            m = self.ln(h, f"h.{i}.ln_2") @ self.w(f"h.{i}.mlp.c_fc.weight") + self.w(f"h.{i}.mlp.c_fc.bias")
            h = h + gelu(m) @ self.w(f"h.{i}.mlp.c_proj.weight") + self.w(f"h.{i}.mlp.c_proj.bias")
        return self.ln(h, "ln_f")

    def next_logits(self, ids, lengths):
        out = self.forward(ids, lengths)
        last = out[torch.arange(ids.shape[0]), lengths - 1]
        return last @ self.w("wte.weight").t()


def encode(tok, items):
    """Token ids of the prompts as the core sees them (one space in front),
    padded with 0 after the end, their lengths, and the answers' ids."""
    seqs = [tok.encode(" " + it[0]) for it in items]
    answers = []
    for it in items:
        a = tok.encode(" " + it[1])
        assert len(a) == 1, f"answer {it[1]!r} is not one token"
        answers.append(a[0])
    T = max(map(len, seqs))
    ids = torch.zeros(len(seqs), T, dtype=torch.long)
    for r, s in enumerate(seqs):
        ids[r, :len(s)] = torch.tensor(s)
    return ids, torch.tensor([len(s) for s in seqs]), torch.tensor(answers)


def accuracy(model, data):
    ids, lengths, answers = data
    with torch.no_grad():
        pred = model.next_logits(ids, lengths).argmax(-1)
    return (pred == answers).double().mean().item()


def lr_at(step, steps):
    if step < WARMUP:
        return LR * (step + 1) / WARMUP
    return LR * 0.5 * (1 + math.cos(math.pi * (step - WARMUP) / max(1, steps - WARMUP)))


def train_one(name, tok, train_data, held_data, steps, log=print):
    torch.manual_seed(SEED)
    model = GPT2(len(tok.vocab), **ARCH, **VARIANTS[name])
    # decay the matrices only, as GPT-2 training setups do
    decay = [t for n, t in model.p.items() if t.dim() == 2]
    rest = [t for n, t in model.p.items() if t.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY},
                             {"params": rest, "weight_decay": 0.0}], lr=LR, betas=(0.9, 0.95))
    ids, lengths, answers = train_data
    gen = torch.Generator().manual_seed(SEED)
    n = ids.shape[0]
    perm, pos = torch.randperm(n, generator=gen), 0
    t0, c0 = time.time(), time.process_time()
    for step in range(steps):
        if pos + BATCH > n:
            perm, pos = torch.randperm(n, generator=gen), 0
        idx = perm[pos:pos + BATCH]
        pos += BATCH
        for g in opt.param_groups:
            g["lr"] = lr_at(step, steps)
        logits = model.next_logits(ids[idx], lengths[idx])
        loss = torch.nn.functional.cross_entropy(logits, answers[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 200 == 0 or step == steps - 1:
            train_acc = f" train {accuracy(model, train_data):.4f}" if step == steps - 1 else ""
            log(f"{name} step {step} loss {loss.item():.4f}{train_acc} "
                f"held-out {accuracy(model, held_data):.4f} ({time.time() - t0:.0f} s)")
    return model, time.time() - t0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--only", choices=sorted(VARIANTS), action="append")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    held, train_triples = world.split()
    merges, vocab = bpe.train(world.corpus())
    tok = bpe.Tokenizer(merges, vocab)
    train_data = encode(tok, world.prompts(train_triples))
    held_data = encode(tok, world.prompts(held))
    for name in args.only or VARIANTS:
        model, seconds, cpu = train_one(name, tok, train_data, held_data, args.steps,
                                   log=lambda s: print(s, flush=True))
        folder = os.path.join(args.out, name)
        export.write(folder, model, merges, vocab, name, steps=args.steps)
        print(f"{name}: {seconds:.1f} s of training ({cpu:.1f} s of CPU), written to {folder}", flush=True)


if __name__ == "__main__":
    main()
