/* lf_dump.h - what users write from a failing training step in one line:
 * .safetensors (tensors input, target, weight, pos_weight; loss and options in
 * __metadata__), .npz (numpy.savez, stored or deflated; options as 0-d
 * arrays), .npy (one array). Nothing is ever unpickled, and nothing is
 * skipped: an unknown name or an option that is not one clear value is an
 * error, since a dropped ignore_index makes the diagnosis wrong. Files are
 * mapped, not read: a 352 MB batch costs no copy, and every size, offset and
 * shape in a header is checked against the file before it is used. */
#ifndef LF_DUMP_H
#define LF_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "lf_case.h"

#define LF_DUMP_MAX_ARRAYS 64
#define LF_DUMP_MAX_META 16                      /* more than the known keys: a longer __metadata__ is refused */
#define LF_DUMP_MAX_HEADER ((size_t)1 << 24)     /* 16 MiB of header: far more than any real one */
#define LF_DUMP_MAX_INFLATED ((uint64_t)1 << 32) /* 4 GiB: a deflated entry may not claim more */

typedef struct {
    void *base;
    size_t size;
} lf_mapped;

bool lf_map_file(const char *path, lf_mapped *m, char *err, size_t errlen);
void lf_unmap(lf_mapped *m);

/* One array of a dump: its bytes are in the mapped file (or in `owned`, for a
 * deflated .npz entry or a Fortran-order array made C-contiguous). Strings
 * (numpy '<U', safetensors metadata) are kept as text. */
typedef struct {
    char name[64];
    lf_dtype dtype;
    int ndim;
    int64_t shape[LF_MAX_DIMS];
    int64_t numel;
    const uint8_t *data;
    void *owned;
    bool column_major; /* a Fortran-order .npy (a transposed tensor's .numpy()): data is
                          * row-major now, the kernels get it column-major */
    char text[64];     /* a 0-d string array's value */
    bool is_text;
} lf_array;

/* A safetensors __metadata__ entry. The format says values are strings; a
 * plain JSON number is kept too, as its shortest text, and each option
 * decides whether a number can mean what it needs. */
typedef struct {
    char key[32];
    char value[64];
    bool is_number, is_integer;
} lf_meta;

typedef struct {
    lf_array arrays[LF_DUMP_MAX_ARRAYS];
    int n;
    lf_meta meta[LF_DUMP_MAX_META];
    int n_meta;
} lf_dump;

void lf_dump_free(lf_dump *d);

/* Parsers over bytes already in memory. false: err names the problem. */
bool lf_npy_parse(const uint8_t *buf, size_t len, const char *name, lf_array *a, char *err, size_t errlen);
bool lf_npz_parse(const uint8_t *buf, size_t len, lf_dump *d, char *err, size_t errlen);
bool lf_safetensors_parse(const uint8_t *buf, size_t len, lf_dump *d, char *err, size_t errlen);

/* Checks a shape against LF_MAX_NUMEL without overflowing, and the bytes it needs. */
bool lf_shape_bytes(const int64_t *shape, int ndim, lf_dtype dtype, int64_t *numel, uint64_t *bytes, char *err,
                    size_t errlen);

/* The names a dump may use: arrays name a tensor (input/logits,
 * target/labels/mask, weight, pos_weight) or an option (loss, reduction,
 * ignore_index, label_smoothing); __metadata__ keys name an option (or are
 * "format", which safetensors writers add and lossfuzz ignores). false: err
 * names the unknown name, the closest known one and the list. */
bool lf_dump_check_array_name(const char *name, char *err, size_t errlen);
bool lf_dump_check_meta_key(const char *key, char *err, size_t errlen);

/* The case of a parsed dump (arrays by name, options). */
bool lf_dump_to_case(const lf_dump *d, lf_case *c, char *err, size_t errlen);

/* The options of a parsed dump into the case: each from __metadata__ or an
 * array (0-d, or 1-D with one element), not both, of a type that fits. */
bool lf_dump_options(const lf_dump *d, lf_case *c, char *err, size_t errlen);

/* The formats of the files a user hands lossfuzz, sniffed once (lf_format.c):
 * by the file's name, and by its first bytes; a format's name for messages
 * ("JSON case", ".npz (zip) file", ...) and what its files start with. */
typedef enum {
    LF_FORMAT_NONE,
    LF_FORMAT_JSON,
    LF_FORMAT_NPZ,
    LF_FORMAT_SAFETENSORS,
    LF_FORMAT_NPY,
    LF_FORMAT_COUNT
} lf_format;
lf_format lf_format_of_name(const char *path);
lf_format lf_format_of_bytes(const uint8_t *b, size_t n);
const char *lf_format_name(lf_format f);
const char *lf_format_start(lf_format f);

/* A dump file (any of the formats, by its magic bytes) as a case. Tensors
 * borrow the mapping, which must outlive the case. */
bool lf_dump_load(const lf_mapped *m, const char *path, lf_dump *d, lf_case *c, char *err, size_t errlen);

#endif
