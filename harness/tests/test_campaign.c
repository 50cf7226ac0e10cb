/* test_campaign.c - a campaign's ledger (lf_campaign.h): hits of one
 * signature count as one entry, and a signature hit both as an accepted
 * deviation and as a finding is two entries, each with its own first case, so
 * that the accepted one never hides the finding (a public kernel's frozen
 * input, changed in place, was reported only as its claimed in-place gradient). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lf_campaign.h"
#include "lf_test_util.h"

static const char *const CASE =
    "{\"loss\": \"cross_entropy\","
    " \"input\": {\"dtype\": \"float32\", \"shape\": [2, 3], \"values\": [1, 2, 3, 4, 5, 6]},"
    " \"target\": {\"dtype\": \"int64\", \"shape\": [2], \"values\": [0, 2]}}";

static void accepted_never_hides_a_finding(void **state)
{
    (void)state;
    char dir[] = "/tmp/lf_campaign_test.XXXXXX", accepted_file[4600], finding_file[4600];
    lf_case c;
    bool is_new;
    int n;
    assert_non_null(mkdtemp(dir));
    lf_test_case(&c, CASE);
    assert_true(lf_campaign_begin(dir, true));
    const char *sig = "input-modified/kernel[cross_entropy,float32,mean]";
    assert_true(lf_campaign_record(dir, sig, "grad_in_place: the gradient in the logits", &c, &is_new));
    assert_true(is_new);
    assert_true(lf_campaign_record(dir, sig, "grad_in_place: the gradient in the logits", &c, &is_new));
    assert_false(is_new);
    assert_true(lf_campaign_record(dir, sig, NULL, &c, &is_new));
    assert_true(is_new); /* the finding's first case, beside the accepted one's */
    assert_true(lf_campaign_record(dir, sig, NULL, &c, &is_new));
    assert_false(is_new);
    lf_campaign_entry *e = lf_campaign_read(dir, &n);
    assert_int_equal(n, 2);
    int accepted = e[0].accepted[0] ? 0 : 1, finding = 1 - accepted;
    assert_string_equal(e[accepted].signature, sig);
    assert_string_equal(e[finding].signature, sig);
    assert_string_equal(e[finding].accepted, "");
    assert_int_equal(e[accepted].hits, 2);
    assert_int_equal(e[finding].hits, 2);
    lf_campaign_case_file(dir, &e[accepted], accepted_file, sizeof accepted_file);
    lf_campaign_case_file(dir, &e[finding], finding_file, sizeof finding_file);
    assert_string_not_equal(accepted_file, finding_file);
    assert_int_equal(access(accepted_file, R_OK), 0);
    assert_int_equal(access(finding_file, R_OK), 0);
    free(e);
    lf_case_free(&c);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    assert_int_equal(system(rm), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(accepted_never_hides_a_finding)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
