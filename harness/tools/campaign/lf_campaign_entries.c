/* lf_campaign_entries.c - one bug, one entry: the ledger's signatures (fine,
 * one per trait set the fuzzer met) re-checked on the campaign's backend and
 * folded into the report's entries (lf_campaign.h). A finding folds by its
 * harm and its cause (lf_cause.h: the traits its minimized case needs), so a
 * wrong gradient beside a wrong value of the same cause is one entry; a call
 * PyTorch rejects that the kernel answers - with numbers on one case, a crash
 * or an out-of-bounds read on another - folds by the check missing; an
 * accepted deviation by the claim that accepts it. Deterministic: the same
 * ledger and kernel, the same entries. */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lf_campaign.h"
#include "lf_case_json.h"
#include "lf_cause.h"
#include "lf_exec.h"
#include "lf_hash.h"
#include "lf_report.h"

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
    double newest = -1; /* an earlier campaign's repro of the same signature stays in repros/: this one's is newer */
    for (struct dirent *f; d && (f = readdir(d));) {
        char path[4600];
        struct stat st;
        if (strncmp(f->d_name, stem, prefix) || !strstr(f->d_name, ".json")) continue;
        snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
        if (stat(path, &st) != 0 || !is_repro_of(path, e->signature)) continue;
        double t = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
        if (t < newest || (t == newest && strcmp(path, out) > 0)) continue; /* a tie: by name, not readdir's order */
        newest = t;
        snprintf(out, len, "%s", path);
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

/* The check a finding says the kernel lacks: the error PyTorch gives where
 * the kernel answered with numbers, or crashed or strayed out of bounds, as
 * the kernel's claims name it (lf_missing_check). "" for others. */
static void missing_check(const char *cls, const lf_case *c, const lf_backend *be, const lf_verdict *v, char *out,
                          size_t len)
{
    static const char *const answered[] = {"kernel-silent/", "kernel-miss/", "guard-miss/"};
    static const char *const broke[] = {"crash/", "oob-read/", "oob-write/", "sanitizer/", "hang/", "cuda-error/"};
    out[0] = 0;
    for (size_t i = 0; i < sizeof answered / sizeof answered[0]; i++)
        if (!strncmp(cls, answered[i], strlen(answered[i]))) snprintf(out, len, "%s", cls + strlen(answered[i]));
    for (size_t i = 0; i < sizeof broke / sizeof broke[0]; i++)
        if (!strncmp(cls, broke[i], strlen(broke[i])) && v->spec.kind != LF_OUTCOME_OK && v->spec.error[0])
            snprintf(out, len, "%s", v->spec.error);
    if (out[0] && be->kernel) {
        char error[96];
        snprintf(error, sizeof error, "%s", out);
        snprintf(out, len, "%s", lf_missing_check(c, lf_exec_kernel_claims(be->kernel), error));
    }
}

/* How a kernel's wrong numbers differ from the spec's, at the first value out of tolerance: a NaN PyTorch gives
 * returned as a number (a mean of nothing as 0) or as inf, a finite value returned non-finite, an inf returned
 * finite, or a finite value off; "grad" where the values hold (the gradient is wrong). A cause that needs no
 * trait of its case is told apart by it: two such bugs of one harm are otherwise one entry. */
static const char *number_kind(const lf_result *s, const lf_result *k)
{
    for (int64_t i = 0; k->values && i < s->n && i < k->n; i++) {
        double want = s->values[i], got = k->values[i];
        if (lf_values_close(want, s->scales[i], got, s->tol_dtype)) continue;
        if (isnan(want)) return isinf(got) ? "nan-as-inf" : "nan-as-number";
        if (!isfinite(got)) return "finite-as-non-finite";
        return isinf(want) ? "inf-as-number" : "off";
    }
    return "grad";
}

/* A variant whose case does not replay as the ledger says: three replays, each named. */
static void check_flaky(lf_campaign_variant *it, const lf_case *c, const lf_backend *be, const char *first)
{
    char want[96], got[3][96];
    class_of(it->e->signature, want, sizeof want);
    snprintf(got[0], sizeof got[0], "%s", first);
    bool same = true;
    for (int r = 0; r < 3; r++) {
        if (r > 0) {
            lf_verdict v;
            lf_oracle_check(c, be, &v);
            snprintf(got[r], sizeof got[r], "%s", v.finding ? v.finding_class : "no finding");
            lf_verdict_free(&v);
        }
        same = same && !strcmp(got[r], want);
        if (r == 0 && same) return; /* replays as it was found: nothing to say */
    }
    snprintf(it->flaky, sizeof it->flaky, "found as %s; replayed 3 times: %s, %s, %s", want, got[0], got[1], got[2]);
}

static void check_variant(lf_campaign_variant *it, const lf_backend *be, lf_campaign_entries *x)
{
    lf_case c;
    char err[512], cls[96], check[96];
    if (!load_case(it->file, &c, err, sizeof err)) {
        snprintf(it->one_line, sizeof it->one_line, "(unreadable: %s)", err);
        snprintf(it->group, sizeof it->group, "unreadable:%s", it->e->signature);
        it->harm = lf_finding_harm(it->e->signature, NULL);
        return;
    }
    /* an empty case is the last choice of repro: a bug on real batches is shown on one */
    it->size = c.input.numel + c.target.numel + (c.input.numel == 0 || c.target.numel == 0 ? 1 << 30 : 0);
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
    snprintf(it->detail, sizeof it->detail, "%s",
             v.finding       ? v.detail
             : v.accepted[0] ? v.accepted
                             : "(not reproduced by this repro now)");
    it->harm = lf_finding_harm(it->e->signature, NULL);
    if (it->e->accepted[0]) { /* one entry per claim: the reason up to its ':' names the claim */
        snprintf(it->group, sizeof it->group, "claim:%.*s", (int)strcspn(it->e->accepted, ":"), it->e->accepted);
        snprintf(it->cause, sizeof it->cause, "%.*s", (int)strcspn(it->e->accepted, ":"), it->e->accepted);
    } else {
        missing_check(cls, &c, be, &v, check, sizeof check);
        if (!check[0]) /* a missing check that crashes only now and then is still that check */
            check_flaky(it, &c, be, v.finding ? v.finding_class : "no finding");
        if (it->flaky[0]) {
            snprintf(it->group, sizeof it->group, "flaky:%s", cls);
            snprintf(it->cause, sizeof it->cause, "does not replay the same way");
        } else if (check[0]) {
            snprintf(it->group, sizeof it->group, "check:%s", check);
            snprintf(it->cause, sizeof it->cause, "no check for %s: PyTorch rejects the call, the kernel does not",
                     check);
        } else {
            lf_cause cause;
            lf_cause_of(&c, be, it->e->signature, &cause);
            x->replays += cause.replays;
            x->changed += cause.changed;
            x->cause_ms += cause.ms;
            x->not_applied += cause.not_applied;
            it->loss = (int)c.loss;
            snprintf(it->group, sizeof it->group, "harm%d:%s:%s", it->harm, cause.family, cause.key);
            if (!strncmp(cause.family, "numbers/", 8) && v.has_kernel)
                snprintf(it->kind, sizeof it->kind, "%s", number_kind(&v.spec, &v.kernel));
            if (!cause.key[0] && it->kind[0])
                snprintf(it->group + strlen(it->group), sizeof it->group - strlen(it->group), ":%s", it->kind);
            snprintf(it->cause, sizeof it->cause, "needs: %s", cause.words);
        }
    }
    lf_verdict_free(&v);
    lf_case_free(&c);
}

/* The "reduction=" part of a group's key (after ':' or ';'), or NULL. */
static char *reduction_part(char *group)
{
    for (char *at = strstr(group, "reduction="); at; at = strstr(at + 1, "reduction="))
        if (at > group && (at[-1] == ':' || at[-1] == ';')) return at;
    return NULL;
}

/* The reductions of a variant's key and words gone (every reduction shows it but the one another bug fills): its
 * other needs stay; with none left it needs nothing, told apart by how its numbers are wrong. */
static void drop_reduction(lf_campaign_variant *v, char *set)
{
    size_t n = strcspn(set, ";");
    bool first = set[-1] == ':';
    char rest[640];
    snprintf(rest, sizeof rest, "%s", set + n + (first && set[n] == ';'));
    snprintf(set - !first, sizeof v->group - (size_t)(set - !first - v->group), "%s", rest);
    if (set[-1] == ':' && !set[0] && v->kind[0]) /* "harmN:FAMILY:" */
        snprintf(set, sizeof v->group - (size_t)(set - v->group), ":%s", v->kind);
    char *words = strstr(v->cause, "reduction "); /* last in them: "...; reduction none or sum" */
    if (words && words > v->cause + 7 && words[-2] == ';')
        words[-2] = 0;
    else if (words)
        snprintf(v->cause, sizeof v->cause, "needs: any call of its kind (no trait of the case is needed)");
}

/* Where a variant's cause names more than one reduction: the reductions
 * taken out that another bug fills on every call (a cause of "reduction=R"
 * and nothing else, of the same harm and family), in its key and its words;
 * where it then shows on every other reduction, it needs none (drop_reduction). */
static void unmask(lf_campaign_variant *v, const char *masker, const char *masking)
{
    char *set = reduction_part(v->group), *words = strstr(v->cause, "reduction ");
    size_t m = strlen(masker);
    if (!set || strncmp(v->group, masker, m) || v->group[m] != ':' || !strchr(set, '|') || !words) return;
    char names[64], kept[64] = "", rest[640];
    size_t n = strcspn(set + 10, ";");
    snprintf(names, sizeof names, "%.*s", (int)n, set + 10);
    snprintf(rest, sizeof rest, "%s", set + 10 + n);
    int n_kept = 0;
    for (char *tok = strtok(names, "|"); tok; tok = strtok(NULL, "|"))
        if (strcmp(tok, masking))
            snprintf(kept + strlen(kept), sizeof kept - strlen(kept), "%s%s", kept[0] ? "|" : "", tok), n_kept++;
    if (n_kept == 2) { /* every reduction but the masked one */
        drop_reduction(v, set);
        return;
    }
    snprintf(set + 10, sizeof v->group - (size_t)(set + 10 - v->group), "%s%s", kept, rest);
    char *w = words + 10; /* the words' reductions, last in them: "reduction none or sum" */
    w[0] = 0;
    for (char *tok = strtok(kept, "|"); tok; tok = strtok(NULL, "|"))
        snprintf(w + strlen(w), sizeof v->cause - (size_t)(w - v->cause) - strlen(w), "%s%s", w[0] ? " or " : "", tok);
}

/* The maskers are read from the keys as the causes gave them, then applied: the ledger's order decides nothing. */
static bool unmask_reductions(lf_campaign_entries *x)
{
    char(*maskers)[640] = calloc((size_t)(x->n_v ? x->n_v : 1), sizeof *maskers);
    int n = 0;
    if (!maskers) return false;
    for (int i = 0; i < x->n_v; i++) { /* "harmN:FAMILY:reduction=R", no other trait, one reduction */
        const char *set = reduction_part(x->v[i].group);
        if (!strncmp(x->v[i].group, "harm", 4) && set && set[-1] == ':' && !strpbrk(set, ";|:"))
            snprintf(maskers[n++], sizeof maskers[0], "%s", x->v[i].group);
    }
    for (int m = 0; m < n; m++) {
        char *set = reduction_part(maskers[m]);
        set[-1] = 0; /* maskers[m]: "harmN:FAMILY", set + 10: R */
        for (int j = 0; j < x->n_v; j++) unmask(&x->v[j], maskers[m], set + 10);
    }
    free(maskers);
    return true;
}

/* Whether every trait of a (';'-separated) is one of b's by its name (before any '=': "row-weights=weight" is
 * "row-weights"); *conflict where one of them is b's of another kind ("row-weights=ignored"). */
static bool traits_within(const char *a, const char *b, bool *conflict)
{
    *conflict = false;
    for (const char *t = a; *t;) {
        size_t n = strcspn(t, ";"), name = strcspn(t, ";=");
        bool found = false;
        for (const char *u = b; *u && !found;) {
            size_t m = strcspn(u, ";");
            found = strcspn(u, ";=") == name && !strncmp(t, u, name);
            *conflict |= found && (m != n || strncmp(t, u, n));
            u += m + (u[m] == ';');
        }
        if (!found) return false;
        t += n + (t[n] == ';');
    }
    return true;
}

static int trait_count(const char *key)
{
    int n = *key != 0;
    for (; *key; key++) n += *key == ';';
    return n;
}

/* The mechanism a finding keeps to itself (lf_findings.def's CAUSE: OWN): its class; "" where it shares. */
static void mechanism(const lf_campaign_variant *v, char *out, size_t len)
{
    if (lf_finding_own_cause(v->e->signature))
        class_of(v->e->signature, out, len);
    else
        out[0] = 0;
}

/* Whether a cause's needs are its dtype's alone ("16-bit", "below-float64"). */
static bool dtype_only(const char *needs) { return !strcmp(needs, "16-bit") || !strcmp(needs, "below-float64"); }

/* A cause that needs nothing of its case, and another of the same loss, harm, family and mechanism that needs only
 * a narrower dtype: one bug, met more easily in 16 bits. The dtype's cause (with the variants nested in it) takes
 * the other's group and words, and is no root any more. */
static void absorb_dtype_variants(lf_campaign_entries *x, int *root)
{
    for (int i = 0; i < x->n_v; i++) {
        lf_campaign_variant *v = &x->v[i];
        char mi[96], mj[96];
        size_t family = strcspn(v->group, ":") + 1;
        family += strcspn(v->group + family, ":") + 1; /* "harmN:FAMILY:" */
        if (!dtype_only(v->needs) || root[i] != i) continue;
        mechanism(v, mi, sizeof mi);
        for (int j = 0; j < x->n_v; j++) {
            const lf_campaign_variant *a = &x->v[j];
            if (a->needs[0] || a->loss != v->loss || strncmp(a->group, v->group, family) || a->group[family] != ':')
                continue;
            mechanism(a, mj, sizeof mj);
            if (strcmp(mi, mj)) continue;
            for (int k = 0; k < x->n_v; k++) {
                if (k == i || root[k] != i) continue;
                snprintf(x->v[k].group, sizeof x->v[k].group, "%s", a->group);
                snprintf(x->v[k].cause, sizeof x->v[k].cause, "%s", a->cause);
                root[k] = -1;
            }
            snprintf(v->group, sizeof v->group, "%s", a->group);
            snprintf(v->cause, sizeof v->cause, "%s", a->cause);
            root[i] = -1;
            break;
        }
    }
}

/* Causes nest: a finding's needs, once the reductions are unmasked, are its group's key ("harmN:FAMILY:KEY").
 * Where it needs a trait, every harm it shows is one cause - the group is its loss, mechanism and needs, not
 * its harm - and a cause whose needs hold another's of the same loss and mechanism is a variant of it: it folds
 * into the smallest such (a strided input's bug, met on a spatial case too and as a false alarm, is one
 * entry). A trait's kind (rows weighted by a class weight, or by an ignored label) tells causes apart only
 * where their needs differ otherwise: a mean over the wrong total shows with either, one bug; Liger-Kernel's
 * NaN class weight and its all-ignored mean are two. With no needed trait, harms stay apart. */
static bool nest_causes(lf_campaign_entries *x)
{
    int *root = malloc(sizeof(int) * (size_t)(x->n_v ? x->n_v : 1));
    if (!root) return false;
    for (int i = 0; i < x->n_v; i++) {
        lf_campaign_variant *v = &x->v[i];
        const char *key = strncmp(v->group, "harm", 4) ? NULL : strchr(strchr(v->group, ':') + 1, ':');
        root[i] = -1;
        v->needs[0] = 0;
        if (key && key[1]) snprintf(v->needs, sizeof v->needs, "%.*s", (int)strcspn(key + 1, ":"), key + 1);
    }
    for (int i = 0; i < x->n_v; i++) { /* the fewest needs within i's (i's own among them), first found first */
        char mi[96], mj[96];
        mechanism(&x->v[i], mi, sizeof mi);
        for (int j = 0; x->v[i].needs[0] && j < x->n_v; j++) {
            const lf_campaign_variant *a = &x->v[j];
            bool conflict, same_names;
            if (!a->needs[0] || a->loss != x->v[i].loss || !traits_within(a->needs, x->v[i].needs, &conflict)) continue;
            same_names = trait_count(a->needs) == trait_count(x->v[i].needs);
            if (conflict && !same_names) continue;
            mechanism(a, mj, sizeof mj);
            if (strcmp(mi, mj)) continue;
            const lf_campaign_variant *best = root[i] >= 0 ? &x->v[root[i]] : NULL;
            int na = trait_count(a->needs), nb = best ? trait_count(best->needs) : 0;
            if (!best || na < nb || (na == nb && a->e->first_s < best->e->first_s)) root[i] = j;
        }
    }
    absorb_dtype_variants(x, root);
    for (int i = 0; i < x->n_v; i++) {
        lf_campaign_variant *v = &x->v[i];
        if (root[i] < 0) continue;
        char mech[96];
        mechanism(v, mech, sizeof mech);
        snprintf(v->group, sizeof v->group, "cause:%d:%s:%s", x->v[root[i]].loss, mech, x->v[root[i]].needs);
        if (root[i] != i) snprintf(v->cause, sizeof v->cause, "%s", x->v[root[i]].cause); /* the root's words */
    }
    free(root);
    return true;
}

static int by_harm(const void *a, const void *b)
{
    const lf_campaign_group *x = a, *y = b;
    if (x->accepted != y->accepted) return x->accepted - y->accepted;
    if (x->harm != y->harm) return x->harm - y->harm;
    if (x->first_s != y->first_s) return x->first_s < y->first_s ? -1 : 1;
    return x->members[0] - y->members[0];
}

/* The better of two variants as an entry's case: the first class of the findings' list (a wrong value before its
 * gradient, a silent number before the crash of the same missing check), then the smallest, then the first found. */
static bool better_repro(const lf_campaign_variant *a, const lf_campaign_variant *b)
{
    int ai = lf_finding_find(a->e->signature), bi = lf_finding_find(b->e->signature);
    return ai < bi || (ai == bi && (a->size < b->size || (a->size == b->size && a->e->first_s < b->e->first_s)));
}

/* Folds variant i into its group (made when new). */
static bool fold(lf_campaign_entries *x, int i)
{
    const lf_campaign_variant *it = &x->v[i];
    int g = 0;
    while (g < x->n_g && strcmp(x->v[x->g[g].members[0]].group, it->group)) g++;
    lf_campaign_group *gr = &x->g[g];
    if (g == x->n_g) {
        memset(gr, 0, sizeof *gr);
        gr->harm = it->harm;
        gr->accepted = it->e->accepted[0] != 0;
        gr->repro = i;
        gr->first_s = it->e->first_s;
        snprintf(gr->cause, sizeof gr->cause, "%s", it->cause);
        x->n_g++;
    }
    int *more = realloc(gr->members, sizeof(int) * (size_t)(gr->n_members + 1));
    if (!more) return false;
    gr->members = more;
    gr->members[gr->n_members++] = i;
    gr->hits += it->e->hits;
    if (it->e->first_s < gr->first_s) gr->first_s = it->e->first_s;
    if (it->harm < gr->harm) gr->harm = it->harm;
    if (better_repro(it, &x->v[gr->repro])) {
        gr->repro = i;
        if (!gr->accepted) snprintf(gr->cause, sizeof gr->cause, "%s", it->cause); /* its "here:" words */
    }
    return true;
}

/* DIR/excused counted by listed difference, in the list's order. */
static void read_excused(const char *dir, lf_campaign_entries *x)
{
    char path[4200], line[128];
    snprintf(path, sizeof path, "%s/excused", dir);
    FILE *f = fopen(path, "r");
    for (const lf_known_difference *k; f && x->n_excused < 64 && (k = lf_known_difference_at(x->n_excused));) {
        x->excused[x->n_excused].known = k;
        x->excused[x->n_excused++].hits = 0;
    }
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        for (int i = 0; i < x->n_excused; i++)
            if (!strcmp(x->excused[i].known->id, line)) x->excused[i].hits++;
    }
    if (f) fclose(f);
    int kept = 0; /* only those that excused a case */
    for (int i = 0; i < x->n_excused; i++)
        if (x->excused[i].hits) x->excused[kept++] = x->excused[i];
    x->n_excused = kept;
}

/* A fresh worker for the kernel: the report's replays meet no state the campaign's cases left. */
static void renew(const lf_backend *be)
{
    char err[512];
    if (be->kernel && !lf_exec_renew(be->kernel, err, sizeof err))
        fprintf(stderr, "lossfuzz: the kernel's worker could not be renewed: %s\n", err);
}

/* Whether the variant's case, replayed in a fresh worker, gives the class it was found as; why: both classes. */
static bool replays_fresh(lf_campaign_variant *it, const lf_backend *be, char *why, size_t len)
{
    lf_case c;
    char err[512], want[96], got[128];
    class_of(it->e->signature, want, sizeof want);
    if (load_case(it->file, &c, err, sizeof err)) {
        renew(be);
        lf_verdict v;
        lf_oracle_check(&c, be, &v);
        snprintf(got, sizeof got, "%s", v.finding ? v.finding_class : "no finding");
        lf_verdict_free(&v);
        lf_case_free(&c);
    } else {
        snprintf(got, sizeof got, "unreadable: %.80s", err);
    }
    snprintf(why, len, "found as %s; in a fresh worker: %s", want, got);
    return !strcmp(got, want);
}

/* An entry is called stable only once its case replays in a fresh worker: one that needs a worker's earlier
 * state (a compile cache, a recompile limit) passes there, as its stored replay command does in a new process.
 * Where its chosen case does not, the next best of its variants (two at most) may stand in for it. */
static void replay_fresh(lf_campaign_entries *x, lf_campaign_group *gr, const lf_backend *be)
{
    lf_campaign_variant *r = &x->v[gr->repro];
    char why[256], other[256];
    if (gr->accepted || r->flaky[0] || !be->kernel || replays_fresh(r, be, why, sizeof why)) return;
    int tried[3] = {gr->repro, -1, -1};
    for (int t = 1; t < 3; t++) {
        for (int m = 0; m < gr->n_members; m++) {
            int i = gr->members[m];
            if (i != tried[0] && i != tried[1] && !x->v[i].flaky[0] &&
                (tried[t] < 0 || better_repro(&x->v[i], &x->v[tried[t]])))
                tried[t] = i;
        }
        if (tried[t] < 0) break;
        lf_campaign_variant *it = &x->v[tried[t]];
        if (replays_fresh(it, be, other, sizeof other)) {
            gr->repro = tried[t];
            snprintf(gr->cause, sizeof gr->cause, "%s", it->cause);
            return;
        }
    }
    snprintf(r->flaky, sizeof r->flaky, "%s (it needs the state earlier cases left)", why);
    snprintf(gr->cause, sizeof gr->cause, "does not replay in a fresh worker");
}

bool lf_campaign_entries_build(const char *dir, const lf_backend *be, lf_campaign_entries *x)
{
    memset(x, 0, sizeof *x);
    read_excused(dir, x);
    renew(be);
    x->ledger = lf_campaign_read(dir, &x->n_v);
    x->v = calloc((size_t)(x->n_v ? x->n_v : 1), sizeof *x->v);
    x->g = calloc((size_t)(x->n_v ? x->n_v : 1), sizeof *x->g);
    if (!x->v || !x->g) return false;
    for (int i = 0; i < x->n_v; i++) {
        x->v[i].e = &x->ledger[i];
        lf_campaign_case_file(dir, &x->ledger[i], x->v[i].file, sizeof x->v[i].file);
        check_variant(&x->v[i], be, x);
    }
    if (!unmask_reductions(x) || !nest_causes(x)) return false;
    for (int i = 0; i < x->n_v; i++)
        if (!fold(x, i)) return false;
    for (int g = 0; g < x->n_g; g++) {
        replay_fresh(x, &x->g[g], be);
        x->g[g].harm_label = lf_harm_label(x->g[g].harm);
    }
    qsort(x->g, (size_t)x->n_g, sizeof *x->g, by_harm);
    return true;
}

void lf_campaign_entries_free(lf_campaign_entries *x)
{
    for (int g = 0; g < x->n_g; g++) free(x->g[g].members);
    free(x->g);
    free(x->v);
    free(x->ledger);
    memset(x, 0, sizeof *x);
}

int lf_campaign_findings(const lf_campaign_entries *x)
{
    int n = 0;
    for (int g = 0; g < x->n_g; g++) n += !x->g[g].accepted;
    return n;
}
