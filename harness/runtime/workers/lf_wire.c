/* lf_wire.c - encoding and decoding the worker protocol (lf_wire.h). */
#include "lf_wire.h"

#include "lf_layout.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const path_names[LF_WIRE_PATH_COUNT] = {"reference", "guard", "torch", "kernel"};

const char *lf_wire_path_name(lf_wire_path p) { return p < LF_WIRE_PATH_COUNT ? path_names[p] : "?"; }

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

void lf_wire_layout_of(const lf_case *c, const lf_wire_path *paths, int n_paths, lf_wire_layout *l)
{
    size_t at = 0;
    for (int i = 0; i < LF_CASE_TENSORS; i++) {
        const lf_tensor *t = lf_case_tensor_const(c, i);
        if (t->present) at += align8((size_t)t->numel * lf_dtype_size(t->dtype));
    }
    /* No result has more elements than the input, the target, or the input
     * without its class dim (reduction none with probabilities of zero
     * classes); a foreign kernel that returns more is told result_too_large. */
    int64_t most = c->input.numel > c->target.numel ? c->input.numel : c->target.numel, rows = 1;
    bool over = false;
    for (int d = 0; d < c->input.ndim; d++)
        if (d != (c->input.ndim == 1 ? 0 : 1)) over |= __builtin_mul_overflow(rows, c->input.shape[d], &rows);
    if (!over && rows > most && rows <= LF_MAX_NUMEL) most = rows;
    l->out_cap = most + 16;
    bool kernel = false;
    for (int i = 0; i < n_paths; i++) kernel |= paths[i] == LF_WIRE_KERNEL;
    /* a Python kernel's worker adds PyTorch's result on a low-precision call (its reference) */
    if (kernel && (c->input.dtype == LF_BF16 || c->input.dtype == LF_F16)) l->out_cap += most + 16;
    /* the LLM family's other outputs (z_loss: as many as the result; lse: a value per row): the family's call's,
     * and a kernel's on any call (its claims name what it returns, compared with every option off too) */
    if (kernel || lf_case_llm_call(c) || lf_case_beyond_pytorch(c)) l->out_cap += most + rows + 32;
    if (c->backward.values) { /* the upstream gradient in; the gradients out, after the result */
        at += (size_t)c->backward.n_values * sizeof(double);
        for (int p = 0; p < LF_GRAD_PARTS; p++) l->out_cap += lf_grad_tensor(c, (lf_grad_part)p)->numel;
    }
    l->out_at = at;
    l->shm_size = at + (size_t)n_paths * (size_t)l->out_cap * sizeof(double);
}

/* A JSON value (its reference taken) as one protocol line, ending in "\n" so
 * it goes in one write: one wake-up of the reader. NULL when out of memory. */
static char *dump_line(json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    size_t len = text ? strlen(text) : 0;
    char *line = text ? realloc(text, len + 2) : NULL;
    if (!line) {
        free(text);
        return NULL;
    }
    line[len] = '\n';
    line[len + 1] = 0;
    return line;
}

bool lf_wire_send(int fd, const char *line)
{
    size_t len = strlen(line);
    while (len) {
        ssize_t n = write(fd, line, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false; /* EPIPE: the reader is gone (the executor ignores SIGPIPE) */
        line += n;
        len -= (size_t)n;
    }
    return true;
}

static json_t *wire_number(double v)
{
    return isfinite(v) ? json_real(v) : json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

/* A scalar option's value on the wire: an lf_choice's name (null for "None"), an integer, a number. */
static json_t *wire_option(const lf_case *c, lf_option o)
{
    const char *choice = lf_option_choice_value(o, lf_case_option_int(c, o));
    if (lf_option_of(o)->type == LF_TYPE_lf_choice) return choice ? json_string(choice) : json_null();
    if (lf_option_of(o)->type == LF_TYPE_int64_t) return json_integer((json_int_t)lf_case_option_int(c, o));
    return wire_number(lf_case_option_value(c, o));
}

char *lf_wire_request(uint64_t id, const lf_wire_path *paths, int n_paths, const lf_case *c, const lf_wire_layout *l,
                      void *shm)
{
    json_t *cj = json_pack("{s:s, s:s}", "loss", lf_loss_name(c->loss), "reduction", c->reduction_name);
    /* The scalar options given (lf_options.def), or away from their default without being given (a caller's
     * case that set the value alone); JSON has no NaN or infinity: those go as "nan", "inf", "-inf", as in case
     * files. */
    for (int o = 0; o < LF_OPTION_COUNT; o++) {
        const lf_option_info *O = lf_option_of(o);
        if (!lf_option_is_scalar(o) || (!lf_case_given(c, o) && lf_case_option_value(c, o) == O->default_value))
            continue;
        json_object_set_new(cj, O->name, wire_option(c, o));
    }
    if (c->vocab_last) json_object_set_new(cj, "vocab_last", json_true());
    if (c->world_size != 1) {
        json_t *shards = json_array();
        int64_t V = lf_case_classes(c);
        for (int r = 0; r < c->world_size; r++) {
            int64_t first;
            json_array_append_new(shards, json_integer(lf_case_shard(c, V, r, &first)));
        }
        json_object_set_new(cj, "world_size", json_integer(c->world_size));
        json_object_set_new(cj, "shards", shards); /* always the sizes: the worker splits by them */
    }
    size_t at = 0;
    for (int i = 0; i < LF_CASE_TENSORS; i++) {
        const lf_tensor *t = lf_case_tensor_const(c, i);
        if (!t->present) continue;
        json_t *shape = json_array();
        for (int d = 0; d < t->ndim; d++) json_array_append_new(shape, json_integer(t->shape[d]));
        size_t bytes = (size_t)t->numel * lf_dtype_size(t->dtype);
        if (bytes) memcpy((char *)shm + at, t->data, bytes);
        json_t *tj =
            json_pack("{s:s, s:o, s:I}", "dtype", lf_dtype_name(t->dtype), "shape", shape, "at", (json_int_t)at);
        if (t->strided) { /* the values go as they are; the worker lays them out */
            json_t *strides = json_array();
            for (int d = 0; d < t->ndim; d++) json_array_append_new(strides, json_integer(t->strides[d]));
            json_object_set_new(tj, "strides", strides);
            json_object_set_new(tj, "offset", json_integer(t->offset));
        }
        json_object_set_new(cj, lf_case_tensor_names[i], tj);
        at += align8(bytes);
    }
    if (c->backward.values) {
        size_t bytes = (size_t)c->backward.n_values * sizeof(double);
        if (bytes) memcpy((char *)shm + at, c->backward.values, bytes);
        const lf_backward *b = &c->backward;
        json_object_set_new(cj, "backward",
                            json_pack("{s:{s:s, s:[I], s:I}, s:b, s:b, s:b, s:b}", "upstream", "dtype", "float64",
                                      "shape", (json_int_t)b->n_values, "at", (json_int_t)at, "input_requires_grad",
                                      b->input_requires_grad, "linear_weight_requires_grad",
                                      b->linear_weight_requires_grad, "linear_bias_requires_grad",
                                      b->linear_bias_requires_grad, "through_softmax", b->through_softmax));
    }
    json_t *pj = json_array();
    for (int i = 0; i < n_paths; i++) json_array_append_new(pj, json_string(lf_wire_path_name(paths[i])));
    json_t *req = json_pack("{s:I, s:o, s:I, s:I, s:I, s:o}", "id", (json_int_t)id, "paths", pj, "shm_size",
                            (json_int_t)l->shm_size, "out_at", (json_int_t)l->out_at, "out_cap", (json_int_t)l->out_cap,
                            "case", cj);
    return dump_line(req);
}

static bool fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return false;
}

/* A tensor of the request, borrowed from shared memory after bounds checks. */
static bool read_tensor(json_t *tj, lf_tensor *t, const void *shm, size_t shm_size, char *err, size_t errlen)
{
    json_t *shape = json_object_get(tj, "shape");
    json_int_t at = json_integer_value(json_object_get(tj, "at"));
    if (!json_is_array(shape) || json_array_size(shape) > LF_MAX_DIMS ||
        !lf_dtype_parse(
            json_string_value(json_object_get(tj, "dtype")) ? json_string_value(json_object_get(tj, "dtype")) : "",
            &t->dtype))
        return fail(err, errlen, "a tensor without a valid dtype or shape");
    t->present = true;
    t->ndim = (int)json_array_size(shape);
    t->numel = 1;
    for (int d = 0; d < t->ndim; d++) { /* a dim may pass the limit when another is 0 */
        t->shape[d] = json_integer_value(json_array_get(shape, (size_t)d));
        if (t->shape[d] < 0 || __builtin_mul_overflow(t->numel, t->shape[d], &t->numel))
            return fail(err, errlen, "a tensor with a negative or overflowing shape");
    }
    if (t->numel > LF_MAX_NUMEL) return fail(err, errlen, "a tensor over the size limit");
    size_t bytes = (size_t)t->numel * lf_dtype_size(t->dtype);
    if (at < 0 || (size_t)at > shm_size || bytes > shm_size - (size_t)at)
        return fail(err, errlen, "a tensor outside the shared memory");
    t->data = (char *)shm + at;
    t->borrowed = true;
    json_t *sj = json_object_get(tj, "strides");
    if (!sj) return true;
    int64_t strides[LF_MAX_DIMS];
    if (!json_is_array(sj) || (int)json_array_size(sj) != t->ndim)
        return fail(err, errlen, "strides that do not fit the shape");
    for (int d = 0; d < t->ndim; d++) strides[d] = json_integer_value(json_array_get(sj, (size_t)d));
    return lf_layout_set(t, strides, json_integer_value(json_object_get(tj, "offset")), err, errlen);
}

/* The request's backward half: the upstream gradient (float64, borrowed
 * from shared memory like the tensors) and whether the input requires grad. */
static bool read_backward(json_t *bj, lf_backward *b, const void *shm, size_t shm_size, char *err, size_t errlen)
{
    if (!bj) return true;
    json_t *up = json_object_get(bj, "upstream"), *shape = json_object_get(up, "shape");
    json_int_t n = json_integer_value(json_array_get(shape, 0)), at = json_integer_value(json_object_get(up, "at"));
    if (!json_is_array(shape) || json_array_size(shape) != 1 || n < 0 || n > LF_MAX_NUMEL || at < 0 ||
        (size_t)at > shm_size || (size_t)n * sizeof(double) > shm_size - (size_t)at)
        return fail(err, errlen, "a backward half without a valid upstream gradient");
    b->values = (const double *)((const char *)shm + at);
    b->n_values = n;
    b->input_requires_grad = json_is_true(json_object_get(bj, "input_requires_grad"));
    b->linear_weight_requires_grad = json_is_true(json_object_get(bj, "linear_weight_requires_grad"));
    b->linear_bias_requires_grad = json_is_true(json_object_get(bj, "linear_bias_requires_grad"));
    b->through_softmax = json_is_true(json_object_get(bj, "through_softmax"));
    return true;
}

static bool map_shm(lf_wire_shm *m, size_t size)
{
    if (size == m->size && m->base) return true;
    if (m->base) munmap(m->base, m->size);
    m->base = size ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0) : NULL;
    if (m->base == MAP_FAILED) m->base = NULL;
    m->size = m->base ? size : 0;
    return m->base != NULL;
}

bool lf_wire_parse_request(const char *line, lf_wire_request_info *info, lf_case *c, lf_wire_shm *m, char *err,
                           size_t errlen)
{
    json_error_t je;
    json_t *req = json_loads(line, 0, &je), *cj = json_object_get(req, "case"), *pj = json_object_get(req, "paths");
    bool ok = false;
    memset(info, 0, sizeof *info);
    lf_case_init(c);
    if (!json_is_object(cj) || !json_is_array(pj) || json_array_size(pj) < 1 ||
        json_array_size(pj) > LF_WIRE_MAX_PATHS) {
        fail(err, errlen, "not a request (id, paths, case)");
        goto out;
    }
    info->id = (uint64_t)json_integer_value(json_object_get(req, "id"));
    info->layout.shm_size = (size_t)json_integer_value(json_object_get(req, "shm_size"));
    info->layout.out_at = (size_t)json_integer_value(json_object_get(req, "out_at"));
    info->layout.out_cap = json_integer_value(json_object_get(req, "out_cap"));
    if (!map_shm(m, info->layout.shm_size)) {
        fail(err, errlen, "cannot map the shared memory");
        goto out;
    }
    const void *shm = m->base;
    size_t shm_size = m->size;
    for (size_t i = 0; i < json_array_size(pj); i++) {
        const char *name = json_string_value(json_array_get(pj, i));
        int p = 0;
        while (p < LF_WIRE_PATH_COUNT && (!name || strcmp(name, path_names[p]))) p++;
        if (p == LF_WIRE_PATH_COUNT) {
            fail(err, errlen, "an unknown path");
            goto out;
        }
        info->paths[info->n_paths++] = (lf_wire_path)p;
    }
    const char *loss = json_string_value(json_object_get(cj, "loss"));
    const char *red = json_string_value(json_object_get(cj, "reduction"));
    if (!loss || !lf_loss_parse(loss, &c->loss) || !red || strlen(red) >= sizeof c->reduction_name) {
        fail(err, errlen, "a case without a valid loss or reduction");
        goto out;
    }
    snprintf(c->reduction_name, sizeof c->reduction_name, "%s", red);
    c->reduction = lf_reduction_parse(red);
    for (int o = 0; o < LF_OPTION_COUNT; o++) {
        json_t *v = lf_option_is_scalar(o) ? json_object_get(cj, lf_option_of(o)->name) : NULL;
        int64_t k;
        if (v && lf_option_of(o)->type == LF_TYPE_lf_choice) {
            if (lf_option_choice_parse(o, json_string_value(v), &k)) lf_case_set_option_int(c, o, k);
        } else if (json_is_integer(v) && lf_option_of(o)->type == LF_TYPE_int64_t)
            lf_case_set_option_int(c, o, json_integer_value(v));
        else if (v)
            lf_case_set_option(c, o, json_is_string(v) ? strtod(json_string_value(v), NULL) : json_number_value(v));
    }
    c->vocab_last = json_is_true(json_object_get(cj, "vocab_last"));
    json_t *ws = json_object_get(cj, "world_size"), *shards = json_object_get(cj, "shards");
    if (json_is_integer(ws) && json_integer_value(ws) >= 1 && json_integer_value(ws) <= LF_MAX_WORLD)
        c->world_size = (int)json_integer_value(ws);
    for (size_t r = 0; json_is_array(shards) && r < json_array_size(shards) && r < LF_MAX_WORLD; r++)
        c->shards[c->n_shards++] = json_integer_value(json_array_get(shards, r));
    for (int i = 0; i < LF_CASE_TENSORS; i++) {
        json_t *tj = json_object_get(cj, lf_case_tensor_names[i]);
        if (tj && !read_tensor(tj, lf_case_tensor(c, i), shm, shm_size, err, errlen)) goto out;
    }
    if (!read_backward(json_object_get(cj, "backward"), &c->backward, shm, shm_size, err, errlen)) goto out;
    size_t values = (size_t)info->n_paths * (size_t)info->layout.out_cap * sizeof(double);
    if (info->layout.out_cap < 0 || info->layout.out_at > shm_size || values > shm_size - info->layout.out_at) {
        fail(err, errlen, "the result area is outside the shared memory");
        goto out;
    }
    ok = true;
out:
    json_decref(req);
    return ok;
}

static void set_text(json_t *o, const char *key, const char *text)
{
    if (text[0]) json_object_set_new(o, key, json_string(text));
}

/* The backward half of an ok result, as read_grads reads it: "grads" names
 * each tensor's gradient, the values of those that are "ok" after the
 * result's in the path's area, in lf_grad_part order. */
/* "shape": [4, 1], where the path said it (its lf_dims). */
static void write_dims(json_t *o, const lf_dims *d)
{
    if (!d->known) return;
    json_t *a = json_array();
    for (int i = 0; i < d->ndim; i++) json_array_append_new(a, json_integer(d->shape[i]));
    json_object_set_new(o, "shape", a);
}

static int64_t write_grads(json_t *o, const lf_result *x, const lf_wire_layout *l, double *area)
{
    set_text(o, "changed", x->changed);
    set_text(o, "through_softmax", x->through_softmax);
    json_t *grads = json_object();
    int64_t at = x->n;
    for (int p = 0; p < LF_GRAD_PARTS; p++) {
        const lf_grad *g = &x->grad[p];
        if (g->state == LF_GRAD_NONE) continue;
        json_t *gj;
        if (g->state == LF_GRAD_OK && g->n > l->out_cap - at) {
            gj = json_pack("{s:s, s:s}", "state", "error", "message",
                           "the gradient has more values than the shared memory holds");
        } else if (g->state == LF_GRAD_OK) {
            if (g->n) memcpy(area + at, g->values, (size_t)g->n * sizeof(double));
            at += g->n;
            gj = json_pack("{s:s, s:I, s:s}", "state", "ok", "n", (json_int_t)g->n, "dtype", lf_dtype_name(g->dtype));
            write_dims(gj, &g->dims);
        } else {
            gj = json_pack("{s:s, s:s}", "state", lf_grad_state_names[g->state], "message", g->message);
        }
        json_object_set_new(grads, lf_grad_part_names[p], gj);
    }
    if (json_object_size(grads))
        json_object_set_new(o, "grads", grads);
    else
        json_decref(grads);
    return at;
}

/* The LLM family's outputs of an ok result, after its gradients (read_outputs). */
static void write_outputs(json_t *o, const lf_result *x, const lf_wire_layout *l, double *area, int64_t at)
{
    json_t *outputs = json_object();
    for (int k = 0; k < LF_OUT_COUNT; k++) {
        if (!x->outputs[k].values || x->outputs[k].n > l->out_cap - at) continue;
        if (x->outputs[k].n) memcpy(area + at, x->outputs[k].values, (size_t)x->outputs[k].n * sizeof(double));
        at += x->outputs[k].n;
        json_object_set_new(outputs, lf_llm_output_names[k], json_pack("{s:I}", "n", (json_int_t)x->outputs[k].n));
    }
    if (json_object_size(outputs))
        json_object_set_new(o, "outputs", outputs);
    else
        json_decref(outputs);
}

char *lf_wire_answer(uint64_t id, const lf_result *r, int n, const lf_wire_layout *l, void *shm)
{
    json_t *results = json_array();
    for (int i = 0; i < n; i++) {
        const lf_result *x = &r[i];
        bool too_large = x->kind == LF_OUTCOME_OK && x->n > l->out_cap;
        json_t *o = too_large ? json_pack("{s:s, s:s, s:s}", "outcome", "host_error", "error", "result_too_large",
                                          "message", "the result has more values than the shared memory holds")
                              : json_pack("{s:s}", "outcome", lf_outcome_name(x->kind));
        if (too_large) {
            /* said in full above */
        } else if (x->kind == LF_OUTCOME_OK) {
            memcpy((char *)shm + l->out_at + (size_t)i * (size_t)l->out_cap * sizeof(double), x->values,
                   (size_t)x->n * sizeof(double));
            json_object_set_new(o, "n", json_integer(x->n));
            json_object_set_new(o, "scalar", json_boolean(x->scalar));
            json_object_set_new(o, "dtype", json_string(lf_dtype_name(x->out_dtype)));
            write_dims(o, &x->dims);
        } else if (x->kind == LF_OUTCOME_DEVICE_ASSERT) {
            json_object_set_new(o, "kernel", json_string(lf_kernel_name(x->kernel_id)));
            json_object_set_new(o, "cond", json_string(lf_cond_text(x->cond_id)));
        }
        if (!too_large && x->kind == LF_OUTCOME_OK) {
            double *area = (double *)shm + l->out_at / sizeof(double) + (size_t)i * (size_t)l->out_cap;
            write_outputs(o, x, l, area, write_grads(o, x, l, area));
        }
        if (!too_large && x->index >= 0) { /* an assert's element, or the guard's first offending one */
            json_object_set_new(o, "index", json_integer(x->index));
            json_object_set_new(o, "value", json_integer(x->value));
        }
        if (!too_large && x->kind != LF_OUTCOME_OK) {
            set_text(o, "error", x->error);
            set_text(o, "exception", x->exception);
            set_text(o, "message", x->message);
        }
        set_text(o, "hint", x->hint);
        set_text(o, "hint_id", x->hint_id);
        set_text(o, "warning", x->warning);
        set_text(o, "warning_id", x->warning_id);
        json_array_append_new(results, o);
    }
    json_t *ans = json_pack("{s:I, s:o}", "id", (json_int_t)id, "results", results);
    return dump_line(ans);
}

static void copy_text(char *dst, size_t cap, json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(dst, cap, "%s", s ? s : "");
}

/* "shape" (write_dims) into d, when said and as many values as n; false for a shape that is not one. */
static bool read_dims(json_t *o, int64_t n, lf_dims *d)
{
    json_t *a = json_object_get(o, "shape"), *v;
    size_t i;
    int64_t count = 1;
    d->known = false;
    if (!a) return true; /* a path that sends counts alone */
    if (!json_is_array(a) || json_array_size(a) > LF_MAX_DIMS) return false;
    json_array_foreach(a, i, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            __builtin_mul_overflow(count, (int64_t)json_integer_value(v), &count))
            return false;
        d->shape[i] = json_integer_value(v);
    }
    d->ndim = (int)json_array_size(a);
    d->known = count == n;
    return d->known;
}

/* The backward half of an ok result (write_grads): each tensor's gradient,
 * "ok" with n values of a dtype after the result's, or "missing" / "error"
 * with a message. */
static bool read_grads(json_t *o, lf_result *r, const double *values, int64_t cap, int64_t *used, char *err,
                       size_t errlen)
{
    json_t *grads = json_object_get(o, "grads");
    int64_t at = 0;
    for (int p = 0; grads && p < LF_GRAD_PARTS; p++) {
        json_t *gj = json_object_get(grads, lf_grad_part_names[p]);
        const char *state = json_string_value(json_object_get(gj, "state"));
        lf_grad *g = &r->grad[p];
        if (!gj) continue;
        if (!state) return fail(err, errlen, "a gradient without a state");
        copy_text(g->message, sizeof g->message, gj, "message");
        if (strcmp(state, "ok")) {
            if (strcmp(state, "missing") && strcmp(state, "error")) return fail(err, errlen, "an unknown grad state");
            g->state = strcmp(state, "missing") ? LF_GRAD_ERROR : LF_GRAD_MISSING;
            continue;
        }
        json_int_t n = json_integer_value(json_object_get(gj, "n"));
        const char *dtype = json_string_value(json_object_get(gj, "dtype"));
        if (n < 0 || n > cap - at || !dtype || !lf_dtype_parse(dtype, &g->dtype) || !read_dims(gj, n, &g->dims))
            return fail(err, errlen, "a gradient without a valid count, shape or dtype");
        g->values = malloc(sizeof(double) * ((size_t)n + 1));
        if (!g->values) return fail(err, errlen, "out of memory");
        memcpy(g->values, values + at, (size_t)n * sizeof(double));
        g->n = n;
        g->state = LF_GRAD_OK;
        at += n;
    }
    *used += at;
    return true;
}

/* "outputs": {"z_loss": {"n": 1}, ...}: the LLM family's other outputs
 * (lf_llm.def), after the gradients, in the list's order. */
static bool read_outputs(json_t *oj, lf_result *r, const double *values, int64_t cap, int64_t *used, char *err,
                         size_t errlen)
{
    int64_t at = 0;
    for (int o = 0; oj && o < LF_OUT_COUNT; o++) {
        json_t *one = json_object_get(oj, lf_llm_output_names[o]);
        if (!one) continue;
        json_int_t n = json_integer_value(json_object_get(one, "n"));
        if (n < 0 || n > cap - at) return fail(err, errlen, "an output without a valid count");
        if (!(r->outputs[o].values = malloc(sizeof(double) * ((size_t)n + 1))))
            return fail(err, errlen, "out of memory");
        memcpy(r->outputs[o].values, values + at, (size_t)n * sizeof(double));
        r->outputs[o].n = n;
        at += n;
    }
    *used += at;
    return true;
}

/* "reference": {"n": 4}: PyTorch's result on the same call, after the gradients. */
static bool read_reference(json_t *rj, lf_result *r, const double *values, int64_t cap, char *err, size_t errlen)
{
    if (!rj) return true;
    json_int_t n = json_integer_value(json_object_get(rj, "n"));
    if (n < 0 || n > cap) return fail(err, errlen, "a reference without a valid count");
    if (!(r->reference = malloc(sizeof(double) * ((size_t)n + 1)))) return fail(err, errlen, "out of memory");
    memcpy(r->reference, values, (size_t)n * sizeof(double));
    r->n_reference = n;
    return true;
}

static bool read_result(json_t *o, lf_result *r, const double *values, int64_t cap, char *err, size_t errlen)
{
    lf_result_init(r);
    const char *outcome = json_string_value(json_object_get(o, "outcome"));
    if (!outcome || !lf_outcome_parse(outcome, &r->kind) || r->kind == LF_OUTCOME_NONE)
        return fail(err, errlen, "a result without a valid outcome");
    copy_text(r->error, sizeof r->error, o, "error");
    copy_text(r->exception, sizeof r->exception, o, "exception");
    copy_text(r->message, sizeof r->message, o, "message");
    copy_text(r->hint, sizeof r->hint, o, "hint");
    copy_text(r->hint_id, sizeof r->hint_id, o, "hint_id");
    copy_text(r->warning, sizeof r->warning, o, "warning");
    copy_text(r->warning_id, sizeof r->warning_id, o, "warning_id");
    if (r->kind == LF_OUTCOME_DEVICE_ASSERT) {
        const char *kernel = json_string_value(json_object_get(o, "kernel"));
        const char *cond = json_string_value(json_object_get(o, "cond"));
        r->cond_id = cond ? lf_cond_id_of(cond) : LF_COND_NONE;
        r->kernel_id = kernel ? lf_assert_kernel_of(kernel, r->cond_id) : LF_K_NONE;
        if (!r->error[0]) snprintf(r->error, sizeof r->error, "%s", lf_assert_error(r->kernel_id));
    }
    json_t *index = json_object_get(o, "index");
    r->index = index ? json_integer_value(index) : -1; /* -1: not known (a hard assert, a CPU IndexError) */
    r->value = json_integer_value(json_object_get(o, "value"));
    if (r->kind != LF_OUTCOME_OK) return true;
    json_int_t n = json_integer_value(json_object_get(o, "n"));
    const char *dtype = json_string_value(json_object_get(o, "dtype"));
    if (n < 0 || n > cap || !dtype || !lf_dtype_parse(dtype, &r->out_dtype) || !read_dims(o, n, &r->dims))
        return fail(err, errlen, "an ok result without a valid count, shape or dtype");
    r->scalar = json_is_true(json_object_get(o, "scalar"));
    if (!lf_result_alloc_values(r, n, false)) return fail(err, errlen, "out of memory");
    memcpy(r->values, values, (size_t)n * sizeof(double));
    copy_text(r->changed, sizeof r->changed, o, "changed");
    copy_text(r->through_softmax, sizeof r->through_softmax, o, "through_softmax");
    int64_t used = n;
    if (!read_grads(o, r, values + n, cap - n, &used, err, errlen)) return false;
    if (!read_outputs(json_object_get(o, "outputs"), r, values + used, cap - used, &used, err, errlen)) return false;
    return read_reference(json_object_get(o, "reference"), r, values + used, cap - used, err, errlen);
}

bool lf_wire_parse_answer(const char *line, uint64_t id, lf_result *r, int n, const lf_wire_layout *l, const void *shm,
                          char *dead, size_t deadlen, char *err, size_t errlen)
{
    json_error_t je;
    json_t *ans = json_loads(line, 0, &je), *results = json_object_get(ans, "results");
    bool ok = false;
    dead[0] = 0;
    if (!json_is_object(ans) || (uint64_t)json_integer_value(json_object_get(ans, "id")) != id) {
        fail(err, errlen, "not an answer to this request");
    } else if (json_is_string(json_object_get(ans, "dead"))) {
        snprintf(dead, deadlen, "%s", json_string_value(json_object_get(ans, "dead")));
        ok = true;
    } else if (!json_is_array(results) || json_array_size(results) != (size_t)n) {
        fail(err, errlen, "an answer without one result per path");
    } else {
        int done = 0;
        for (; done < n; done++) {
            const double *values =
                (const double *)((const char *)shm + l->out_at + (size_t)done * (size_t)l->out_cap * sizeof(double));
            if (!read_result(json_array_get(results, (size_t)done), &r[done], values, l->out_cap, err, errlen)) break;
        }
        ok = done == n;
        while (!ok && done > 0) lf_result_free(&r[--done]); /* the results read before a bad one */
    }
    json_decref(ans);
    return ok;
}
