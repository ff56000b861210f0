// How many steps the core takes over a checkpoint's work
// (src/model_checkpoint.c), for the tests that count them: a sentence's
// pass goes a third of a block a step (attention; LayerNorm, c_fc and
// GELU; the MLP's c_proj), and its next tokens 4096 rows of the embedding
// table a step, then one step to rank them. Not a test file itself.
export const BLOCK_PARTS = 3;
export const NEXT_ROWS = 4096;

// The steps of one sentence's pass through every block.
export const passSteps = (ck) => BLOCK_PARTS * ck.info.n_layer;
// The steps of one sentence's next tokens.
export const nextSteps = (ck) => Math.ceil(ck.info.vocab_size / NEXT_ROWS) + 1;

// Drains a run or a search in steps (a generator): its result and how
// many steps it took.
export function drain(steps) {
  let count = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return { value: step.value, count };
    count++;
  }
}
