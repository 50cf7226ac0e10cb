/* lf_data.h - lossfuzz's own files (the Python worker, the seed corpora) where
 * they are: the source tree it was built from, else, for an installed lossfuzz,
 * <prefix>/share/lossfuzz beside its bin/. */
#ifndef LF_DATA_H
#define LF_DATA_H

#include <stdbool.h>
#include <stddef.h>

/* The path of `rel` (e.g. "python/lossfuzz_worker.py", "corpus/fuzz_class")
 * into out; false when neither place has it (out then holds the source tree's
 * path, or, in a wheel, rel itself: not to be used). */
bool lf_data_path(const char *rel, char *out, size_t len);

/* NAME beside the lossfuzz executable (out); false when it is not there or not
 * executable. Installed by pip into a virtual environment's bin/, lossfuzz
 * finds that environment's python3 there. */
bool lf_beside_exe(const char *name, char *out, size_t len);

#endif
