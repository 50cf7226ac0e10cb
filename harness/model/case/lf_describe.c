/* lf_describe.c - the facts the Python worker reads from the C side, as JSON
 * (`lossfuzz describe --json`; the executor hands them to each worker); with
 * the losses' rows (lf_loss_row_of). */
#include "lf_describe.h"

#include <string.h>

#include "lf_case.h"
#include "lf_errors.h"
#include "lf_loss_row.h"

static json_t *words(const char *text) /* "input target" -> ["input", "target"] */
{
    json_t *a = json_array();
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        json_array_append_new(a, json_string(w));
    return a;
}

static json_t *loss_json(lf_loss l)
{
    const lf_loss_info *L = lf_loss_of(l);
    static const char *const target_kinds[] = {
        [LF_CLASS_TARGETS] = "class", [LF_PROB_TARGETS] = "prob", [LF_BINARY_TARGETS] = "binary"};
    json_t *targets = json_array(), *options = json_array();
    for (int k = 0; k < (int)(sizeof target_kinds / sizeof *target_kinds); k++)
        if (L->targets & LF_TAKES(k)) json_array_append_new(targets, json_string(target_kinds[k]));
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_loss_options(l) >> o & 1) json_array_append_new(options, json_string(lf_option_of(o)->name));
    /* PyTorch's messages only it raises, and the CPU's words where CUDA asserts (its home's row) */
    const lf_loss_row *row = lf_loss_row_of(l);
    json_t *messages = json_array();
    for (int i = 0; i < row->n_messages; i++)
        json_array_append_new(messages, json_pack("[s, s]", row->messages[i].pattern, row->messages[i].error));
    json_t *cpu_assert = row->cpu_assert_pattern ? json_pack("[s, s, s?]", row->cpu_assert_exception,
                                                             row->cpu_assert_pattern, row->cpu_assert_error)
                                                 : json_null();
    return json_pack("{s:s, s:o, s:o, s:b, s:b, s:o, s:o, s:o}", "name", L->name, "targets", targets, "options",
                     options, "log_softmax", L->log_softmax, "fused_linear", L->fused_linear, "positional",
                     words(L->positional), "messages", messages, "cpu_assert", cpu_assert);
}

json_t *lf_describe(void)
{
    json_t *losses = json_array(), *dtypes = json_array(), *errors = json_array();
    for (int l = 0; l < LF_LOSS_COUNT; l++) json_array_append_new(losses, loss_json((lf_loss)l));
    for (int t = 0; t < LF_DTYPE_COUNT; t++) json_array_append_new(dtypes, json_string(lf_dtype_name((lf_dtype)t)));
    const char *name;
    lf_error_source source;
    for (int i = 0; (name = lf_error_at(i, &source, NULL, NULL)); i++)
        json_array_append_new(errors, json_pack("{s:s, s:s}", "name", name, "source", lf_error_source_names[source]));
    /* the options (lf_options.def): the scalars' defaults, the tensors' names, the LLM family's scalars */
    json_t *defaults = json_object(), *tensors = json_array(), *llm = json_array(), *outputs = json_array(),
           *chunked = json_array();
    for (int o = 0; o < LF_OPTION_COUNT; o++) {
        const lf_option_info *O = lf_option_of(o);
        if (!lf_option_is_scalar(o)) {
            json_array_append_new(tensors, json_string(O->name));
            continue;
        }
        const char *choice = lf_option_choice_value(o, (int64_t)O->default_value);
        json_object_set_new(defaults, O->name,
                            O->type == LF_TYPE_lf_choice ? (choice ? json_string(choice) : json_null())
                            : O->type == LF_TYPE_int64_t ? json_integer((json_int_t)O->default_value)
                                                         : json_real(O->default_value));
        if (O->family == LF_LLM) json_array_append_new(llm, json_string(O->name));
        if (O->family == LF_CHUNKED) json_array_append_new(chunked, json_string(O->name));
    }
    for (int o = 0; o < LF_OUT_COUNT; o++) json_array_append_new(outputs, json_string(lf_llm_output_names[o]));
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}, s:o}", "losses", losses, "dtypes", dtypes, "errors",
                     errors, "option_defaults", defaults, "tensor_options", tensors, "llm", "options", llm, "outputs",
                     outputs, "chunked_options", chunked);
}
