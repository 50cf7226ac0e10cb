/* lf_options.c - the options' list (lf_options.def) for the case model, and a
 * case's options reached by it: what loops over every option (JSON, the wire,
 * the minimizer, the claims) reads and writes them here. */
#include "lf_options.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lf_case.h"

#define LF_ANY false, 0, 0, NULL, 0
#define LF_IN(LO, HI) true, LO, HI, NULL, 0
#define LF_NAME_COUNT(...) ((int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)))
#define LF_NAMES(...)                                                                                                  \
    true, 0, LF_NAME_COUNT(__VA_ARGS__) - 1, (const char *const[]){__VA_ARGS__}, LF_NAME_COUNT(__VA_ARGS__)
static const lf_option_info options[LF_OPTION_COUNT] = {
#define LF_OPTION(ID, NAME, TYPE, DEFAULT, VALID, FAMILY, BYTE, MEANING)                                               \
    [LF_OPTION_##ID] = {#NAME, LF_TYPE_##TYPE, FAMILY, DEFAULT, VALID, MEANING},
#define LF_TENSOR_OPTION(ID, NAME, FAMILY, MEANING)                                                                    \
    [LF_OPTION_##ID] = {#NAME, LF_TYPE_tensor, FAMILY, 0, LF_ANY, MEANING},
#include "lf_options.def"
};

/* Where each option lives in a case: a scalar's field and has_NAME, a tensor's index. */
static const struct {
    size_t value, given;
    int tensor;
} fields[LF_OPTION_COUNT] = {
#define LF_OPTION(ID, NAME, ...) [LF_OPTION_##ID] = {offsetof(lf_case, NAME), offsetof(lf_case, has_##NAME), -1},
#define LF_TENSOR_OPTION(ID, ...) [LF_OPTION_##ID] = {0, 0, LF_T_##ID},
#include "lf_options.def"
};

const lf_option_info *lf_option_of(lf_option o) { return &options[o < LF_OPTION_COUNT ? o : 0]; }
bool lf_option_is_scalar(lf_option o) { return options[o].type != LF_TYPE_tensor; }
bool lf_option_is_integer(lf_option o)
{
    return options[o].type == LF_TYPE_int64_t || options[o].type == LF_TYPE_lf_choice;
}

const char *lf_option_choice_name(lf_option o, int64_t i)
{
    return options[o].names && i >= 0 && i < options[o].n_names ? options[o].names[i] : "?";
}

bool lf_option_choice_parse(lf_option o, const char *name, int64_t *out)
{
    for (int i = 0; i < options[o].n_names; i++)
        if (!strcmp(name ? name : "None", options[o].names[i])) {
            *out = i;
            return true;
        }
    return false;
}

const char *lf_option_choice_value(lf_option o, int64_t i)
{
    const char *name = lf_option_choice_name(o, i);
    return strcmp(name, "None") ? name : NULL;
}

void lf_option_choice_list(lf_option o, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < options[o].n_names && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, i ? ", '%s'" : "'%s'", options[o].names[i]);
}

bool lf_option_parse(const char *name, lf_option *out)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (!strcmp(name, options[o].name)) {
            *out = (lf_option)o;
            return true;
        }
    return false;
}

static void *field(const lf_case *c, lf_option o) { return (char *)c + fields[o].value; }
static bool *given_flag(const lf_case *c, lf_option o) { return (bool *)((char *)c + fields[o].given); }

bool lf_case_given(const lf_case *c, lf_option o)
{
    return lf_option_is_scalar(o) ? *given_flag(c, o) : lf_case_tensor_const(c, fields[o].tensor)->present;
}

double lf_case_option_value(const lf_case *c, lf_option o)
{
    return lf_option_is_integer(o) ? (double)*(int64_t *)field(c, o) : *(double *)field(c, o);
}

int64_t lf_case_option_int(const lf_case *c, lf_option o) { return *(int64_t *)field(c, o); }

bool lf_case_option_on(const lf_case *c, lf_option o)
{
    if (!lf_option_is_scalar(o)) return lf_case_given(c, o);
    return *given_flag(c, o) && !(lf_case_option_value(c, o) == options[o].default_value);
}

void lf_case_set_option(lf_case *c, lf_option o, double v)
{
    if (lf_option_is_integer(o))
        *(int64_t *)field(c, o) = (int64_t)v;
    else
        *(double *)field(c, o) = v;
    *given_flag(c, o) = true;
}

void lf_case_set_option_int(lf_case *c, lf_option o, int64_t v)
{
    *(int64_t *)field(c, o) = v;
    *given_flag(c, o) = true;
}

void lf_case_option_off(lf_case *c, lf_option o)
{
    if (!lf_option_is_scalar(o)) {
        lf_tensor_free(lf_case_tensor(c, fields[o].tensor));
        return;
    }
    lf_case_set_option(c, o, options[o].default_value);
    *given_flag(c, o) = false;
}

/* A new case: every option at this table's default, then the case's own (here, not in lf_case.c, which
 * options read: so neither calls the other). */
void lf_case_init(lf_case *c)
{
    memset(c, 0, sizeof *c);
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_option_is_scalar(o)) lf_case_option_off(c, o);
    c->world_size = 1;
    c->reduction = LF_REDUCTION_MEAN;
    strcpy(c->reduction_name, "mean");
    c->backward.input_requires_grad = true;
    c->backward.linear_weight_requires_grad = c->backward.linear_bias_requires_grad = true;
}
