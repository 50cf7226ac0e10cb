/* lf_describe.h - the facts lossfuzz's other languages read from the C side
 * (`lossfuzz describe --json`): the loss table, the dtypes, the error classes. */
#ifndef LF_DESCRIBE_H
#define LF_DESCRIBE_H

#include <jansson.h>

json_t *lf_describe(void);

#endif
