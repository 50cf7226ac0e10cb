/* lf_map.c - read-only file mappings. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lf_dump.h"

bool lf_map_file(const char *path, lf_mapped *m, char *err, size_t errlen)
{
    struct stat st;
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY | O_NONBLOCK); /* a FIFO must not hang the open */
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular file");
        close(fd);
        return false;
    }
    m->size = (size_t)st.st_size;
    if (m->size > 0) {
        m->base = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m->base == MAP_FAILED) {
            snprintf(err, errlen, "cannot map: %s", strerror(errno));
            m->base = NULL;
            close(fd);
            return false;
        }
    }
    close(fd);
    return true;
}

void lf_unmap(lf_mapped *m)
{
    if (m->base) munmap(m->base, m->size);
    memset(m, 0, sizeof *m);
}
