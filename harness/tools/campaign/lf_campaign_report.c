/* lf_campaign_report.c - what a kernel's author reads first after a
 * campaign: DIR/report.md and DIR/report.json, one entry per finding
 * signature, the most harmful first (lf_finding_harm), what the kernel's
 * claims accept last. Each entry's minimized case is re-checked on the
 * campaign's backend, so the report shows PyTorch's answer (the spec) beside
 * the kernel's as they are now, and the command that replays it. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_campaign.h"
#include "lf_case_json.h"
#include "lf_hash.h"
#include "lf_report.h"

typedef struct {
    const lf_campaign_entry *e;
    int harm;
    const char *harm_label;
    char file[4600]; /* the minimized repro, else the first case */
    char one_line[700];
    char pytorch[400], kernel[400], detail[512];
} report_item;

/* A case file of the campaign (lossfuzz's JSON format). */
static bool load_case(const char *path, lf_case *c, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        text = malloc((size_t)size + 1);
    bool ok = text && fread(text, 1, (size_t)size, f) == (size_t)size;
    if (f) fclose(f);
    if (!ok) snprintf(err, errlen, "cannot read %s", path);
    ok = ok && lf_case_parse_json(text, (size_t)size, c, err, errlen);
    free(text);
    return ok;
}

/* The class of a signature: the part before the call's traits. */
static void class_of(const char *signature, char *out, size_t len)
{
    snprintf(out, len, "%.*s", (int)strcspn(signature, "["), signature);
}

/* Whether the case file at path was minimized for this signature (its note says so). */
static bool is_repro_of(const char *path, const char *signature)
{
    lf_case c;
    char err[256], want[LF_SIGNATURE_MAX + 16];
    if (!load_case(path, &c, err, sizeof err)) return false;
    snprintf(want, sizeof want, "signature %s", signature);
    const char *at = strstr(c.note, want);
    bool yes = at && (at[strlen(want)] == 0 || at[strlen(want)] == ';');
    lf_case_free(&c);
    return yes;
}

void lf_campaign_case_file(const char *dir, const lf_campaign_entry *e, char *out, size_t len)
{
    char stem[200], sub[4200];
    lf_campaign_first_stem(e->signature, e->accepted[0] != 0, stem, sizeof stem);
    snprintf(out, len, "%s/first/%s.json", dir, stem);
    if (e->accepted[0]) return; /* an accepted deviation is never minimized */
    lf_finding_file_stem(stem, sizeof stem, e->signature, 0);
    size_t prefix = strlen(stem) - 16; /* the sanitized signature and its '-', without the hash */
    snprintf(sub, sizeof sub, "%s/repros", dir);
    DIR *d = opendir(sub);
    for (struct dirent *f; d && (f = readdir(d));) {
        char path[4600];
        if (strncmp(f->d_name, stem, prefix) || !strstr(f->d_name, ".json")) continue;
        snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
        if (!is_repro_of(path, e->signature)) continue;
        snprintf(out, len, "%s", path);
        break;
    }
    if (d) closedir(d);
}

/* The case compacted into one line (cut, with the file to read, when long). */
static void one_line(const lf_case *c, char *out, size_t len)
{
    char *text = lf_case_to_json(c);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    char *compact = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)) : NULL;
    const char *s = compact ? compact : "(not printable)";
    if (strlen(s) < len)
        snprintf(out, len, "%s", s);
    else
        snprintf(out, len, "%.*s ...", (int)len - 8, s);
    free(compact);
    json_decref(j);
    free(text);
}

static void check_item(report_item *it, const lf_backend *be)
{
    lf_case c;
    char err[512], cls[96];
    if (!load_case(it->file, &c, err, sizeof err)) {
        snprintf(it->one_line, sizeof it->one_line, "(unreadable: %s)", err);
        return;
    }
    one_line(&c, it->one_line, sizeof it->one_line);
    lf_verdict v;
    lf_oracle_check(&c, be, &v);
    class_of(it->e->signature, cls, sizeof cls);
    const char *path = strchr(cls, '/') ? strchr(cls, '/') + 1 : "";
    const lf_result *k = !strncmp(path, "guard", 5)       ? &v.guard
                         : !strncmp(path, "reference", 9) ? &v.reference
                         : v.has_kernel                   ? &v.kernel
                                                          : &v.guard;
    lf_result_line(it->pytorch, sizeof it->pytorch, &v.spec);
    lf_result_line(it->kernel, sizeof it->kernel, k);
    snprintf(it->detail, sizeof it->detail, "%s", v.finding ? v.detail : "(not reproduced by this repro now)");
    lf_verdict_free(&v);
    lf_case_free(&c);
}

static int by_harm(const void *a, const void *b)
{
    const report_item *x = a, *y = b;
    int ax = x->e->accepted[0] != 0, ay = y->e->accepted[0] != 0;
    if (ax != ay) return ax - ay;
    if (x->harm != y->harm) return x->harm - y->harm;
    return x->e->first_s < y->e->first_s ? -1 : x->e->first_s > y->e->first_s;
}

static void replay_command(char *out, size_t len, const char *kernel, const char *file)
{
    snprintf(out, len, "lossfuzz check%s%s %s", kernel ? " --kernel " : "", kernel ? kernel : "", file);
}

static void write_markdown(FILE *f, const char *title, report_item *it, int n, const char *kernel)
{
    long hits = 0;
    int accepted = 0;
    for (int i = 0; i < n; i++) hits += it[i].e->hits, accepted += it[i].e->accepted[0] != 0;
    fprintf(f,
            "# lossfuzz campaign: %s\n\n%d distinct finding%s (%d accepted by the kernel's claims), %ld hits in all.\n",
            title, n - accepted, n - accepted == 1 ? "" : "s", accepted, hits);
    const char *section = NULL;
    for (int i = 0; i < n; i++) {
        const char *heading = it[i].e->accepted[0] ? "Accepted by the kernel's claims" : it[i].harm_label;
        char replay[4700];
        if (heading != section) fprintf(f, "\n## %s\n", section = heading);
        replay_command(replay, sizeof replay, kernel, it[i].file);
        fprintf(f, "\n### %d. `%s`\nfirst after %.1f s, %ld hit%s%s%s\n\n", i + 1, it[i].e->signature, it[i].e->first_s,
                it[i].e->hits, it[i].e->hits == 1 ? "" : "s", it[i].e->accepted[0] ? "; accepted: " : "",
                it[i].e->accepted);
        fprintf(f, "- PyTorch: %s\n- kernel: %s\n- %s\n- case: `%s`\n- replay: `%s`\n", it[i].pytorch, it[i].kernel,
                it[i].detail, it[i].one_line, replay);
    }
    if (n == 0) fprintf(f, "\nNo finding.\n");
}

static void write_json(FILE *f, const char *title, report_item *it, int n, const char *kernel)
{
    json_t *root = json_object(), *list = json_array();
    json_object_set_new(root, "title", json_string(title));
    for (int i = 0; i < n; i++) {
        char cls[96], replay[4700];
        class_of(it[i].e->signature, cls, sizeof cls);
        replay_command(replay, sizeof replay, kernel, it[i].file);
        json_t *o = json_object();
        json_object_set_new(o, "signature", json_string(it[i].e->signature));
        json_object_set_new(o, "class", json_string(cls));
        json_object_set_new(o, "harm", json_string(it[i].harm_label));
        json_object_set_new(o, "accepted", it[i].e->accepted[0] ? json_string(it[i].e->accepted) : json_null());
        json_object_set_new(o, "hits", json_integer(it[i].e->hits));
        json_object_set_new(o, "first_s", json_real(it[i].e->first_s));
        json_object_set_new(o, "file", json_string(it[i].file));
        json_object_set_new(o, "case", json_string(it[i].one_line));
        json_object_set_new(o, "pytorch", json_string(it[i].pytorch));
        json_object_set_new(o, "kernel", json_string(it[i].kernel));
        json_object_set_new(o, "detail", json_string(it[i].detail));
        json_object_set_new(o, "replay", json_string(replay));
        json_array_append_new(list, o);
    }
    json_object_set_new(root, "findings", list);
    json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    fputc('\n', f);
    json_decref(root);
}

int lf_campaign_report(const char *dir, const lf_backend *be, const char *kernel, const char *title)
{
    int n;
    lf_campaign_entry *e = lf_campaign_read(dir, &n);
    report_item *it = calloc((size_t)(n ? n : 1), sizeof *it);
    if (!it) {
        free(e);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        it[i].e = &e[i];
        it[i].harm = lf_finding_harm(e[i].signature, &it[i].harm_label);
        lf_campaign_case_file(dir, &e[i], it[i].file, sizeof it[i].file);
        check_item(&it[i], be);
    }
    qsort(it, (size_t)n, sizeof *it, by_harm);
    char path[4200];
    int findings = 0;
    for (int i = 0; i < n; i++) findings += e[i].accepted[0] == 0;
    snprintf(path, sizeof path, "%s/report.md", dir);
    FILE *md = fopen(path, "w");
    snprintf(path, sizeof path, "%s/report.json", dir);
    FILE *js = fopen(path, "w");
    if (md) write_markdown(md, title, it, n, kernel);
    if (js) write_json(js, title, it, n, kernel);
    bool ok = md && js;
    if (md) fclose(md);
    if (js) fclose(js);
    free(it);
    free(e);
    return ok ? findings : -1;
}
