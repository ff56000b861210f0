/* format_probe - %g text from C for tests of the page's number text
 * (tests/node/format.test.mjs). Reads lines "BITS DIGITS", BITS a double's
 * IEEE 754 bit pattern as 16 hex digits, and writes for each the core's
 * decimal_g (the CLI's text) and glibc's printf("%.*g"), separated by a tab.
 * usage: format_probe < cases */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decimal.h"

int main(void) {
    uint64_t bits;
    int digits;
    while (scanf("%16" SCNx64 " %d", &bits, &digits) == 2) {
        double x;
        memcpy(&x, &bits, sizeof x);
        char core[DECIMAL_G_BYTES];
        decimal_g(core, x, digits);
        printf("%s\t%.*g\n", core, digits, x);
    }
    return ferror(stdin) ? 1 : 0;
}
