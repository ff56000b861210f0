/* unicode_tables.h - the character classes of GPT-2's pre-tokenizing
 * pattern, from the table src/gen_unicode_tables.py generates (the Unicode
 * version is in unicode_version). Internal to the core. */
#ifndef POSLAB_UNICODE_TABLES_H
#define POSLAB_UNICODE_TABLES_H

#include <stdint.h>

enum unicode_class { UNICODE_OTHER = 0, UNICODE_LETTER, UNICODE_NUMBER, UNICODE_SPACE };

extern const char unicode_version[];
extern const int unicode_run_count;
/* Runs cover 0 .. U+10FFFF: run i is [start[i], start[i + 1]). */
extern const uint32_t unicode_run_start[];
extern const unsigned char unicode_run_class[];

/* \p{L}, \p{N}, ECMAScript's \s or none of them. */
static inline enum unicode_class unicode_class_of(uint32_t cp) {
    int lo = 0, hi = unicode_run_count - 1; /* the last run starting at or before cp */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (unicode_run_start[mid] <= cp) lo = mid;
        else hi = mid - 1;
    }
    return (enum unicode_class)unicode_run_class[lo];
}

#endif
