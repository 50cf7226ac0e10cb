/* lf_planted_call_up.c - a call up, planted in the spec's floor only by ci/floors-test.sh's build
 * (-DLF_PLANT_CALL_UP=ON): the spec calls the oracle, so lf_floor_check_lf_spec must fail to link. */
#include "lf_case.h"

struct lf_backend;
typedef struct lf_verdict lf_verdict;
void lf_oracle_check(const lf_case *c, const struct lf_backend *be, lf_verdict *v);

void lf_planted_call_up(const lf_case *c) { lf_oracle_check(c, 0, 0); }
