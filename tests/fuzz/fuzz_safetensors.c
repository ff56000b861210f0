/* A fuzz target for the safetensors reader: the input is a whole
 * model.safetensors file for a fixed tiny config.json (C 4, 1 block, 2
 * heads, P 4, V 8), handed to the core as the CLI and the browser hand it:
 * header size, header, plan, allocate, then the data in two chunks split
 * where the input's last byte says, finish. A header the core accepts must
 * then describe every tensor within the file; one it refuses must come with
 * a message. ASan and UBSan watch every step; LeakSanitizer sees whatever
 * a refused file leaves behind.
 * Built with libFuzzer (make fuzz, under POSLAB_FUZZ) and, for replaying
 * tests/fuzz/safetensors_corpus in CTest, with replay_main.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poslab.h"

static const char config[] =
    "{\"n_embd\":4,\"n_layer\":1,\"n_head\":2,\"n_positions\":4,\"vocab_size\":8,\"activation_function\":\"gelu_new\"}";

static void require(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_safetensors: invariant broken: %s\n", what);
        abort();
    }
}

/* A call that fails must say why in one line. */
static int refused(poslab_status st, const char *message) {
    if (st == POSLAB_OK) return 0;
    require(message[0] != 0 || st == POSLAB_ERR_NOMEM, "a refusal without a message");
    require(!strchr(message, '\n'), "a message of more than one line");
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char message[POSLAB_MESSAGE_BYTES];
    poslab_checkpoint *ck;
    if (poslab_checkpoint_create(&ck) != POSLAB_OK) return 0;
    message[0] = 0;
    require(poslab_checkpoint_config(ck, "config.json", config, sizeof config - 1, message, sizeof message) ==
                POSLAB_OK, "the fixed config.json is refused");
    uint64_t header_bytes = 0, bytes = 0;
    int index = -1;
    unsigned char first[8] = {0};
    memcpy(first, data, size < 8 ? size : 8);
    message[0] = 0;
    if (refused(poslab_safetensors_header_bytes("model.safetensors", first, size, &header_bytes, message,
                                                sizeof message), message))
        goto done;
    require(header_bytes >= 8 && header_bytes <= size, "a header said to fit that does not");
    message[0] = 0;
    if (refused(poslab_checkpoint_add_file(ck, "model.safetensors", size, data, (size_t)header_bytes, &index,
                                           message, sizeof message), message))
        goto done;
    message[0] = 0;
    if (refused(poslab_checkpoint_plan(ck, &bytes, message, sizeof message), message)) goto done;
    /* a planned checkpoint holds exactly the tiny model's weights */
    /* wte 8x4, wpe 4x4, ln_f 2x4, and one block: LayerNorms 4x4, c_attn
       4x12+12, c_proj 4x4+4, c_fc 4x16+16, mlp.c_proj 16x4+4 (floats), and
       the block's twelve pointers */
    require(bytes == (uint64_t)(32 + 16 + 8 + 16 + 60 + 20 + 80 + 68) * 4 + 12 * sizeof(void *),
            "the planned bytes are not the config's");
    require(poslab_checkpoint_file_end(ck, index) <= size, "a tensor ends past the file");
    message[0] = 0;
    if (refused(poslab_checkpoint_allocate(ck, message, sizeof message), message)) goto done;
    size_t at = (size_t)header_bytes, split = at + (size > 0 ? data[size - 1] : 0);
    if (split > size) split = size;
    message[0] = 0;
    if (refused(poslab_checkpoint_feed(ck, index, at, data + at, split - at, message, sizeof message), message))
        goto done;
    if (refused(poslab_checkpoint_feed(ck, index, split, data + split, size - split, message, sizeof message),
                message))
        goto done;
    /* the whole file was fed: every tensor is complete */
    message[0] = 0;
    require(poslab_checkpoint_finish(ck, message, sizeof message) == POSLAB_OK, "a whole file left a tensor short");
    require(poslab_checkpoint_json(ck) != NULL, "no description of a loaded checkpoint");
done:
    poslab_checkpoint_free(ck);
    return 0;
}
