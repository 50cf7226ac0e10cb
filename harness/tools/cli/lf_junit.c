/* lf_junit.c - `lossfuzz check --junit FILE`: one JUnit XML test case per case
 * file, the form CI systems (GitHub Actions reporters, GitLab, Jenkins) read.
 * A finding is a <failure> (its class the type, the case's text report the
 * body), an unusable file an <error>, a case outside a kernel's claims
 * <skipped>. Cases are kept in memory and the file is written at the end,
 * because <testsuite> carries the counts. */
#include "lf_junit.h"

#include <stdlib.h>
#include <string.h>

#include "lf_report.h"

struct lf_junit {
    char *path;
    char *cases; /* the <testcase> elements so far (open_memstream) */
    size_t cases_len;
    FILE *out;
    int tests, failures, errors, skipped;
    double seconds;
};

/* s with XML's five special characters escaped; control characters (other
 * than tab and newline) are not allowed in XML 1.0 and become '?'. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '&')
            fputs("&amp;", f);
        else if (ch == '<')
            fputs("&lt;", f);
        else if (ch == '>')
            fputs("&gt;", f);
        else if (ch == '"')
            fputs("&quot;", f);
        else if (ch == '\'')
            fputs("&apos;", f);
        else if (ch < 0x20 && ch != '\n' && ch != '\t')
            fputc('?', f);
        else
            fputc(ch, f);
    }
}

lf_junit *lf_junit_open(const char *path, char *err, size_t errlen)
{
    lf_junit *j = calloc(1, sizeof *j);
    FILE *probe = fopen(path, "w"); /* fail now, not after a long run */
    if (!probe) {
        snprintf(err, errlen, "cannot write %s", path);
        free(j);
        return NULL;
    }
    fclose(probe);
    if (!j || !(j->path = strdup(path)) || !(j->out = open_memstream(&j->cases, &j->cases_len))) {
        snprintf(err, errlen, "out of memory");
        if (j) free(j->path);
        free(j);
        return NULL;
    }
    return j;
}

static void case_open(lf_junit *j, const char *file, double seconds)
{
    const char *slash = strrchr(file, '/');
    j->tests++;
    j->seconds += seconds;
    fputs("    <testcase classname=\"", j->out);
    const char *dir = file;
    while (*dir == '/') dir++;
    if (slash && slash > dir) { /* the case's folder, dots for slashes, as JUnit's class names go */
        for (const char *s = dir; s < slash; s++) fputc(*s == '/' ? '.' : *s, j->out);
    } else {
        fputs("lossfuzz", j->out);
    }
    fputs("\" name=\"", j->out);
    put_escaped(j->out, slash ? slash + 1 : file);
    fprintf(j->out, "\" file=\"");
    put_escaped(j->out, file);
    fprintf(j->out, "\" time=\"%.3f\">\n", seconds);
}

void lf_junit_case(lf_junit *j, const char *file, double seconds, const lf_case *c, const lf_verdict *v)
{
    if (!j) return;
    case_open(j, file, seconds);
    if (v->finding) {
        j->failures++;
        fputs("      <failure type=\"", j->out);
        put_escaped(j->out, v->finding_class);
        fputs("\" message=\"", j->out);
        put_escaped(j->out, v->finding_class);
        fputs(": ", j->out);
        put_escaped(j->out, v->detail);
        fputs("\">", j->out);
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        if (mem) {
            lf_report_text(mem, file, c, v);
            fclose(mem);
            put_escaped(j->out, text);
        }
        free(text);
        fputs("</failure>\n", j->out);
    } else if (v->kernel_skip[0]) {
        j->skipped++;
        fputs("      <skipped message=\"the kernel does not claim the case's ", j->out);
        put_escaped(j->out, v->kernel_skip);
        fputs("\"/>\n", j->out);
    }
    fputs("    </testcase>\n", j->out);
}

void lf_junit_unusable(lf_junit *j, const char *file, const char *error)
{
    if (!j) return;
    case_open(j, file, 0);
    j->errors++;
    fputs("      <error type=\"unusable\" message=\"", j->out);
    put_escaped(j->out, error);
    fputs("\"/>\n    </testcase>\n", j->out);
}

bool lf_junit_close(lf_junit *j, char *err, size_t errlen)
{
    if (!j) return true;
    fclose(j->out);
    FILE *f = fopen(j->path, "w");
    bool ok = f != NULL;
    if (f) {
        const char *fmt = "tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"";
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"lossfuzz check\" ", f);
        fprintf(f, fmt, j->tests, j->failures, j->errors, j->skipped, j->seconds);
        fputs(">\n  <testsuite name=\"lossfuzz check\" ", f);
        fprintf(f, fmt, j->tests, j->failures, j->errors, j->skipped, j->seconds);
        fputs(">\n", f);
        if (j->cases_len) fwrite(j->cases, 1, j->cases_len, f);
        fputs("  </testsuite>\n</testsuites>\n", f);
        ok = !ferror(f);
        ok = fclose(f) == 0 && ok;
    }
    if (!ok) snprintf(err, errlen, "cannot write %s", j->path);
    free(j->cases);
    free(j->path);
    free(j);
    return ok;
}
