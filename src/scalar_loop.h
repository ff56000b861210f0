/* scalar_loop.h - SCALAR_LOOP before a loop asks Emscripten's clang to
 * leave it as written: not vectorised, interleaved or unrolled. For loops
 * whose copies cost the WebAssembly module more bytes than they save time
 * (attention.c's index loops, numpy_random.c's shorter twist loop). gcc,
 * the native build, gets nothing. Internal to the core. */
#ifndef POSLAB_SCALAR_LOOP_H
#define POSLAB_SCALAR_LOOP_H

#ifdef __clang__
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")
#else
#define SCALAR_LOOP
#endif

#endif
