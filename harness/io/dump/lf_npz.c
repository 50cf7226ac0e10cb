/* lf_npz.c - .npz: a zip of .npy files (numpy.savez: stored; savez_compressed:
 * deflated, inflated with zlib). Reads the central directory, zip64 sizes and
 * offsets included (numpy writes members with force_zip64), and checks every
 * offset, size and CRC against the file; a deflated entry may not claim more
 * than deflate can produce (a zip bomb) or LF_DUMP_MAX_INFLATED. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lf_dump.h"

static uint32_t u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t u32(const uint8_t *p) { return u16(p) | u16(p + 2) << 16; }
static uint64_t u64(const uint8_t *p) { return u32(p) | (uint64_t)u32(p + 4) << 32; }

typedef struct {
    uint64_t csize, usize, local;
    uint32_t method, crc;
    char name[64];
} entry;

/* Zip64 extra field (id 1): the 64-bit values of the fields that read 0xFFFFFFFF. */
static bool zip64_extra(const uint8_t *x, size_t len, entry *e)
{
    for (size_t at = 0; at + 4 <= len;) {
        uint32_t id = u16(x + at), n = u16(x + at + 2);
        if (at + 4 + n > len) return false;
        if (id == 1) {
            const uint8_t *v = x + at + 4, *end = v + n;
            if (e->usize == 0xffffffffu) {
                if (v + 8 > end) return false;
                e->usize = u64(v);
                v += 8;
            }
            if (e->csize == 0xffffffffu) {
                if (v + 8 > end) return false;
                e->csize = u64(v);
                v += 8;
            }
            if (e->local == 0xffffffffu) {
                if (v + 8 > end) return false;
                e->local = u64(v);
            }
        }
        at += 4 + n;
    }
    return true;
}

static bool read_directory(const uint8_t *buf, size_t len, entry *es, int *n, char *err, size_t errlen)
{
    size_t eocd = 0;
    bool found = false;
    for (size_t back = 22; back <= len && back <= 22 + 65535 && !found; back++)
        if (u32(buf + len - back) == 0x06054b50) {
            eocd = len - back;
            found = true;
        }
    if (!found) {
        snprintf(err, errlen, "not a zip file (no end of central directory): a truncated .npz?");
        return false;
    }
    uint64_t count = u16(buf + eocd + 10), cd = u32(buf + eocd + 16);
    if (cd == 0xffffffffu || count == 0xffff) {
        if (eocd < 20 || u32(buf + eocd - 20) != 0x07064b50) {
            snprintf(err, errlen, "zip64 locator missing");
            return false;
        }
        uint64_t at = u64(buf + eocd - 20 + 8);
        if (len < 56 || at > len - 56 || u32(buf + at) != 0x06064b50) { /* len - 56 must not wrap */
            snprintf(err, errlen, "zip64 directory record out of bounds");
            return false;
        }
        count = u64(buf + at + 32);
        cd = u64(buf + at + 48);
    }
    if (count > LF_DUMP_MAX_ARRAYS) {
        snprintf(err, errlen, "%llu entries: at most %d arrays", (unsigned long long)count, LF_DUMP_MAX_ARRAYS);
        return false;
    }
    size_t at = (size_t)cd;
    if (cd > len) {
        snprintf(err, errlen, "central directory offset past the end");
        return false;
    }
    for (uint64_t i = 0; i < count; i++) {
        if (at + 46 > len || u32(buf + at) != 0x02014b50) {
            snprintf(err, errlen, "central directory entry %llu is damaged", (unsigned long long)i);
            return false;
        }
        entry *e = &es[i];
        memset(e, 0, sizeof *e);
        e->method = u16(buf + at + 10);
        e->crc = u32(buf + at + 16);
        e->csize = u32(buf + at + 20);
        e->usize = u32(buf + at + 24);
        e->local = u32(buf + at + 42);
        size_t nlen = u16(buf + at + 28), xlen = u16(buf + at + 30), clen = u16(buf + at + 32);
        if (at + 46 + nlen + xlen + clen > len || nlen >= sizeof e->name) {
            snprintf(err, errlen, "entry %llu: name runs past the directory", (unsigned long long)i);
            return false;
        }
        memcpy(e->name, buf + at + 46, nlen);
        if (!zip64_extra(buf + at + 46 + nlen, xlen, e)) {
            snprintf(err, errlen, "%s: damaged zip64 field", e->name);
            return false;
        }
        for (uint64_t k = 0; k < i; k++)
            if (!strcmp(es[k].name, e->name)) {
                snprintf(err, errlen, "duplicate entry %s", e->name);
                return false;
            }
        at += 46 + nlen + xlen + clen;
    }
    *n = (int)count;
    return true;
}

/* The entry's bytes: a pointer into the file (stored) or inflated into *owned. */
static const uint8_t *entry_bytes(const uint8_t *buf, size_t len, const entry *e, void **owned, char *err,
                                  size_t errlen)
{
    *owned = NULL;
    if (len < 30 || e->local > len - 30 || u32(buf + e->local) != 0x04034b50) {
        snprintf(err, errlen, "%s: local header out of bounds", e->name);
        return NULL;
    }
    uint64_t data = e->local + 30 + u16(buf + e->local + 26) + u16(buf + e->local + 28);
    if (data > len || e->csize > len - data) {
        snprintf(err, errlen, "%s: data runs past the end of the file (truncated?)", e->name);
        return NULL;
    }
    const uint8_t *src = buf + data;
    if (e->method == 0) {
        if (e->csize != e->usize) {
            snprintf(err, errlen, "%s: stored entry with differing sizes", e->name);
            return NULL;
        }
    } else if (e->method == 8) {
        if (e->usize > LF_DUMP_MAX_INFLATED || e->usize > e->csize * 1032 + 1024) {
            snprintf(err, errlen, "%s: claims %llu bytes from %llu compressed (over the limit, or a zip bomb)", e->name,
                     (unsigned long long)e->usize, (unsigned long long)e->csize);
            return NULL;
        }
        uint8_t *out = malloc((size_t)e->usize + 1);
        z_stream z;
        memset(&z, 0, sizeof z);
        if (!out || inflateInit2(&z, -MAX_WBITS) != Z_OK) {
            free(out);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        int rc = Z_OK;
        uint64_t in_done = 0, out_done = 0;
        while (rc == Z_OK) { /* in chunks: zlib counts in 32 bits */
            uInt in_chunk = (uInt)(e->csize - in_done < (1u << 30) ? e->csize - in_done : (1u << 30));
            uInt out_chunk = (uInt)(e->usize - out_done < (1u << 30) ? e->usize - out_done : (1u << 30));
            z.next_in = (Bytef *)src + in_done;
            z.avail_in = in_chunk;
            z.next_out = out + out_done;
            z.avail_out = out_chunk;
            rc = inflate(&z, Z_NO_FLUSH);
            in_done += in_chunk - z.avail_in;
            out_done += out_chunk - z.avail_out;
            if (rc == Z_OK && in_chunk == z.avail_in && out_chunk == z.avail_out) rc = Z_BUF_ERROR;
        }
        inflateEnd(&z);
        if (rc != Z_STREAM_END || out_done != e->usize) {
            free(out);
            snprintf(err, errlen, "%s: deflate data is damaged or truncated", e->name);
            return NULL;
        }
        *owned = out;
        src = out;
    } else {
        snprintf(err, errlen, "%s: compression method %u is not supported (stored or deflate)", e->name, e->method);
        return NULL;
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    for (uint64_t done = 0; done < e->usize; done += 1u << 30)
        crc = crc32(crc, src + done, (uInt)(e->usize - done < (1u << 30) ? e->usize - done : (1u << 30)));
    if (crc != e->crc) {
        free(*owned);
        *owned = NULL;
        snprintf(err, errlen, "%s: CRC mismatch (the file is damaged)", e->name);
        return NULL;
    }
    return src;
}

bool lf_npz_parse(const uint8_t *buf, size_t len, lf_dump *d, char *err, size_t errlen)
{
    entry es[LF_DUMP_MAX_ARRAYS];
    int n;
    char why[256];
    if (!read_directory(buf, len, es, &n, err, errlen)) return false;
    for (int i = 0; i < n; i++) {
        size_t nl = strlen(es[i].name);
        if (nl < 5 || strcmp(es[i].name + nl - 4, ".npy")) continue; /* not an array */
        void *owned;
        const uint8_t *bytes = entry_bytes(buf, len, &es[i], &owned, err, errlen);
        if (!bytes) return false;
        es[i].name[nl - 4] = 0;
        lf_array *a = &d->arrays[d->n];
        if (!lf_npy_parse(bytes, (size_t)es[i].usize, es[i].name, a, why, sizeof why)) {
            free(owned);
            snprintf(err, errlen, "%s.npy: %s", es[i].name, why);
            return false;
        }
        if (owned && !a->owned)
            a->owned = owned; /* the inflated bytes back the array */
        else
            free(owned == a->owned ? NULL : owned);
        d->n++;
    }
    return true;
}
