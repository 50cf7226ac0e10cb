/* lf_fuzz_dump.h - the loader fuzz targets' shared body: parse the bytes as
 * one dump format (ASan + UBSan watch the parser), and when they make a case,
 * send it through the oracle like any other. */
#ifndef LF_FUZZ_DUMP_H
#define LF_FUZZ_DUMP_H

#include "lf_dump.h"
#include "lf_fuzz.h"

typedef bool (*lf_dump_parser)(const uint8_t *buf, size_t len, lf_dump *d, char *err, size_t errlen);

static inline void lf_fuzz_dump(lf_dump_parser parse, const uint8_t *data, size_t size)
{
    lf_dump d = {0};
    lf_case c;
    char err[512];
    if (parse(data, size, &d, err, sizeof err) && lf_dump_to_case(&d, &c, err, sizeof err)) {
        if (c.input.numel <= LF_FUZZ_MAX_NUMEL && c.target.numel <= LF_FUZZ_MAX_NUMEL) lf_fuzz_check(&c, data, size);
        lf_case_free(&c);
    }
    lf_dump_free(&d);
}

#endif
