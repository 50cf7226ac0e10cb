/* lf_format.c - which format a file a user hands lossfuzz is in: by its
 * name, and by its first bytes. The one sniffer: the loader (lf_load.c) and
 * the dump loader (lf_dump_load.c) both ask it. */
#include <string.h>

#include "lf_dump.h"

static const char *const names[LF_FORMAT_COUNT] = {"", "JSON case", ".npz (zip) file", ".safetensors file",
                                                   ".npy file"};
static const char *const starts[LF_FORMAT_COUNT] = {
    "", "a '{'", "a zip signature (PK\\3\\4)", "an 8-byte header length, then a JSON header", "the \\x93NUMPY magic"};
static const char *const suffixes[LF_FORMAT_COUNT] = {"", ".json", ".npz", ".safetensors", ".npy"};

const char *lf_format_name(lf_format f) { return names[f]; }
const char *lf_format_start(lf_format f) { return starts[f]; }

lf_format lf_format_of_name(const char *path)
{
    size_t n = strlen(path);
    for (int f = 1; f < LF_FORMAT_COUNT; f++) {
        size_t k = strlen(suffixes[f]);
        if (n > k && !strcmp(path + n - k, suffixes[f])) return (lf_format)f;
    }
    return LF_FORMAT_NONE;
}

lf_format lf_format_of_bytes(const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r')) i++;
    if (i < n && b[i] == '{') return LF_FORMAT_JSON;
    if (n >= 4 && (!memcmp(b, "PK\x03\x04", 4) || !memcmp(b, "PK\x05\x06", 4))) return LF_FORMAT_NPZ;
    if (n >= 6 && !memcmp(b, "\x93NUMPY", 6)) return LF_FORMAT_NPY;
    if (n >= 9 && b[8] == '{')
        return LF_FORMAT_SAFETENSORS; /* an 8-byte header length, then JSON: the parser checks it */
    return LF_FORMAT_NONE;
}
