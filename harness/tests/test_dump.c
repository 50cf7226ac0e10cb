/* test_dump.c - the dump loaders on good files and on every kind of bad one:
 * truncated, lying headers (sizes that overflow, offsets past the end, huge
 * header lengths), overlapping or gapped safetensors offsets, duplicate names,
 * unsupported dtypes, Fortran order, damaged or oversized zip entries; and
 * options that must not be dropped: unknown names, wrong shapes and types,
 * metadata that is not a string. Each bad file must give a clear error, never
 * a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "lf_dump.h"
#include "lf_test_util.h"

typedef struct {
    uint8_t b[8192];
    size_t n;
} buf;

static void put(buf *o, const void *p, size_t n)
{
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
static void put16(buf *o, unsigned v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(o, x, 2);
}
static void put32(buf *o, uint32_t v)
{
    put16(o, v & 0xffff);
    put16(o, v >> 16);
}

/* A .npy v1 file: header padded to 64 bytes, then `data`. */
static buf npy(const char *descr, const char *fortran, const char *shape, const void *data, size_t n)
{
    buf o = {0};
    char h[256];
    int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, fortran, shape);
    while ((10 + len + 1) % 64) h[len++] = ' ';
    h[len++] = '\n';
    put(&o, "\x93NUMPY\x01\x00", 8);
    put16(&o, (unsigned)len);
    put(&o, h, (size_t)len);
    put(&o, data, n);
    return o;
}

static void expect_npy_error(buf f, const char *needle)
{
    lf_array a;
    char err[512] = "";
    if (lf_npy_parse(f.b, f.n, "x", &a, err, sizeof err)) fail_msg("accepted; wanted an error about \"%s\"", needle);
    if (!strstr(err, needle)) fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

static const float six[6] = {0, 1, 2, 3, 4, 5};

static void npy_good_and_fortran(void **state)
{
    (void)state;
    lf_array a;
    char err[256];
    buf f = npy("<f4", "False", "(2, 3)", six, sizeof six);
    assert_true(lf_npy_parse(f.b, f.n, "x", &a, err, sizeof err));
    assert_int_equal(a.numel, 6);
    assert_true(lf_load_f64(a.data, a.dtype, 5) == 5.0);
    free(a.owned);
    f = npy("<f4", "True", "(2, 3)", six, sizeof six); /* column-major: element (i, j) at j*2 + i */
    assert_true(lf_npy_parse(f.b, f.n, "x", &a, err, sizeof err));
    assert_true(lf_load_f64(a.data, a.dtype, 1) == 2.0); /* (0, 1) */
    assert_true(lf_load_f64(a.data, a.dtype, 3) == 1.0); /* (1, 0) */
    assert_true(a.column_major);                         /* a case made of it keeps the layout (lf_dump_to_case) */
    free(a.owned);
    uint8_t text[16] = {'m', 0, 0, 0, 'e', 0, 0, 0, 'a', 0, 0, 0, 'n', 0, 0, 0};
    f = npy("<U4", "False", "()", text, sizeof text);
    assert_true(lf_npy_parse(f.b, f.n, "reduction", &a, err, sizeof err));
    assert_string_equal(a.text, "mean");
}

static void npy_bad_files(void **state)
{
    (void)state;
    buf f = npy("<f4", "False", "(2, 3)", six, sizeof six);
    buf cut = f;
    cut.n -= 4;
    expect_npy_error(cut, "truncated");
    cut.n = 9;
    expect_npy_error(cut, "bad magic"); /* too short to hold a header length */
    buf lying = f;
    lying.b[8] = 0xff, lying.b[9] = 0xff;
    expect_npy_error(lying, "runs past the end");
    expect_npy_error(npy(">f4", "False", "(2, 3)", six, sizeof six), "big-endian");
    expect_npy_error(npy("<c8", "False", "(3,)", six, sizeof six), "not supported");
    expect_npy_error(npy("<f4", "False", "(4294967296, 4294967296)", six, sizeof six), "more than");
    expect_npy_error(npy("<f4", "False", "(-1, 3)", six, sizeof six), "non-negative");
    buf structured = npy("<f4", "False", "(2, 3)", six, sizeof six);
    memcpy(structured.b + 10, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 66);
    expect_npy_error(structured, "structured");
    buf magic = f;
    magic.b[1] = 'X';
    expect_npy_error(magic, "bad magic");
}

/* A safetensors file from a header string and data bytes. */
static buf safetensors(const char *header, const void *data, size_t n)
{
    buf o = {0};
    uint64_t len = strlen(header);
    for (int i = 0; i < 8; i++) {
        uint8_t byte = (uint8_t)(len >> (8 * i));
        put(&o, &byte, 1);
    }
    put(&o, header, len);
    put(&o, data, n);
    return o;
}

static void expect_dump_error(bool (*parse)(const uint8_t *, size_t, lf_dump *, char *, size_t), buf f,
                              const char *needle)
{
    lf_dump d = {0};
    char err[512] = "";
    bool ok = parse(f.b, f.n, &d, err, sizeof err);
    lf_dump_free(&d);
    if (ok) fail_msg("accepted; wanted an error about \"%s\"", needle);
    if (!strstr(err, needle)) fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

static void safetensors_good_and_bad(void **state)
{
    (void)state;
    lf_dump d = {0};
    lf_case c;
    char err[512];
    int64_t target[2] = {0, 2};
    uint8_t data[32];
    memcpy(data, six, 24);
    memcpy(data + 24, target, 8);
    buf f = safetensors("{\"input\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 24]},"
                        " \"target\": {\"dtype\": \"I64\", \"shape\": [1], \"data_offsets\": [24, 32]},"
                        " \"__metadata__\": {\"ignore_index\": \"2\", \"reduction\": \"sum\"}}",
                        data, 32);
    assert_true(lf_safetensors_parse(f.b, f.n, &d, err, sizeof err));
    assert_true(lf_dump_to_case(&d, &c, err, sizeof err));
    assert_int_equal(c.ignore_index, 2);
    assert_int_equal(c.reduction, LF_REDUCTION_SUM);
    lf_case_free(&c);
    lf_dump_free(&d);
    expect_dump_error(
        lf_safetensors_parse,
        safetensors("{\"input\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 240]}}", data, 24),
        "outside");
    expect_dump_error(
        lf_safetensors_parse,
        safetensors("{\"input\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 20]}}", data, 24),
        "need");
    expect_dump_error(
        lf_safetensors_parse,
        safetensors("{\"input\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 24]}, \"input\": {}}",
                    data, 24),
        "duplicate");
    expect_dump_error(
        lf_safetensors_parse,
        safetensors("{\"input\": {\"dtype\": \"C64\", \"shape\": [1], \"data_offsets\": [0, 8]}}", data, 8),
        "not supported");
    expect_dump_error(
        lf_safetensors_parse,
        safetensors(
            "{\"x\": {\"dtype\": \"F32\", \"shape\": [1099511627776, 1099511627776], \"data_offsets\": [0, 4]}}", data,
            8),
        "more than");
    expect_dump_error(lf_safetensors_parse, safetensors("{\"input\": ", data, 0), "not a JSON object");
    buf huge = f;
    memset(huge.b, 0xff, 8); /* header length 2^64 - 1 */
    expect_dump_error(lf_safetensors_parse, huge, "header length");
    buf cut = f;
    cut.n = 5;
    expect_dump_error(lf_safetensors_parse, cut, "truncated");
}

/* A zip of (name, bytes) entries, stored or deflated. */
typedef struct {
    const char *name;
    const uint8_t *data;
    size_t n;
    bool deflate;
} zip_entry;

static buf zip(const zip_entry *es, int count)
{
    buf o = {0};
    uint32_t offsets[8], csizes[8], crcs[8];
    static uint8_t packed[8][4096];
    for (int i = 0; i < count; i++) {
        const uint8_t *bytes = es[i].data;
        size_t cn = es[i].n;
        if (es[i].deflate) {
            z_stream z = {0};
            deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
            z.next_in = (Bytef *)es[i].data, z.avail_in = (uInt)es[i].n;
            z.next_out = packed[i], z.avail_out = sizeof packed[i];
            deflate(&z, Z_FINISH);
            cn = z.total_out;
            deflateEnd(&z);
            bytes = packed[i];
        }
        offsets[i] = (uint32_t)o.n, csizes[i] = (uint32_t)cn;
        crcs[i] = (uint32_t)crc32(0, es[i].data, (uInt)es[i].n);
        put32(&o, 0x04034b50);
        put16(&o, 20);
        put16(&o, 0);
        put16(&o, es[i].deflate ? 8 : 0);
        put32(&o, 0);
        put32(&o, crcs[i]);
        put32(&o, (uint32_t)cn);
        put32(&o, (uint32_t)es[i].n);
        put16(&o, (unsigned)strlen(es[i].name));
        put16(&o, 0);
        put(&o, es[i].name, strlen(es[i].name));
        put(&o, bytes, cn);
    }
    uint32_t cd = (uint32_t)o.n;
    for (int i = 0; i < count; i++) {
        put32(&o, 0x02014b50);
        put16(&o, 20);
        put16(&o, 20);
        put16(&o, 0);
        put16(&o, es[i].deflate ? 8 : 0);
        put32(&o, 0);
        put32(&o, crcs[i]);
        put32(&o, csizes[i]);
        put32(&o, (uint32_t)es[i].n);
        put16(&o, (unsigned)strlen(es[i].name));
        put16(&o, 0);
        put16(&o, 0);
        put16(&o, 0);
        put16(&o, 0);
        put32(&o, 0);
        put32(&o, offsets[i]);
        put(&o, es[i].name, strlen(es[i].name));
    }
    uint32_t cd_size = (uint32_t)o.n - cd;
    put32(&o, 0x06054b50);
    put16(&o, 0);
    put16(&o, 0);
    put16(&o, (unsigned)count);
    put16(&o, (unsigned)count);
    put32(&o, cd_size);
    put32(&o, cd);
    put16(&o, 0);
    return o;
}

static void npz_good_and_bad(void **state)
{
    (void)state;
    int64_t target[2] = {0, 3};
    buf x = npy("<f4", "False", "(2, 3)", six, sizeof six), t = npy("<i8", "False", "(2,)", target, sizeof target);
    zip_entry es[2] = {{"input.npy", x.b, x.n, false}, {"target.npy", t.b, t.n, true}};
    buf f = zip(es, 2);
    lf_dump d = {0};
    lf_case c;
    char err[512];
    assert_true(lf_npz_parse(f.b, f.n, &d, err, sizeof err));
    assert_true(lf_dump_to_case(&d, &c, err, sizeof err));
    assert_int_equal(lf_load_i64(c.target.data, c.target.dtype, 1), 3);
    lf_case_free(&c);
    lf_dump_free(&d);
    buf cut = f;
    cut.n -= 30;
    expect_dump_error(lf_npz_parse, cut, "no end of central directory");
    buf damaged = f;
    damaged.b[100] ^= 0x55; /* inside input.npy's data */
    expect_dump_error(lf_npz_parse, damaged, "CRC mismatch");
    zip_entry twice[2] = {{"input.npy", x.b, x.n, false}, {"input.npy", x.b, x.n, false}};
    expect_dump_error(lf_npz_parse, zip(twice, 2), "duplicate");
    buf bomb = zip(es, 2);
    size_t cd = bomb.n - 22 - (46 + 10) - (46 + 9); /* the central entry of target.npy: claim 1 GiB */
    uint32_t gib = 1u << 30;
    memcpy(bomb.b + cd + 46 + 9 + 24, &gib, 4);
    expect_dump_error(lf_npz_parse, bomb, "zip bomb");
    buf far = zip(es, 1);
    uint32_t past = 1u << 20;
    memcpy(far.b + far.n - 22 - (46 + 9) + 42, &past, 4); /* local header offset past the end */
    expect_dump_error(lf_npz_parse, far, "out of bounds");
}

/* Parses a dump and makes its case: errors from either step land in err. */
typedef bool (*dump_parser)(const uint8_t *, size_t, lf_dump *, char *, size_t);

static bool load_case(dump_parser parse, buf f, lf_dump *d, lf_case *c, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    lf_case_init(c);
    return parse(f.b, f.n, d, err, errlen) && lf_dump_to_case(d, c, err, errlen);
}

/* The dump must be refused, and the error must say both needles. */
static void expect_refused(dump_parser parse, buf f, const char *needle, const char *needle2)
{
    lf_dump d;
    lf_case c;
    char err[512] = "";
    bool ok = load_case(parse, f, &d, &c, err, sizeof err);
    if (ok) lf_case_free(&c);
    lf_dump_free(&d);
    if (ok) fail_msg("accepted; wanted an error about \"%s\"", needle);
    if (!strstr(err, needle) || !strstr(err, needle2))
        fail_msg("error \"%s\" does not mention \"%s\" and \"%s\"", err, needle, needle2);
}

/* input [2, 3], target [2] and one more array, as np.savez writes them. */
static buf npz_with(const char *name, buf extra)
{
    static const int64_t target[2] = {0, 2};
    static buf x, t;
    x = npy("<f4", "False", "(2, 3)", six, sizeof six), t = npy("<i8", "False", "(2,)", target, sizeof target);
    zip_entry es[3] = {
        {"input.npy", x.b, x.n, false}, {"target.npy", t.b, t.n, false}, {name, extra.b, extra.n, false}};
    return zip(es, 3);
}

static void npz_options_refused(void **state)
{
    (void)state;
    const int64_t i255 = 255, two[2] = {255, 0};
    const double half = 255.5;
    const float three[3] = {0.1f, 0.1f, 0.1f};
    const uint8_t yes = 1, abc[12] = {'a', 0, 0, 0, 'b', 0, 0, 0, 'c', 0, 0, 0}, empty[4] = {0};
    expect_refused(lf_npz_parse, npz_with("ignore_idx.npy", npy("<i8", "False", "()", &i255, 8)), "ignore_idx",
                   "did you mean ignore_index");
    expect_refused(lf_npz_parse, npz_with("ignore_index.npy", npy("<i8", "False", "(2,)", two, 16)), "ignore_index",
                   "[2]");
    expect_refused(lf_npz_parse, npz_with("ignore_index.npy", npy("<f8", "False", "()", &half, 8)), "ignore_index",
                   "255.5");
    expect_refused(lf_npz_parse, npz_with("ignore_index.npy", npy("|b1", "False", "()", &yes, 1)), "ignore_index",
                   "bool");
    expect_refused(lf_npz_parse, npz_with("ignore_index.npy", npy("<U1", "False", "()", empty, 4)), "ignore_index",
                   "not an integer");
    expect_refused(lf_npz_parse, npz_with("label_smoothing.npy", npy("<f4", "False", "(3,)", three, 12)),
                   "label_smoothing", "[3]");
    expect_refused(lf_npz_parse, npz_with("label_smoothing.npy", npy("<U3", "False", "()", abc, 12)), "label_smoothing",
                   "abc");
    expect_refused(lf_npz_parse, npz_with("loss.npy", npy("<i8", "False", "()", &i255, 8)), "loss", "string");
    expect_refused(lf_npz_parse, npz_with("weight.npy", npy("<U3", "False", "()", abc, 12)), "weight", "string");
    expect_refused(lf_npz_parse, npz_with("logits.npy", npy("<f4", "False", "(2, 3)", six, sizeof six)), "input",
                   "logits");
}

static void npz_options_accepted(void **state)
{
    (void)state;
    const int64_t i255 = 255;
    const uint8_t tenth[12] = {'0', 0, 0, 0, '.', 0, 0, 0, '1', 0, 0, 0};
    lf_dump d;
    lf_case c;
    char err[512] = "";
    /* A 1-element 1-D array ([255], torch.tensor([255])) holds one value: read as it. */
    if (!load_case(lf_npz_parse, npz_with("ignore_index.npy", npy("<i8", "False", "(1,)", &i255, 8)), &d, &c, err,
                   sizeof err))
        fail_msg("%s", err);
    assert_true(c.has_ignore_index);
    assert_int_equal(c.ignore_index, 255);
    lf_case_free(&c);
    lf_dump_free(&d);
    if (!load_case(lf_npz_parse, npz_with("label_smoothing.npy", npy("<U3", "False", "()", tenth, 12)), &d, &c, err,
                   sizeof err))
        fail_msg("%s", err);
    assert_true(c.has_label_smoothing && c.label_smoothing == 0.1);
    lf_case_free(&c);
    lf_dump_free(&d);
}

/* input [2, 3] and target [1] in 32 data bytes, with the given __metadata__ and extra entries. */
static buf safetensors_meta(const char *meta, const char *more)
{
    static uint8_t data[40];
    char h[2048];
    memcpy(data, six, 24);
    memset(data + 24, 0, 16);
    snprintf(h, sizeof h,
             "{\"input\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 24]},"
             " \"target\": {\"dtype\": \"I64\", \"shape\": [1], \"data_offsets\": [24, 32]}%s%s%s}",
             meta ? ", \"__metadata__\": " : "", meta ? meta : "", more);
    return safetensors(h, data, strlen(more) ? 40 : 32);
}

static void safetensors_metadata(void **state)
{
    (void)state;
    lf_dump d;
    lf_case c;
    char err[512] = "";
    /* The format says strings; a plain number is accepted where it cannot mean two things. */
    if (!load_case(lf_safetensors_parse,
                   safetensors_meta("{\"ignore_index\": 255, \"label_smoothing\": 0.1, \"format\": \"pt\"}", ""), &d,
                   &c, err, sizeof err))
        fail_msg("%s", err);
    assert_true(c.has_ignore_index && c.has_label_smoothing);
    assert_int_equal(c.ignore_index, 255);
    assert_true(c.label_smoothing == 0.1);
    lf_case_free(&c);
    lf_dump_free(&d);
    expect_refused(lf_safetensors_parse, safetensors_meta("{\"ignore_index\": 255.5}", ""), "ignore_index", "255.5");
    expect_refused(lf_safetensors_parse, safetensors_meta("{\"ignore_index\": [255]}", ""), "ignore_index", "array");
    expect_refused(lf_safetensors_parse, safetensors_meta("{\"ignore_index\": null}", ""), "ignore_index", "null");
    expect_refused(lf_safetensors_parse, safetensors_meta("{\"label_smoothing\": true}", ""), "label_smoothing",
                   "true");
    expect_refused(lf_safetensors_parse, safetensors_meta("{\"reduction\": {\"x\": 1}}", ""), "reduction", "object");
    expect_refused(lf_safetensors_parse, safetensors_meta("{\"loss\": 3}", ""), "loss", "string");
    expect_refused(lf_safetensors_parse, safetensors_meta("{\"ignore_idx\": \"255\"}", ""), "ignore_idx",
                   "did you mean ignore_index");
    expect_refused(lf_safetensors_parse, safetensors_meta("\"ignore_index=255\"", ""), "__metadata__", "object");
    expect_refused(
        lf_safetensors_parse,
        safetensors_meta("{\"k0\": \"\", \"k1\": \"\", \"k2\": \"\", \"k3\": \"\", \"k4\": \"\", \"k5\": \"\","
                         " \"k6\": \"\", \"k7\": \"\", \"k8\": \"\", \"k9\": \"\", \"k10\": \"\", \"k11\": \"\", "
                         "\"k12\": \"\", \"k13\": \"\","
                         " \"k14\": \"\", \"k15\": \"\", \"k16\": \"\"}",
                         ""),
        "k0", "unknown");
    expect_refused(
        lf_safetensors_parse,
        safetensors_meta("{\"ignore_index\": \"255\"}",
                         ", \"ignore_index\": {\"dtype\": \"I64\", \"shape\": [], \"data_offsets\": [32, 40]}"),
        "ignore_index", "twice");
    expect_refused(
        lf_safetensors_parse,
        safetensors_meta(NULL, ", \"ignore_idx\": {\"dtype\": \"I64\", \"shape\": [], \"data_offsets\": [32, 40]}"),
        "ignore_idx", "did you mean ignore_index");
}

/* Offsets must tile the data exactly, as the safetensors format requires. */
static void safetensors_offsets(void **state)
{
    (void)state;
    uint8_t data[48] = {0};
    const char *in = "{\"input\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [%d, %d]},"
                     " \"target\": {\"dtype\": \"I64\", \"shape\": [%d], \"data_offsets\": [%d, %d]}}";
    char h[512];
    snprintf(h, sizeof h, in, 0, 24, 1, 16, 24); /* target inside input */
    expect_refused(lf_safetensors_parse, safetensors(h, data, 24), "target", "overlap");
    expect_refused(lf_safetensors_parse, safetensors(h, data, 24), "input", "overlap");
    snprintf(h, sizeof h, in, 0, 24, 3, 0, 24); /* the same bytes twice */
    expect_refused(lf_safetensors_parse, safetensors(h, data, 24), "target", "overlap");
    snprintf(h, sizeof h, in, 0, 24, 1, 28, 36); /* 4 bytes between */
    expect_refused(lf_safetensors_parse, safetensors(h, data, 36), "4 bytes", "no tensor");
    snprintf(h, sizeof h, in, 4, 28, 1, 28, 36); /* 4 bytes before */
    expect_refused(lf_safetensors_parse, safetensors(h, data, 36), "4 bytes", "no tensor");
    snprintf(h, sizeof h, in, 0, 24, 1, 24, 32); /* 8 bytes after */
    expect_refused(lf_safetensors_parse, safetensors(h, data, 40), "8 bytes", "after");
    lf_dump d = {0};
    char err[512];
    snprintf(h, sizeof h, in, 0, 24, 0, 24, 24); /* an empty target takes no bytes */
    buf f = safetensors(h, data, 24);
    if (!lf_safetensors_parse(f.b, f.n, &d, err, sizeof err)) fail_msg("%s", err);
    lf_dump_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(npy_good_and_fortran),     cmocka_unit_test(npy_bad_files),
        cmocka_unit_test(safetensors_good_and_bad), cmocka_unit_test(npz_good_and_bad),
        cmocka_unit_test(npz_options_refused),      cmocka_unit_test(npz_options_accepted),
        cmocka_unit_test(safetensors_metadata),     cmocka_unit_test(safetensors_offsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
