/* lf_bytes.h - the byte format of a case (what the fuzz targets, the
 * mutators, `lossfuzz fuzz`, `encode` and the loader of crash files share),
 * its structure-aware mutator, and the fuzz targets' one list (lf_targets.def).
 *
 * Byte format (style.md #3, a data producer): the case's parameters (loss,
 * rank, sizes, dtypes, options: LF_N_PARAMS bytes) are read from the END of the
 * input, one byte each, and the payload from the START: labels (2 bytes each),
 * then logits (raw float32, 4 bytes each), then weights when they come from the
 * payload. Weights are mostly generated from parameters (seeded, with special
 * values), so wide rows get them too; logits past the payload's end are zero,
 * or seeded normals (P_FILL). Input and target get a memory layout
 * (P_IN_LAYOUT, P_TGT_LAYOUT: transposed, channels-last, padded rows, an
 * offset, expanded, every other slice). Bytes that run out read as zero, and
 * all-zero bytes give the simplest valid case: a 2-D [1, 2] float32
 * cross_entropy with label 0 and zero logits, contiguous. */
#ifndef LF_BYTES_H
#define LF_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "lf_case.h"

#define LF_N_PARAMS 22              /* parameter bytes at the end of an input (P_COUNT) */
#define LF_FUZZ_MAX_NUMEL (1 << 12) /* decoded tensors stay small: executions stay fast */
/* Rows past LF_BLOCK_ROW classes (the block path, every LLM vocabulary): a
 * row of 50,257 classes and a target with a row too many, or a [2, C]
 * weight, fit; the decoder keeps such inputs to a few rows (lf_decode.c). */
#define LF_FUZZ_WIDE_NUMEL (1 << 17)

/* RAW: a target over plain bytes (the dump loaders): libFuzzer's own mutations.
 * LINEAR: fused linear + cross-entropy, for kernels under test that claim it.
 * LLM: class-index cross_entropy with the LLM family's options (lf_options.def). */
typedef enum {
    LF_TARGET_CLASS,
    LF_TARGET_PROB,
    LF_TARGET_JSON,
    LF_TARGET_RAW,
    LF_TARGET_LINEAR,
    LF_TARGET_LLM,
    LF_TARGET_COUNT
} lf_target;

/* The fuzz targets (lf_targets.def, their one list): the i-th's name (NULL past
 * the last), what its inputs are and what it fuzzes. */
int lf_fuzz_target_count(void);
const char *lf_fuzz_target_at(int i, lf_target *input, const char **what);
/* The first fuzz target whose inputs are t: fuzz_class, fuzz_prob, fuzz_json, fuzz_linear. */
const char *lf_target_name(lf_target t);
/* A fuzz target's name, or the name without "fuzz_", to what its inputs are. */
bool lf_target_parse(const char *name, lf_target *out);
/* The targets' names, ", " between them; crash_files_only: those whose crash
 * files lossfuzz reads with --target (not the loaders': theirs are dumps). */
void lf_fuzz_target_list(char *buf, size_t len, bool crash_files_only);
/* The element limit a target's process sets (lf_numel_limit): the wide one
 * for the targets whose decoder makes rows past LF_BLOCK_ROW classes. */
int64_t lf_fuzz_numel_limit(lf_target t);

/* Where the payload's parts sit in an input, in bytes (for the mutator; a
 * tensor's memory layout is harness/model/case/lf_layout.h's). */
typedef struct {
    size_t payload;            /* bytes before the parameters */
    size_t n_labels, label_at; /* 2-byte labels (class target) */
    size_t n_values, value_at; /* 4-byte floats: logits, then targets (prob target) */
} lf_byte_map;

/* Decodes bytes into a case; false (c left empty, to free as any case) for an
 * input whose loss byte names no loss of its target (lf_losses.def's CODE):
 * skipped, never read as another loss. Every other byte string is a case. */
bool lf_decode(lf_target t, const uint8_t *data, size_t size, lf_case *c, lf_byte_map *layout);

/* Only where the payload's parts sit (cheap: no values are decoded). */
void lf_decode_byte_map(lf_target t, const uint8_t *data, size_t size, lf_byte_map *layout);

/* The inverse, where the case is representable (for seed corpora); returns the
 * number of bytes written to out (at most cap), or 0 when it is not. */
size_t lf_encode(lf_target t, const lf_case *c, uint8_t *out, size_t cap);

/* Structure-aware mutation in place: shapes, dtypes, options, single labels to
 * boundary values, logits to special values; else `fallback` (libFuzzer's
 * LLVMFuzzerMutate, or random byte changes when NULL). Returns the new size. */
typedef size_t (*lf_byte_mutator)(uint8_t *data, size_t size, size_t max_size);
size_t lf_mutate(lf_target t, uint8_t *data, size_t size, size_t max_size, unsigned seed, lf_byte_mutator fallback);
/* Parameters of one input with the payload of another. */
size_t lf_cross_over(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, uint8_t *out, size_t max_size,
                     unsigned seed);

#endif
