/* lf_hash.h - content hashes for file names (corpus, findings, regressions). */
#ifndef LF_HASH_H
#define LF_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* FNV-1a, 64 bits: stable across runs and machines. */
static inline uint64_t lf_hash_bytes(const void *data, size_t size)
{
    const uint8_t *p = (const uint8_t *)data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* "guard-miss_label_out_of_range-0123456789abcdef": the class made file-safe, then the hash. */
static inline void lf_finding_file_stem(char *out, size_t len, const char *cls, uint64_t hash)
{
    size_t at = 0;
    for (const char *s = cls; *s && at + 18 < len; s++) {
        char ch = *s;
        out[at++] =
            (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ? ch : '_';
    }
    snprintf(out + at, len - at, "-%016llx", (unsigned long long)hash);
}

#endif
