/* lf_file.h - writing files that must never be half-written (findings, regressions). */
#ifndef LF_FILE_H
#define LF_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Writes DIR/NAME through a temporary file in DIR, fsync and rename: a reader
 * (or a run that dies) sees the old file or the whole new one. */
bool lf_write_atomically(const char *dir, const char *name, const void *bytes, size_t len);

#endif
