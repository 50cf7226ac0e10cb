/* lf_data.h - lossfuzz's own files (the Python worker, the seed corpora) where
 * they are: the source tree it was built from, else, for an installed lossfuzz,
 * <prefix>/share/lossfuzz beside its bin/. */
#ifndef LF_DATA_H
#define LF_DATA_H

#include <stdbool.h>
#include <stddef.h>

/* The path of `rel` (e.g. "python/lossfuzz_worker.py", "corpus/fuzz_class")
 * into out; false (out: the source tree's path) when neither place has it. */
bool lf_data_path(const char *rel, char *out, size_t len);

#endif
