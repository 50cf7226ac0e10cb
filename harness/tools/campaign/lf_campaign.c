/* lf_campaign.c - the campaign's ledger on disk (lf_campaign.h): the first
 * case of each signature kept, every hit counted, shared by the processes of
 * one campaign through O_EXCL creation and O_APPEND lines. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lf_campaign.h"
#include "lf_case_json.h"
#include "lf_hash.h"

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static bool made(const char *path) { return mkdir(path, 0777) == 0 || errno == EEXIST; }

/* Creates path with these bytes unless it exists: true when this call made it. */
static bool create_exclusive(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) return false;
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(fd);
    return true;
}

static double start_ms(const char *dir)
{
    char path[4200], buf[64] = "";
    snprintf(path, sizeof path, "%s/start", dir);
    FILE *f = fopen(path, "r");
    double ms = 0;
    if (f) {
        if (fgets(buf, sizeof buf, f)) ms = strtod(buf, NULL);
        fclose(f);
    }
    return ms > 0 ? ms : wall_ms();
}

static void empty_folder(const char *dir, const char *folder)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", dir, folder);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s/%s", dir, folder, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
}

/* An earlier campaign's files in DIR, but its repros. */
static void clear(const char *dir)
{
    static const char *const files[] = {"start", "ledger", "excused", "report.md", "report.json"};
    char path[4600];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    empty_folder(dir, "first");
    empty_folder(dir, "keys"); /* the kernel may have changed since: its keys minimize afresh */
}

bool lf_campaign_begin(const char *dir, bool fresh)
{
    char path[4200], now[64];
    if (!made(dir)) return false;
    if (fresh) clear(dir);
    snprintf(path, sizeof path, "%s/start", dir);
    snprintf(now, sizeof now, "%.0f\n", wall_ms());
    create_exclusive(path, now);
    return access(path, R_OK) == 0;
}

double lf_campaign_elapsed_s(const char *dir) { return (wall_ms() - start_ms(dir)) / 1e3; }

void lf_campaign_first_stem(const char *signature, bool accepted, char *stem, size_t len)
{
    char named[LF_SIGNATURE_MAX + 16];
    snprintf(named, sizeof named, "%s%s", accepted ? "accepted-" : "", signature);
    lf_finding_file_stem(stem, len, named, lf_hash_bytes(named, strlen(named)));
}

bool lf_campaign_record(const char *dir, const char *signature, const char *accepted, const lf_case *c, bool *is_new)
{
    char path[4200], stem[200], line[LF_SIGNATURE_MAX + 320];
    bool is_accepted = accepted && accepted[0];
    *is_new = false;
    snprintf(path, sizeof path, "%s/first", dir);
    if (!made(dir) || !made(path)) return false;
    lf_campaign_first_stem(signature, is_accepted, stem, sizeof stem);
    snprintf(path, sizeof path, "%s/first/%s.json", dir, stem);
    /* a known signature's later hits (thousands a campaign) skip writing the case out:
     * only a first one is serialized; the exclusive create still decides between processes */
    if (access(path, F_OK) != 0) {
        char *json = lf_case_to_json(c);
        *is_new = json && create_exclusive(path, json);
        free(json);
    }
    /* one short line, one write(): O_APPEND keeps the processes' lines whole */
    int n = snprintf(line, sizeof line, "%.0f\t%s\t%s\n", wall_ms() - start_ms(dir), signature,
                     is_accepted ? accepted : "-");
    snprintf(path, sizeof path, "%s/ledger", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
    bool ok = fd >= 0 && n > 0 && write(fd, line, (size_t)n) == (ssize_t)n;
    if (fd >= 0) close(fd);
    return ok;
}

bool lf_campaign_excuse(const char *dir, const char *known_id)
{
    char path[4200], line[96];
    int n = snprintf(line, sizeof line, "%.80s\n", known_id);
    snprintf(path, sizeof path, "%s/excused", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666); /* one write(): the processes' lines stay whole */
    bool ok = fd >= 0 && write(fd, line, (size_t)n) == (ssize_t)n;
    if (fd >= 0) close(fd);
    return ok;
}

lf_campaign_entry *lf_campaign_read(const char *dir, int *n)
{
    char path[4200], line[LF_SIGNATURE_MAX + 320];
    int cap = 0;
    lf_campaign_entry *e = NULL;
    *n = 0;
    snprintf(path, sizeof path, "%s/ledger", dir);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    while (fgets(line, sizeof line, f)) {
        char *sig = strchr(line, '\t'), *why = sig ? strchr(sig + 1, '\t') : NULL;
        if (!why) continue; /* a torn line: nothing to count */
        *sig++ = 0, *why++ = 0;
        why[strcspn(why, "\n")] = 0;
        /* a signature hit both as a finding and as an accepted deviation is two entries:
         * the accepted one never hides the finding */
        bool is_accepted = strcmp(why, "-") != 0;
        int i = 0;
        while (i < *n && (strcmp(e[i].signature, sig) || (e[i].accepted[0] != 0) != is_accepted)) i++;
        if (i == *n) {
            if (*n == cap) {
                lf_campaign_entry *more = realloc(e, sizeof *e * (size_t)(cap = cap ? 2 * cap : 16));
                if (!more) break;
                e = more;
            }
            memset(&e[i], 0, sizeof e[i]);
            snprintf(e[i].signature, sizeof e[i].signature, "%s", sig);
            snprintf(e[i].accepted, sizeof e[i].accepted, "%s", is_accepted ? why : "");
            e[i].first_s = strtod(line, NULL) / 1e3;
            (*n)++;
        }
        double at = strtod(line, NULL) / 1e3; /* processes append in their own order */
        if (at < e[i].first_s) e[i].first_s = at;
        e[i].hits++;
    }
    fclose(f);
    return e;
}
