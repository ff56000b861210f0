/* option.h - reading the option table's fields, for the writers in report.c.
 * Internal to the core: not part of poslab.h. */
#ifndef POSLAB_OPTION_H
#define POSLAB_OPTION_H

#include "poslab.h"

/* The value of an INTEGER, NUMBER, CHOICE or SWITCH row in cfg. */
double option_number(const poslab_option *o, const poslab_config *cfg);

/* The sentence of a TEXT row in cfg. */
const poslab_sentence *option_sentence(const poslab_option *o, const poslab_config *cfg);

/* The scheme table: how many schemes there are, and each one's scale when
 * none is given. */
int scheme_count(void);
double scheme_default_scale(int scheme);

#endif
