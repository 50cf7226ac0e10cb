/* lf_case_json.h - case files: readable JSON, keys named as PyTorch names them.
 *
 *   {"loss": "cross_entropy",
 *    "input":  {"dtype": "float32", "shape": [4, 3], "values": {"init": "randn", "seed": 7}},
 *    "target": {"dtype": "int64", "shape": [4], "values": [0, 1, 3, 2]},
 *    "weight": {"dtype": "float32", "shape": [3], "values": [1.0, 0.5, 2.0]},
 *    "ignore_index": -100, "reduction": "mean", "label_smoothing": 0.0,
 *    "expect": "device_assert"}
 *
 * `values` is a flat row-major list (non-finite numbers as "nan", "inf", "-inf")
 * or an init object (lf_case.h). Absent options take PyTorch's defaults. Reading
 * then writing gives the same case: lists print each number in the shortest form
 * that reads back to the same value of its dtype. */
#ifndef LF_CASE_JSON_H
#define LF_CASE_JSON_H

#include <stddef.h>

#include "lf_case.h"

/* Parse a case. On failure returns false and err names the key and the problem. */
bool lf_case_parse_json(const char *text, size_t len, lf_case *c, char *err, size_t errlen);

/* The case as JSON text (malloc'd, ends with a newline), or NULL when out of memory. */
char *lf_case_to_json(const lf_case *c);

/* One number as JSON in the shortest form that reads back to v of type t. */
void lf_json_number(char *buf, size_t len, double v, lf_dtype t);

#endif
