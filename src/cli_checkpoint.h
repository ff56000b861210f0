/* cli_checkpoint.h - the CLI's reader of checkpoint folders. */
#ifndef POSLAB_CLI_CHECKPOINT_H
#define POSLAB_CLI_CHECKPOINT_H

#include <stddef.h>

#include "poslab.h"

/* Loads the checkpoint at path (a folder, or a .safetensors file with its
 * other files beside it): the tokenizer, and with `weights` config.json and
 * the safetensors too. Returns 0 with *out set, or the exit status (1: a
 * file could not be read or memory ran out, 2: a file is not what it should
 * be) with one line in message and nothing left allocated. */
int cli_load_checkpoint(const char *path, int weights, poslab_checkpoint **out, char *message, size_t size);

#endif
