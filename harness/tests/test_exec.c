/* test_exec.c - the executor when workers fail: a fixed sequence of cases in
 * which workers assert (hard asserts), die of SIGSEGV, hang, exit, garble an
 * answer or answer "dead" (lf_worker.c's faults, LOSSFUZZ_WORKER_FAULTS=1),
 * with and without a warm spare. Every case must get exactly its outcome, the
 * case after a failure its right answer, and the executor's counts must match
 * what was injected. Then workers that cannot start, and the wire protocol.
 *
 *   test_exec LOSSFUZZ   (the lossfuzz binary serves as the C worker) */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lf_paths.h"
#include "lf_oracle.h"
#include "lf_test_util.h"

static const char *lossfuzz;

/* What each kind of case injects, and the outcome it must get. */
typedef struct {
    char kind;
    int ignore_index, label;     /* label 4 is out of range: a device assert */
    const char *finding, *error; /* NULL: the case passes */
    const char *says;            /* in the reference's message */
    int deaths, asserts, crashes, hangs, sticky, requests;
} fault;

/* A failure with two paths in flight is not pinned on either: each path runs
 * again alone, and fails again (3 deaths, 2 outcomes). The guard never asserts,
 * so an assert is pinned on the reference and only the guard runs again. */
static const fault faults[] = {
    {'o', -100, 3, NULL, NULL, NULL, 0, 0, 0, 0, 0, 1},
    {'A', -100, 4, NULL, NULL, NULL, 1, 1, 0, 0, 0, 2},
    {'S', -7001, 3, "crash/reference", "worker_crash", "SEGV", 3, 0, 2, 0, 0, 3}, /* SIGSEGV, or ASan's report */
    {'H', -7002, 3, "hang/reference", "worker_hang", "no answer in 0.4 s", 3, 0, 0, 2, 0, 3},
    {'X', -7003, 3, "crash/reference", "worker_crash", "exited with status", 3, 0, 2, 0, 0, 3},
    {'G', -7004, 3, "crash/reference", "worker_crash", "broke the protocol", 3, 0, 2, 0, 0, 3},
    {'D', -7005, 3, "cuda-error/reference", "cuda_error", "illegal memory access", 3, 0, 0, 0, 2, 3},
};

/* 60 cases: failures alone, back to back, and right after a start, under a
 * watchdog that never fires on them (a sanitizer's crash report can take longer
 * than a short one on a loaded machine). Hangs get a short watchdog of their own. */
static const char sequence[] = "AoSoooXoGoDoAAooSSoooooXDoGAooDoSoAoooGGoXXoooDAoSoooDoXoGoo";
static const char hangs[] = "oHAoGo";

static const fault *fault_of(char kind)
{
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (faults[i].kind == kind) return &faults[i];
    fail_msg("no fault '%c'", kind);
    return NULL;
}

static void make_case(lf_case *c, const fault *f, int seed)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"loss\": \"cross_entropy\", \"ignore_index\": %d, \"input\": {\"dtype\": \"float32\","
             " \"shape\": [3, 4], \"values\": {\"init\": \"randn\", \"seed\": %d}}, \"target\": {\"dtype\": \"int64\","
             " \"shape\": [3], \"values\": [0, %d, 1]}}",
             f->ignore_index, seed, f->label);
    lf_test_case(c, json);
}

static void expect_outcome(int i, const fault *f, const lf_verdict *v)
{
    const lf_result *ref = &v->reference, *g = &v->guard;
    if (!f->finding) {
        if (v->finding) fail_msg("case %d (%c): %s: %s", i, f->kind, v->finding_class, v->detail);
        if (f->kind == 'A' && (ref->kind != LF_OUTCOME_DEVICE_ASSERT || ref->kernel_id != v->spec.kernel_id ||
                               ref->cond_id != v->spec.cond_id || ref->index != -1 || v->spec.kernel_id == LF_K_NONE ||
                               strcmp(g->error, "label_out_of_range") || g->kind != LF_OUTCOME_HOST_ERROR))
            fail_msg("case %d: not the spec's device assert from the worker, the guard's rejection: %s; %s", i,
                     ref->message, g->message);
        if (f->kind == 'o' && (ref->kind != LF_OUTCOME_OK || g->kind != LF_OUTCOME_OK))
            fail_msg("case %d: reference %s, guard %s", i, ref->message, g->message);
        return;
    }
    if (!v->finding || strcmp(v->finding_class, f->finding))
        fail_msg("case %d (%c): finding %s, want %s", i, f->kind, v->finding ? v->finding_class : "none", f->finding);
    if (strcmp(ref->error, f->error) || strcmp(g->error, f->error) || !strstr(ref->message, f->says))
        fail_msg("case %d (%c): reference %s (%s), guard %s", i, f->kind, ref->error, ref->message, g->error);
}

/* A sequence through the oracle on hard-assert workers, then the counts. */
static void run_sequence(const char *seq, double timeout_s, bool no_spare)
{
    lf_paths_config cfg = {
        .backend = "sim", .hard_asserts = true, .no_spare = no_spare, .timeout_s = timeout_s, .worker = lossfuzz};
    char err[1536];
    const lf_backend *be = lf_paths_open(&cfg, err, sizeof err);
    if (!be) fail_msg("%s", err);
    lf_exec_stats want = {.worker_starts = no_spare ? 1 : 2};
    for (int i = 0; seq[i]; i++) {
        const fault *f = fault_of(seq[i]);
        lf_case c;
        lf_verdict v;
        make_case(&c, f, i);
        lf_oracle_check(&c, be, &v);
        expect_outcome(i, f, &v);
        lf_verdict_free(&v);
        lf_case_free(&c);
        want.deaths += f->deaths;
        want.worker_starts += f->deaths;
        want.asserts += f->asserts;
        want.crashes += f->crashes;
        want.hangs += f->hangs;
        want.sticky += f->sticky;
        want.requests += f->requests;
    }
    const lf_exec_stats *s = lf_exec_stats_of(be->exec);
    const struct {
        const char *name;
        int64_t got, want;
    } counts[] = {{"requests", s->requests, want.requests}, {"worker_starts", s->worker_starts, want.worker_starts},
                  {"deaths", s->deaths, want.deaths},       {"asserts", s->asserts, want.asserts},
                  {"crashes", s->crashes, want.crashes},    {"hangs", s->hangs, want.hangs},
                  {"sticky", s->sticky, want.sticky},       {"recoveries", s->recoveries, want.deaths}};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        if (counts[k].got != counts[k].want)
            fail_msg("%s: %lld, want %lld", counts[k].name, (long long)counts[k].got, (long long)counts[k].want);
    lf_paths_close(be);
}

static void every_case_gets_its_outcome(void **state)
{
    (void)state;
    run_sequence(sequence, 30, false);
}
static void without_a_spare_too(void **state)
{
    (void)state;
    run_sequence(sequence, 30, true);
}
static void hangs_too(void **state)
{
    (void)state;
    run_sequence(hangs, 0.4, false);
}
static void hangs_without_a_spare_too(void **state)
{
    (void)state;
    run_sequence(hangs, 0.4, true);
}

static void expect_start_error(const char *const *argv, double start_timeout_s, const char *needle)
{
    lf_exec_options o = {"test worker", argv, 1, start_timeout_s, 0, true};
    char err[1024] = "";
    lf_exec *x = lf_exec_start(&o, err, sizeof err);
    if (x) {
        lf_exec_stop(x);
        fail_msg("%s started", argv[0]);
    }
    if (!strstr(err, needle)) fail_msg("%s: the error says \"%s\", not \"%s\"", argv[0], err, needle);
}

static void a_worker_that_cannot_start_is_a_clear_error(void **state)
{
    (void)state;
    const char *const missing[] = {"/nonexistent/lossfuzz", "worker", NULL};
    const char *const liar[] = {"/bin/sh", "-c", "echo nonsense >&4", NULL};
    const char *const silent[] = {"/bin/sleep", "5", NULL};
    expect_start_error(missing, 0, "cannot start /nonexistent/lossfuzz");
    expect_start_error(liar, 0, "(/bin/sh) did not start: not a lossfuzz worker");
    expect_start_error(silent, 0.2, "(/bin/sleep) did not start: no hello in time");
    const char *workers[] = {"/bin/false", "/dev/null"};
    const char *says[] = {"sim worker (/bin/false) did not start", "worker /dev/null is not an executable"};
    for (int i = 0; i < 2; i++) {
        lf_paths_config cfg = {.backend = "sim", .hard_asserts = true, .worker = workers[i]};
        char err[1536] = "";
        const lf_backend *be = lf_paths_open(&cfg, err, sizeof err);
        if (be) {
            lf_paths_close(be);
            fail_msg("%s served as a worker", workers[i]);
        }
        if (!strstr(err, says[i])) fail_msg("the error says \"%s\", not \"%s\"", err, says[i]);
    }
}

/* Shared memory as a worker sees it: a memfd the request is written into. */
typedef struct {
    int fd;
    void *base;
    size_t size;
} test_shm;

static void shm_open_size(test_shm *s, size_t size)
{
    s->fd = memfd_create("test_exec", 0);
    assert_true(s->fd >= 0 && ftruncate(s->fd, (off_t)size) == 0);
    s->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    assert_true(s->base != MAP_FAILED);
    s->size = size;
}

static void shm_close(test_shm *s)
{
    munmap(s->base, s->size);
    close(s->fd);
}

static void tensor(lf_tensor *t, lf_dtype dtype, int ndim, const int64_t *shape)
{
    char err[256];
    if (!lf_tensor_alloc(t, dtype, ndim, shape, err, sizeof err)) fail_msg("%s", err);
    unsigned char *bytes = t->data;
    for (size_t b = 0; b < (size_t)t->numel * lf_dtype_size(dtype); b++) bytes[b] = (unsigned char)(b * 37 + 11);
}

static void same_tensor(const lf_tensor *a, const lf_tensor *b)
{
    assert_int_equal(a->present, b->present);
    if (!a->present) return;
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(a->ndim, b->ndim);
    assert_memory_equal(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim);
    assert_int_equal(a->numel, b->numel);
    if (a->numel) assert_memory_equal(a->data, b->data, (size_t)a->numel * lf_dtype_size(a->dtype));
}

static void a_request_round_trips(void **state)
{
    (void)state;
    lf_case c, back;
    lf_case_init(&c);
    c.loss = LF_LOSS_BCE_WITH_LOGITS;
    snprintf(c.reduction_name, sizeof c.reduction_name, "sum");
    c.reduction = LF_REDUCTION_SUM;
    c.ignore_index = -7;
    c.label_smoothing = NAN;
    tensor(&c.input, LF_F32, 2, (int64_t[]){3, 4});
    tensor(&c.target, LF_F32, 2, (int64_t[]){0, 21474836480}); /* empty, next to a dim past every limit */
    tensor(&c.weight, LF_F64, 1, (int64_t[]){4});
    tensor(&c.pos_weight, LF_F16, 1, (int64_t[]){4});
    const lf_wire_path paths[2] = {LF_WIRE_GUARD, LF_WIRE_REFERENCE};
    lf_wire_layout l;
    lf_wire_layout_of(&c, paths, 2, &l);
    test_shm s;
    shm_open_size(&s, l.shm_size);
    char *line = lf_wire_request(42, paths, 2, &c, &l, s.base);
    assert_non_null(line);
    lf_wire_request_info info;
    lf_wire_shm m = {s.fd, NULL, 0};
    char err[256] = "";
    if (!lf_wire_parse_request(line, &info, &back, &m, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(info.id, 42);
    assert_int_equal(info.n_paths, 2);
    assert_int_equal(info.paths[0], LF_WIRE_GUARD);
    assert_int_equal(info.paths[1], LF_WIRE_REFERENCE);
    assert_int_equal(info.layout.shm_size, l.shm_size);
    assert_int_equal(info.layout.out_at, l.out_at);
    assert_int_equal(info.layout.out_cap, l.out_cap);
    assert_int_equal(back.loss, c.loss);
    assert_string_equal(back.reduction_name, "sum");
    assert_int_equal(back.reduction, LF_REDUCTION_SUM);
    assert_int_equal(back.ignore_index, -7);
    assert_true(isnan(back.label_smoothing));
    same_tensor(&c.input, &back.input);
    same_tensor(&c.target, &back.target);
    same_tensor(&c.weight, &back.weight);
    same_tensor(&c.pos_weight, &back.pos_weight);
    lf_case_free(&back);
    free(line);
    /* Absent tensors stay absent. */
    lf_tensor_free(&c.weight);
    lf_tensor_free(&c.pos_weight);
    line = lf_wire_request(43, paths, 1, &c, &l, s.base);
    if (!lf_wire_parse_request(line, &info, &back, &m, err, sizeof err)) fail_msg("%s", err);
    assert_false(back.weight.present || back.pos_weight.present);
    assert_int_equal(info.n_paths, 1);
    lf_case_free(&back);
    free(line);
    munmap(m.base, m.size);
    shm_close(&s);
    lf_case_free(&c);
}

/* parse_answer of a line: true or false, err set. */
static bool parse(const char *line, uint64_t id, lf_result *r, int n, const lf_wire_layout *l, void *shm, char *dead,
                  char *err)
{
    return lf_wire_parse_answer(line, id, r, n, l, shm, dead, 256, err, 256);
}

static void answers_are_checked(void **state)
{
    (void)state;
    lf_wire_layout l = {.shm_size = 4096, .out_at = 0, .out_cap = 4};
    test_shm s;
    shm_open_size(&s, l.shm_size);
    lf_result ok, r[2];
    lf_result_init(&ok);
    assert_true(lf_result_alloc_values(&ok, 3, false));
    for (int i = 0; i < 3; i++) ok.values[i] = 1.5 * i - 2;
    ok.kind = LF_OUTCOME_OK;
    ok.out_dtype = LF_F32;
    char *line = lf_wire_answer(9, &ok, 1, &l, s.base), dead[256], err[256];
    assert_true(parse(line, 9, r, 1, &l, s.base, dead, err));
    assert_string_equal(dead, "");
    assert_int_equal(r[0].kind, LF_OUTCOME_OK);
    assert_int_equal(r[0].n, 3);
    assert_memory_equal(r[0].values, ok.values, 3 * sizeof(double));
    lf_result_free(&r[0]);
    assert_false(parse(line, 8, r, 1, &l, s.base, dead, err)); /* an answer to another request */
    assert_string_equal(err, "not an answer to this request");
    assert_false(parse(line, 9, r, 2, &l, s.base, dead, err));
    assert_string_equal(err, "an answer without one result per path");
    free(line);
    ok.n = 5; /* more values than out_cap: the worker says so, not writing past the area */
    line = lf_wire_answer(9, &ok, 1, &l, s.base);
    assert_true(parse(line, 9, r, 1, &l, s.base, dead, err));
    assert_string_equal(r[0].error, "result_too_large");
    free(line);
    lf_result_free(&ok);
    assert_false(parse("{\"id\": 9, \"results\": [", 9, r, 1, &l, s.base, dead, err));
    assert_false(parse("{\"id\": 9, \"results\": [{\"outcome\": \"ok\", \"n\": 5, \"dtype\": \"float32\"}]}", 9, r, 1,
                       &l, s.base, dead, err));
    assert_string_equal(err, "an ok result without a valid count, shape or dtype");
    /* a shape of another element count than the values sent: not an answer */
    assert_false(parse("{\"id\": 9, \"results\": [{\"outcome\": \"ok\", \"n\": 2, \"shape\": [2, 2], \"dtype\": "
                       "\"float32\"}]}",
                       9, r, 1, &l, s.base, dead, err));
    assert_true(parse("{\"id\": 9, \"results\": [{\"outcome\": \"ok\", \"n\": 2, \"shape\": [2, 1], \"dtype\": "
                      "\"float32\"}]}",
                      9, r, 1, &l, s.base, dead, err));
    assert_true(r[0].dims.known && r[0].dims.ndim == 2 && r[0].dims.shape[0] == 2 && r[0].dims.shape[1] == 1);
    lf_result_free(&r[0]);
    /* A good first result and a bad second: false, and nothing left allocated (ASan). */
    assert_false(parse("{\"id\": 9, \"results\": [{\"outcome\": \"ok\", \"n\": 2, \"dtype\": \"float32\"},"
                       " {\"outcome\": \"maybe\"}]}",
                       9, r, 2, &l, s.base, dead, err));
    assert_true(parse("{\"id\": 9, \"dead\": \"CUDA error: misaligned address\"}", 9, r, 1, &l, s.base, dead, err));
    assert_string_equal(dead, "CUDA error: misaligned address");
    shm_close(&s);
}

static void cuda_assert_lines_are_read(void **state)
{
    (void)state;
    lf_result r;
    assert_true(lf_exec_parse_assert_line(
        "/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
        "thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.",
        &r));
    assert_int_equal(r.kind, LF_OUTCOME_DEVICE_ASSERT);
    assert_int_equal(r.kernel_id, LF_K_NLL_REDUCE_2D);
    assert_int_equal(r.cond_id, LF_COND_T_RANGE);
    assert_int_equal(r.index, -1);
    assert_true(lf_exec_parse_assert_line(
        "[rank0]:/pytorch/aten/src/ATen/native/cuda/Loss.cu:186: nll_loss_forward_no_reduce_cuda_kernel: block: "
        "[1,0,0], thread: [96,0,0] Assertion `cur_target >= 0 && cur_target < n_classes` failed.",
        &r));
    assert_int_equal(r.kernel_id, LF_K_NLL_NO_REDUCE);
    assert_int_equal(r.cond_id, LF_COND_CUR_RANGE);
    assert_true(
        lf_exec_parse_assert_line(/* label smoothing's weight.gather: CUDA names the lambda */
                                  "../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): block: "
                                  "[0,0,0], thread: [1,0,0] "
                                  "Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed.",
                                  &r));
    assert_int_equal(r.kernel_id, LF_K_GATHER);
    assert_int_equal(r.cond_id, LF_COND_GATHER);
    assert_true(lf_exec_parse_assert_line(/* PyTorch 2.11's text (CUDA_KERNEL_ASSERT_VERBOSE), on an H200 */
                                          "ScatterGatherKernel.cu:158: operator(): block: [0,0,0], thread: [10,0,0] "
                                          "Assertion `idx_dim >= 0 && idx_dim < index_size && \"scatter gather "
                                          "kernel index out of bounds\"` failed.",
                                          &r));
    assert_int_equal(r.cond_id, LF_COND_GATHER);
    assert_false(lf_exec_parse_assert_line("RuntimeError: CUDA error: device-side assert triggered", &r));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LOSSFUZZ (the binary that serves as worker)\n", argv[0]);
        return 2;
    }
    lossfuzz = argv[1];
    setenv("LOSSFUZZ_WORKER_FAULTS", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_case_gets_its_outcome),
        cmocka_unit_test(without_a_spare_too),
        cmocka_unit_test(hangs_too),
        cmocka_unit_test(hangs_without_a_spare_too),
        cmocka_unit_test(a_worker_that_cannot_start_is_a_clear_error),
        cmocka_unit_test(a_request_round_trips),
        cmocka_unit_test(answers_are_checked),
        cmocka_unit_test(cuda_assert_lines_are_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
