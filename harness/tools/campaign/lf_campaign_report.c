/* lf_campaign_report.c - what a kernel's author reads first after a
 * campaign: DIR/report.md and DIR/report.json, one entry per cause
 * (lf_campaign_entries.c), the most harmful first (lf_finding_harm), what
 * the kernel's claims accept last, one entry per claim. Each entry's smallest
 * repro was re-checked on the campaign's backend, so the report shows
 * PyTorch's answer (the spec) beside the kernel's as they are now, the
 * command that replays it, and the ledger's signatures it folds. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "lf_campaign.h"

static void replay_command(char *out, size_t len, const char *kernel, const char *file)
{
    snprintf(out, len, "lossfuzz check%s%s %s", kernel ? " --kernel " : "", kernel ? kernel : "", file);
}

enum { MD_VARIANTS = 8 }; /* report.md lists this many variants of an entry; report.json all */

/* The harms of an entry: each finding class its variants show, with its smallest variant as the repro.
 * classes[k] is the member index; the count is returned. */
static int harms_of(const lf_campaign_entries *x, const lf_campaign_group *gr, int *classes, int cap)
{
    int n = 0;
    for (int m = 0; m < gr->n_members; m++) {
        const lf_campaign_variant *v = &x->v[gr->members[m]];
        size_t len = strcspn(v->e->signature, "[");
        int k = 0;
        while (k < n && (strcspn(x->v[classes[k]].e->signature, "[") != len ||
                         strncmp(x->v[classes[k]].e->signature, v->e->signature, len)))
            k++;
        if (k == n && n == cap) continue;
        if (k == n || v->size < x->v[classes[k]].size) classes[k] = gr->members[m];
        if (k == n) n++;
    }
    return n;
}

static void write_markdown(FILE *f, const char *title, const lf_campaign_entries *x, const char *kernel)
{
    long hits = 0, covered = 0;
    int findings = lf_campaign_findings(x);
    for (int g = 0; g < x->n_g; g++) hits += x->g[g].hits, covered += x->g[g].accepted ? x->g[g].hits : 0;
    fprintf(f,
            "# lossfuzz campaign: %s\n\n%d finding%s (one entry per cause) from %d signature%s, %d claim%s of the "
            "kernel accepting %ld case%s, %ld hits in all.\n",
            title, findings, findings == 1 ? "" : "s", x->n_v, x->n_v == 1 ? "" : "s", x->n_g - findings,
            x->n_g - findings == 1 ? "" : "s", covered, covered == 1 ? "" : "s", hits);
    if (x->replays) /* how the causes were found: an ablation that showed another finding changed the bug */
        fprintf(f, "The causes took %d replays with a trait taken away; %d of them showed another finding.\n",
                x->replays, x->changed);
    const char *section = NULL;
    for (int g = 0; g < x->n_g; g++) {
        const lf_campaign_group *gr = &x->g[g];
        const lf_campaign_variant *r = &x->v[gr->repro];
        const char *heading = gr->accepted ? "Accepted by the kernel's claims" : gr->harm_label;
        char replay[4700];
        if (heading != section) fprintf(f, "\n## %s\n", section = heading);
        replay_command(replay, sizeof replay, kernel, r->file);
        fprintf(f, "\n### %d. `%s` - %s%s\n", g + 1, r->e->signature, gr->accepted ? "claim " : "", gr->cause);
        fprintf(f, "first after %.1f s, %ld hit%s%s%s\n\n", gr->first_s, gr->hits, gr->hits == 1 ? "" : "s",
                gr->accepted ? "; accepted: " : "", gr->accepted ? r->e->accepted : "");
        fprintf(f, "- PyTorch: %s\n- kernel: %s\n- %s\n", r->pytorch, r->kernel, r->detail);
        if (r->flaky[0]) fprintf(f, "- flaky: %s\n", r->flaky);
        fprintf(f, "- case: `%s`\n- replay: `%s`\n", r->one_line, replay);
        int classes[16], n_classes = harms_of(x, gr, classes, 16);
        for (int k = 0; n_classes > 1 && k < n_classes; k++) { /* one cause, several harms: a repro of each */
            const lf_campaign_variant *h = &x->v[classes[k]];
            replay_command(replay, sizeof replay, kernel, h->file);
            fprintf(f, "- harm `%.*s`: `%s`\n", (int)strcspn(h->e->signature, "["), h->e->signature, replay);
        }
        if (gr->n_members < 2) continue;
        fprintf(f, "- %d variants:", gr->n_members);
        for (int m = 0; m < gr->n_members && m < MD_VARIANTS; m++) {
            const lf_campaign_entry *e = x->v[gr->members[m]].e;
            fprintf(f, "%s `%s` (%ld)", m ? "," : "", e->signature, e->hits);
        }
        fprintf(f, gr->n_members > MD_VARIANTS ? ", and %d more (report.json)\n" : "\n", gr->n_members - MD_VARIANTS);
    }
    if (x->n_g == 0) fprintf(f, "\nNo finding.\n");
    if (x->n_excused) fprintf(f, "\n## Excused by PyTorch's listed differences and leniencies\n\n");
    for (int i = 0; i < x->n_excused; i++) /* the kernel answered as its PyTorch does on its device */
        fprintf(f, "- `%s`: %ld case%s. %s (%s)\n", x->excused[i].known->id, x->excused[i].hits,
                x->excused[i].hits == 1 ? "" : "s", x->excused[i].known->what, x->excused[i].known->source);
}

static json_t *variant_json(const lf_campaign_variant *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "signature", json_string(v->e->signature));
    json_object_set_new(o, "hits", json_integer(v->e->hits));
    json_object_set_new(o, "first_s", json_real(v->e->first_s));
    json_object_set_new(o, "file", json_string(v->file));
    if (v->e->accepted[0]) json_object_set_new(o, "accepted", json_string(v->e->accepted));
    if (v->flaky[0]) json_object_set_new(o, "flaky", json_string(v->flaky));
    return o;
}

static void write_json(FILE *f, const char *title, const lf_campaign_entries *x, const char *kernel)
{
    json_t *root = json_object(), *list = json_array();
    json_object_set_new(root, "title", json_string(title));
    for (int g = 0; g < x->n_g; g++) {
        const lf_campaign_group *gr = &x->g[g];
        const lf_campaign_variant *r = &x->v[gr->repro];
        char cls[96], replay[4700];
        snprintf(cls, sizeof cls, "%.*s", (int)strcspn(r->e->signature, "["), r->e->signature);
        replay_command(replay, sizeof replay, kernel, r->file);
        json_t *o = json_object(), *variants = json_array();
        json_object_set_new(o, "signature", json_string(r->e->signature));
        json_object_set_new(o, "class", json_string(cls));
        json_object_set_new(o, "harm", json_string(gr->harm_label));
        json_object_set_new(o, "cause", json_string(gr->cause));
        json_object_set_new(o, "accepted", gr->accepted ? json_string(r->e->accepted) : json_null());
        json_object_set_new(o, "hits", json_integer(gr->hits));
        json_object_set_new(o, "first_s", json_real(gr->first_s));
        json_object_set_new(o, "file", json_string(r->file));
        json_object_set_new(o, "case", json_string(r->one_line));
        json_object_set_new(o, "pytorch", json_string(r->pytorch));
        json_object_set_new(o, "kernel", json_string(r->kernel));
        json_object_set_new(o, "detail", json_string(r->detail));
        json_object_set_new(o, "flaky", r->flaky[0] ? json_string(r->flaky) : json_null());
        json_object_set_new(o, "replay", json_string(replay));
        for (int m = 0; m < gr->n_members; m++) json_array_append_new(variants, variant_json(&x->v[gr->members[m]]));
        int classes[16], n_classes = harms_of(x, gr, classes, 16);
        json_t *harms = json_array();
        for (int k = 0; k < n_classes; k++) {
            const lf_campaign_variant *h = &x->v[classes[k]];
            json_t *one = json_object();
            snprintf(cls, sizeof cls, "%.*s", (int)strcspn(h->e->signature, "["), h->e->signature);
            replay_command(replay, sizeof replay, kernel, h->file);
            json_object_set_new(one, "class", json_string(cls));
            json_object_set_new(one, "file", json_string(h->file));
            json_object_set_new(one, "replay", json_string(replay));
            json_array_append_new(harms, one);
        }
        json_object_set_new(o, "harms", harms);
        json_object_set_new(o, "variants", variants);
        json_array_append_new(list, o);
    }
    json_object_set_new(root, "findings", list);
    json_t *excused = json_array();
    for (int i = 0; i < x->n_excused; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "id", json_string(x->excused[i].known->id));
        json_object_set_new(e, "cases", json_integer(x->excused[i].hits));
        json_object_set_new(e, "what", json_string(x->excused[i].known->what));
        json_object_set_new(e, "source", json_string(x->excused[i].known->source));
        json_array_append_new(excused, e);
    }
    json_object_set_new(root, "excused", excused);
    json_object_set_new(root, "cause_replays", json_integer(x->replays));
    json_object_set_new(root, "cause_replays_changed", json_integer(x->changed));
    json_object_set_new(root, "ablations_not_applied", json_integer(x->not_applied));
    json_object_set_new(root, "cause_ms", json_real(x->cause_ms));
    json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    fputc('\n', f);
    json_decref(root);
}

int lf_campaign_report(const char *dir, const lf_campaign_entries *x, const char *kernel, const char *title)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    FILE *md = fopen(path, "w");
    snprintf(path, sizeof path, "%s/report.json", dir);
    FILE *js = fopen(path, "w");
    if (md) write_markdown(md, title, x, kernel);
    if (js) write_json(js, title, x, kernel);
    bool ok = md && js;
    if (md) fclose(md);
    if (js) fclose(js);
    return ok ? lf_campaign_findings(x) : -1;
}
