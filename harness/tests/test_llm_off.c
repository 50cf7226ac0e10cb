/* test_llm_off.c - one set of rules (docs/llm-cross-entropy.md): a cross_entropy
 * call with the LLM family's options given at their off values - and a loss
 * mask of ones, which changes nothing in the definitions - gets the verdict
 * of PyTorch's call: the same outcome and error, the same values, outputs and
 * gradients with the same tolerances, undecided where the other is. Over the case files given
 * (regressions/, the recorded CUDA set) and, decoded, the fuzz_llm and
 * fuzz_class seed corpora: a campaign's cases.
 * usage: test_llm_off DIR... (JSON cases; a DIR under corpus/ holds byte inputs) */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_bytes.h"
#include "lf_oracle.h"
#include "lf_spec.h"
#include "lf_tensor_ops.h"
#include "lf_test_util.h"

static int n_dirs, checked, differing;
static char **dirs;

static bool same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Why results a and b are not one verdict, or NULL. */
static const char *differ(const lf_result *a, const lf_result *b, int64_t *at)
{
    *at = -1;
    if (a->kind != b->kind) return "outcome";
    if (a->kind != LF_OUTCOME_OK) return strcmp(a->error, b->error) ? "error class" : NULL;
    if (a->n != b->n || a->scalar != b->scalar) return "shape";
    for (int64_t i = 0; i < a->n; i++) {
        *at = i;
        bool ua = a->scales[i] == LF_SCALE_UNDECIDED, ub = b->scales[i] == LF_SCALE_UNDECIDED;
        if (ua != ub) return ua ? "undecided in the plain spec only" : "undecided in the LLM spec only";
        if (!same(a->values[i], b->values[i]) || !same(a->scales[i], b->scales[i])) return "values";
    }
    for (int o = 0; o < LF_OUT_COUNT; o++) {
        if (a->outputs[o].n != b->outputs[o].n) return "outputs' shape";
        for (int64_t i = 0; i < a->outputs[o].n; i++)
            if (!same(a->outputs[o].values[i], b->outputs[o].values[i]) ||
                !same(a->outputs[o].scales[i], b->outputs[o].scales[i]))
                return *at = i, "outputs";
    }
    return NULL;
}

static void report(const char *name, const char *what, const char *why, int64_t at, const lf_result *a,
                   const lf_result *b)
{
    differing++;
    if (at >= 0)
        printf("%s: %s: %s at [%lld]: plain %.9g (scale %g), LLM %.9g (scale %g)\n", name, what, why, (long long)at,
               a->values[at], a->scales[at], b->values[at], b->scales[at]);
    else
        printf("%s: %s: %s: plain %s, LLM %s\n", name, what, why, a->kind == LF_OUTCOME_OK ? "ok" : a->error,
               b->kind == LF_OUTCOME_OK ? "ok" : b->error);
}

/* The case as the LLM family's call: every option given at its off value, and a loss mask of ones. */
static bool with_ones_mask(const lf_case *c, lf_case *m)
{
    int64_t shape[LF_MAX_DIMS];
    char err[128];
    int n = lf_case_row_shape(c, shape);
    if (!lf_case_copy(c, m)) return false;
    if (!lf_tensor_alloc(&m->loss_mask, LF_F32, n, shape, err, sizeof err)) {
        lf_case_free(m);
        return false;
    }
    for (int64_t i = 0; i < m->loss_mask.numel; i++) lf_store_f64(m->loss_mask.data, LF_F32, i, 1.0);
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_option_is_scalar(o) && (LF_OPT_LLM >> o & 1)) lf_case_set_option(m, o, lf_option_of(o)->default_value);
    return true;
}

static void check_case(const char *name, lf_case *c)
{
    /* the family's calls: cross_entropy on logits with a batch dim, no option, mask or moved class dim */
    if (c->loss != LF_LOSS_CROSS_ENTROPY || c->input.ndim < 2 || lf_case_beyond_pytorch(c) || lf_case_llm_call(c))
        return;
    lf_case m;
    if (!with_ones_mask(c, &m)) return;
    lf_result a, b, ga[LF_GRAD_PARTS], gb[LF_GRAD_PARTS];
    lf_spec_run(c, &a);
    lf_spec_run(&m, &b);
    checked++;
    int64_t at;
    const char *why = differ(&a, &b, &at);
    if (why) report(name, "value", why, at, &a, &b);
    if (!why && a.kind == LF_OUTCOME_OK && a.n > 0) {
        double *up = malloc(sizeof(double) * (size_t)a.n);
        for (int64_t i = 0; up && i < a.n; i++) up[i] = 0.25 + 0.5 * (double)(i % 3); /* each row its own */
        if (up) {
            lf_spec_grad(c, up, ga);
            lf_spec_grad(&m, up, gb);
            why = differ(&ga[LF_GRAD_INPUT], &gb[LF_GRAD_INPUT], &at);
            if (why) report(name, "d input", why, at, &ga[LF_GRAD_INPUT], &gb[LF_GRAD_INPUT]);
            for (int p = 0; p < LF_GRAD_PARTS; p++) lf_result_free(&ga[p]), lf_result_free(&gb[p]);
        }
        free(up);
    }
    lf_result_free(&a);
    lf_result_free(&b);
    lf_case_free(&m);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)))
        text[ *len = fread(text, 1, (size_t)size, f)] = 0;
    if (f) fclose(f);
    return text;
}

static void check_file(const char *dir, const char *file, bool bytes)
{
    char path[4096], err[512] = "";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len = 0;
    char *text = read_all(path, &len);
    if (!text) fail_msg("cannot read %s", path);
    lf_case c;
    if (bytes) {
        lf_target t;
        const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
        if (lf_target_parse(base, &t)) {
            lf_decode(t, (const uint8_t *)text, len, &c, NULL);
            /* the byte format's options at their off values: the plain call the campaign also makes */
            for (int o = 0; o < LF_OPTION_COUNT; o++) /* the loss mask too */
                if (LF_OPT_LLM >> o & 1) lf_case_option_off(&c, o);
            c.vocab_last = false;
            check_case(path, &c);
            lf_case_free(&c);
        }
    } else if (lf_case_parse_json(text, len, &c, err, sizeof err)) {
        check_case(path, &c);
        lf_case_free(&c);
    }
    free(text);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static void the_llm_spec_with_every_option_off_is_the_plain_spec(void **state)
{
    (void)state;
    for (int d = 0; d < n_dirs; d++) {
        struct dirent **names;
        int n = scandir(dirs[d], &names, NULL, by_name);
        if (n < 0) fail_msg("cannot read %s", dirs[d]);
        bool bytes = strstr(dirs[d], "corpus/") != NULL;
        for (int i = 0; i < n; i++) {
            size_t l = strlen(names[i]->d_name);
            if (names[i]->d_name[0] != '.' && (bytes || (l > 5 && !strcmp(names[i]->d_name + l - 5, ".json"))))
                check_file(dirs[d], names[i]->d_name, bytes);
            free(names[i]);
        }
        free(names);
    }
    printf("%d cases judged by both specs, %d differing\n", checked, differing);
    assert_true(checked > 0);
    assert_int_equal(differing, 0);
}

int main(int argc, char **argv)
{
    n_dirs = argc - 1;
    dirs = argv + 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_llm_spec_with_every_option_off_is_the_plain_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
