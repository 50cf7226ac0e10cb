/* lf_file.c - atomic file writes. */
#include "lf_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

bool lf_write_atomically(const char *dir, const char *name, const void *bytes, size_t len)
{
    char tmp[4096], path[4096];
    snprintf(tmp, sizeof tmp, "%s/.tmp-%ld-%s", dir, (long)getpid(), name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return false;
    bool ok = write(fd, bytes, len) == (ssize_t)len && fsync(fd) == 0;
    ok &= close(fd) == 0;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) unlink(tmp);
    return ok;
}
