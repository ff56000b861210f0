/* Runs the fuzz target over files, without libFuzzer: CTest replays the
 * seed corpus and every past crash (tests/fuzz/regressions) in the plain
 * and sanitized builds. usage: fuzz_replay FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    int files = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { fprintf(stderr, "fuzz_replay: cannot open %s\n", argv[i]); return 2; }
        static uint8_t buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        files++;
    }
    printf("fuzz_replay: %d inputs replayed, no invariant broken\n", files);
    return files ? 0 : 2;
}
