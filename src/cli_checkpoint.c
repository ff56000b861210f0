/* Reading a checkpoint from disk for the CLI: the files are handed to the
 * core as the browser hands them (poslab.h, "checkpoints"): config.json,
 * the tokenizer's files, each safetensors header, then each file's data in
 * chunks, so the weights are never in memory twice. */
#include "cli_checkpoint.h"
#include "checkpoint_family.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { CHUNK = 1 << 20 }; /* bytes per fread */

/* dir + "/" + name into out. */
static int join(char *out, size_t cap, const char *dir, const char *name) {
    int n = snprintf(out, cap, "%s%s%s", dir, *dir ? "/" : "", name);
    return n > 0 && (size_t)n < cap;
}

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int unreadable(const char *path, char *message, size_t size) {
    snprintf(message, size, "%s: %s", path, strerror(errno ? errno : EIO));
    return 1;
}

/* The whole of a small file (config.json, vocab.json, merges.txt, the
 * index); 0 or the exit status. */
static int read_all(const char *path, char **text, size_t *len, char *message, size_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) return unreadable(path, message, size);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            snprintf(message, size, "%s: out of memory", path);
            return 1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        char *grown = realloc(buf, cap *= 2);
        if (!grown) free(buf);
        buf = grown;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return unreadable(path, message, size);
    }
    *text = buf;
    *len = n;
    return 0;
}

/* A core call's status as the CLI's exit status: a bad file 2, memory 1. */
static int status(poslab_status st) { return st == POSLAB_OK ? 0 : st == POSLAB_ERR_NOMEM ? 1 : 2; }

static int load_small(poslab_checkpoint *ck, const char *dir, int which, char *message, size_t size) {
    char path[4096], path2[4096];
    char *text = NULL, *text2 = NULL;
    size_t len = 0, len2 = 0;
    int rc;
    if (which == 0) {
        if (!join(path, sizeof path, dir, "config.json")) return snprintf(message, size, "%s: path too long", dir), 1;
        if ((rc = read_all(path, &text, &len, message, size))) return rc;
        rc = status(poslab_checkpoint_config(ck, path, text, len, message, size));
    } else {
        /* the one kind of tokenizer the core loads from files (checkpoint_family.h) */
        if (!join(path, sizeof path, dir, checkpoint_tokenizer_file(FAMILY_TOKENIZER_BPE_FILES, 0)) ||
            !join(path2, sizeof path2, dir, checkpoint_tokenizer_file(FAMILY_TOKENIZER_BPE_FILES, 1)))
            return snprintf(message, size, "%s: path too long", dir), 1;
        if ((rc = read_all(path, &text, &len, message, size))) return rc;
        if ((rc = read_all(path2, &text2, &len2, message, size))) {
            free(text);
            return rc;
        }
        rc = status(poslab_checkpoint_tokenizer(ck, path, text, len, path2, text2, len2, message, size));
        if (rc) { /* tokenizer.c names the file by its own name: say where it is */
            char line[POSLAB_MESSAGE_BYTES];
            snprintf(line, sizeof line, "%.100s%s%.200s", dir, *dir ? "/" : "", message);
            snprintf(message, size, "%s", line);
        }
    }
    free(text);
    free(text2);
    return rc;
}

typedef struct {
    FILE *f;
    char path[4096];
    uint64_t size;
    int index;
} open_file;

/* Opens one safetensors file and hands its header to the core. */
static int add_file(poslab_checkpoint *ck, open_file *of, char *message, size_t size) {
    unsigned char first[8];
    struct stat st;
    of->f = fopen(of->path, "rb");
    if (!of->f || fstat(fileno(of->f), &st) != 0) return unreadable(of->path, message, size);
    of->size = (uint64_t)st.st_size;
    uint64_t header_bytes;
    size_t got = fread(first, 1, sizeof first, of->f);
    poslab_status s = poslab_safetensors_header_bytes(of->path, first, got < 8 ? got : of->size, &header_bytes,
                                                      message, size);
    if (s != POSLAB_OK) return status(s);
    unsigned char *header = malloc((size_t)header_bytes);
    if (!header) return snprintf(message, size, "%s: out of memory for its header", of->path), 1;
    memcpy(header, first, 8);
    if (fread(header + 8, 1, (size_t)header_bytes - 8, of->f) != header_bytes - 8) {
        free(header);
        return unreadable(of->path, message, size);
    }
    s = poslab_checkpoint_add_file(ck, of->path, of->size, header, (size_t)header_bytes, &of->index, message, size);
    free(header);
    return status(s);
}

/* Each file's data, from its header's end to its last tensor's end. */
static int feed(poslab_checkpoint *ck, open_file *of, unsigned char *chunk, char *message, size_t size) {
    uint64_t at = poslab_checkpoint_file_next(ck, of->index), end = poslab_checkpoint_file_end(ck, of->index);
    while (at < end) {
        size_t want = end - at < CHUNK ? (size_t)(end - at) : CHUNK;
        size_t got = fread(chunk, 1, want, of->f);
        if (got == 0) return ferror(of->f) ? unreadable(of->path, message, size) : 0; /* finish says what is missing */
        poslab_status s = poslab_checkpoint_feed(ck, of->index, at, chunk, got, message, size);
        if (s != POSLAB_OK) return status(s);
        at += got;
    }
    return 0;
}

int cli_load_checkpoint(const char *path, int weights, poslab_checkpoint **out, char *message, size_t size) {
    char dir[4096];
    const char *single = NULL;
    size_t len = strlen(path);
    *out = NULL;
    errno = 0;
    /* a .safetensors file: the other files are beside it */
    if (len > 12 && !strcmp(path + len - 12, ".safetensors") && is_file(path)) {
        single = path;
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    } else {
        snprintf(dir, sizeof dir, "%s", path);
        struct stat st;
        if (stat(dir, &st) != 0) return unreadable(path, message, size);
        /* a file read as a folder would fail as "README.md/vocab.json: Not
           a directory", an I/O error; it is the wrong input */
        if (!S_ISDIR(st.st_mode)) {
            snprintf(message, size, "--checkpoint: %s is not a folder or a .safetensors file; allowed: a checkpoint "
                     "folder (config.json, model.safetensors, vocab.json, merges.txt) or its .safetensors file", path);
            return 2;
        }
    }
    poslab_checkpoint *ck;
    if (poslab_checkpoint_create(&ck) != POSLAB_OK) return snprintf(message, size, "out of memory"), 1;
    int rc = load_small(ck, dir, 1, message, size);
    if (!rc && weights) rc = load_small(ck, dir, 0, message, size);
    open_file *files = NULL;
    int count = 0;
    unsigned char *chunk = NULL;
    if (!rc && weights) {
        char index[4096];
        if (single) {
            count = 1;
        } else if (join(index, sizeof index, dir, "model.safetensors.index.json") && is_file(index)) {
            char *text;
            size_t n;
            if (!(rc = read_all(index, &text, &n, message, size))) {
                rc = status(poslab_checkpoint_shards(ck, index, text, n, message, size));
                free(text);
            }
            while (!rc && poslab_checkpoint_shard(ck, count)) count++;
        } else {
            count = 1;
        }
        files = calloc((size_t)(count ? count : 1), sizeof *files);
        if (!files) rc = 1, snprintf(message, size, "out of memory");
        for (int k = 0; !rc && k < count; k++) {
            if (single) snprintf(files[k].path, sizeof files[k].path, "%s", single);
            else if (!join(files[k].path, sizeof files[k].path, dir,
                           poslab_checkpoint_shard(ck, k) ? poslab_checkpoint_shard(ck, k) : "model.safetensors"))
                rc = 1, snprintf(message, size, "%s: path too long", dir);
            if (!rc) rc = add_file(ck, &files[k], message, size);
        }
        uint64_t bytes;
        if (!rc) rc = status(poslab_checkpoint_plan(ck, &bytes, message, size));
        if (!rc) rc = status(poslab_checkpoint_allocate(ck, message, size));
        if (!rc && !(chunk = malloc(CHUNK))) rc = 1, snprintf(message, size, "out of memory");
        for (int k = 0; !rc && k < count; k++) rc = feed(ck, &files[k], chunk, message, size);
        if (!rc) rc = status(poslab_checkpoint_finish(ck, message, size));
    }
    for (int k = 0; k < count && files; k++)
        if (files[k].f) fclose(files[k].f);
    free(files);
    free(chunk);
    if (rc) poslab_checkpoint_free(ck);
    else *out = ck;
    return rc;
}
