/* lf_fuzz.h - what the fuzz targets share beyond the byte format
 * (harness/model/bytes/lf_bytes.h): the oracle check that turns a finding into a
 * crash with a DEDUP_TOKEN, or a campaign's ledger entry. */
#ifndef LF_FUZZ_H
#define LF_FUZZ_H

#include "lf_bytes.h"

/* Runs the oracle on the case (after lf_fuzz_features: its structure as
 * coverage). A finding prints the case and
 * "DEDUP_TOKEN: <finding class>", saves the input and its JSON case atomically
 * under $LOSSFUZZ_FINDINGS (when set), and aborts. $LOSSFUZZ_BACKEND picks the
 * backend (sim by default), $LOSSFUZZ_ASSERTS=hard runs real asserts in
 * executor workers, $LOSSFUZZ_TORCH=1 adds PyTorch (lf_paths.h; the
 * worker defaults to the lossfuzz of the target's build, a case's watchdog to
 * 10 s). $LOSSFUZZ_INJECT=finding|crash|hang makes every
 * case fail that way: the replay runner's self-test. */
void lf_fuzz_check(const lf_case *c, const uint8_t *data, size_t size);

/* Decodes the input as target t's format and checks it (lf_fuzz_check). */
void lf_fuzz_decoded(lf_target t, const uint8_t *data, size_t size);

/* Whether a case's recorded expectations count ($LOSSFUZZ_EXPECT=1: replaying
 * regressions), read once by LLVMFuzzerInitialize. */
extern int lf_fuzz_judge_expectations;

#endif
