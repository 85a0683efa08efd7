/* SPDX-License-Identifier: MIT */
/* slurmapi.c: libslurm for loading nodes, updating them, and hostlists. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/resdict.h"
#include "slurm_compat.h"
#include "slurmapi.h"

struct ccas_slurm_nodes {
    node_info_msg_t *msg;
    struct ccas_slurm_node *v;
    size_t n;
    struct ccas_resdict *index; /* name -> position */
};

static bool initialised;

int ccas_slurm_init (struct ccas_error *err)
{
    if (!initialised) {
        slurm_init (NULL);
        initialised = true;
    }
    (void)err;
    return 0;
}

void ccas_slurm_fini (void)
{
    if (initialised && COMPAT_SLURM_FINI)
        slurm_fini ();
    initialised = false;
}

const char *ccas_slurm_last_error (void)
{
    return slurm_strerror (COMPAT_SLURM_ERRNO ());
}

/* ---- versions ------------------------------------------------------------------------ */

const char *ccas_slurm_built_version (void)
{
    static char text[32];
    if (!text[0])
        snprintf (text, sizeof (text), "%d.%02d.%d", SLURM_VERSION_MAJOR (SLURM_VERSION_NUMBER),
                  SLURM_VERSION_MINOR (SLURM_VERSION_NUMBER), SLURM_VERSION_MICRO (SLURM_VERSION_NUMBER));
    return text;
}

const char *ccas_slurm_describe (char *buf, size_t size)
{
    long api = SLURM_VERSION_MAJOR (slurm_api_version ());
    char loaded[64] = "";
    if (CCAS_SLURM_API && api != CCAS_SLURM_API)
        snprintf (loaded, sizeof (loaded), "; the library loaded now is API %ld", api);
#ifdef CCAS_SLURM_FROM
    const char *from = CCAS_SLURM_FROM;
#else
    const char *from = "?";
#endif
    snprintf (buf, size, "libslurm %s (API %ld) from %s%s", ccas_slurm_built_version (),
              CCAS_SLURM_API ? (long)CCAS_SLURM_API : api, from, loaded);
    return buf;
}

int ccas_slurm_controller_load (struct ccas_slurm_controller *out, struct ccas_error *err)
{
    slurm_conf_t *conf = NULL;
    memset (out, 0, sizeof (*out));
    if (slurm_load_ctl_conf ((time_t)0, &conf) != SLURM_SUCCESS || !conf)
        return ccas_errorf (err, "cannot read slurmctld's configuration: %s", ccas_slurm_last_error ());
    snprintf (out->version, sizeof (out->version), "%s", conf->version ? conf->version : "");
    snprintf (out->params, sizeof (out->params), "%s", conf->slurmctld_params ? conf->slurmctld_params : "");
    out->controllers = conf->control_cnt;
    out->slurmctld_timeout = conf->slurmctld_timeout;
#if COMPAT_POWER_SAVE_UPDATES
    snprintf (out->suspend_exc_states, sizeof (out->suspend_exc_states), "%s",
              conf->suspend_exc_states ? conf->suspend_exc_states : "");
    out->keep_power_save_settings = conf->reconfig_flags & RECONFIG_KEEP_POWER_SAVE_SETTINGS;
#endif
    out->resume_timeout = conf->resume_timeout;
    snprintf (out->topology_plugin, sizeof (out->topology_plugin), "%s",
              conf->topology_plugin ? conf->topology_plugin : "");
    out->boot_time = (double)conf->boot_time;
    slurm_free_ctl_conf (conf);
    return 0;
}

char *ccas_slurm_suspend_exc_nodes (struct ccas_error *err)
{
    slurm_conf_t *conf = NULL;
    if (slurm_load_ctl_conf ((time_t)0, &conf) != SLURM_SUCCESS || !conf) {
        ccas_errorf (err, "cannot read slurmctld's configuration: %s", ccas_slurm_last_error ());
        return NULL;
    }
    char *s = strdup (conf->suspend_exc_nodes && strcmp (conf->suspend_exc_nodes, "(null)") != 0
                          ? conf->suspend_exc_nodes
                          : "");
    slurm_free_ctl_conf (conf);
    if (!s)
        ccas_errorf (err, "out of memory");
    return s;
}

void ccas_slurm_traits_built (struct ccas_slurm_traits *t)
{
    unsigned v = 0;
    ccas_slurm_version_parse (ccas_slurm_built_version (), &v, NULL);
    ccas_slurm_traits_init (t, v, NULL);
}

int ccas_slurm_traits_load (struct ccas_slurm_traits *t, struct ccas_slurm_controller *ctl,
                            struct ccas_error *err)
{
    unsigned v = 0;
    if (ccas_slurm_controller_load (ctl, err) < 0 || ccas_slurm_version_parse (ctl->version, &v, err) < 0) {
        ccas_slurm_traits_built (t);
        return -1;
    }
    ccas_slurm_traits_init (t, v, ctl->params);
    return 0;
}

/* ---- hostlists ----------------------------------------------------------------------- */

void ccas_slurm_names_free (char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free (names[i]);
    free (names);
}

/* The longest number a bracket may hold: no cluster numbers a node past a
 * billion, and libslurm spends seconds on a number that overflows. */
#define BRACKET_DIGITS_MAX 9

/* libslurm's MAX_RANGE: the most names one range ("[1-65536]") may hold */
#define RANGE_MAX 65536

#define NOT_NUMBERS "a bracket holds something other than numbers, ranges and commas"

/* One number of a bracket at *pp, into *value; *pp is left past it.  NULL, or why not. */
static const char *bracket_number (const char **pp, double *value)
{
    char *end;
    if (!isdigit ((unsigned char)**pp))
        return NOT_NUMBERS;
    *value = (double)strtoul (*pp, &end, 10);
    if (end - *pp > BRACKET_DIGITS_MAX)
        return "a bracket holds a number of more than 9 digits";
    *pp = end;
    return NULL;
}

/* One bracket group "[1-4,7]" from just past its '['; adds its count of
 * numbers to *count and leaves *pp past its ']'.  NULL, or why not. */
static const char *bracket_count (const char **pp, double *count)
{
    const char *p = *pp, *why;
    double group = 0;
    /* libslurm leaks a little on "[]", "[1", "[2-1]", "[1-65537]" before it
     * refuses them */
    if (*p == ']')
        return "an empty bracket";
    for (;;) {
        double lo, hi;
        if ((why = bracket_number (&p, &lo)))
            return why;
        hi = lo;
        if (*p == '-') {
            p++;
            if ((why = bracket_number (&p, &hi)))
                return why;
            if (hi < lo)
                return "a range runs backwards";
            if (hi - lo + 1 > RANGE_MAX)
                return "a range of more than 65536 names (libslurm's limit)";
        }
        group += hi - lo + 1;
        if (*p == ']')
            break;
        if (*p != ',')
            return *p ? NOT_NUMBERS : "a bracket is not closed";
        p++;
    }
    *pp = p + 1;
    *count = group;
    return NULL;
}

/* Check `expr` before libslurm sees it, and count the names it can stand
 * for at most.  Slurm writes one bracket group per name ("hpc-[1-4,7]",
 * the number at the end); libslurm reads several ("a[0-467][2-467]") as
 * dimensions and builds them name by name — millions, for seconds — so
 * an expression with two groups in one name is refused, as is a bracket
 * holding anything but numbers (it would read "[0x3]" as dimensions).
 * This counts; it never expands (libslurm does that).  NULL, or why not. */
static const char *hostlist_check (const char *expr, double *bound)
{
    double total = 0, term = 1;
    int groups = 0;
    for (const char *p = expr; *p;) {
        if (*p == ',') {
            total += term;
            term = 1;
            groups = 0;
            p++;
        } else if (*p == '[') {
            const char *why;
            p++;
            if (++groups > 1)
                return "a name holds more than one bracket group";
            if ((why = bracket_count (&p, &term)))
                return why;
        } else {
            p++;
        }
    }
    *bound = total + term;
    return NULL;
}

char **ccas_slurm_hostlist_expand (const char *expr, size_t *n, struct ccas_error *err)
{
    char **names = NULL;
    double bound;
    const char *why = hostlist_check (expr, &bound);
    if (why) {
        ccas_errorf (err, "'%.64s': %s", expr, why);
        return NULL;
    }
    if (bound > CCAS_HOSTLIST_MAX) {
        ccas_errorf (err, "'%.64s': more than the %d names one call may name", expr, CCAS_HOSTLIST_MAX);
        return NULL;
    }
    compat_hostlist hl = slurm_hostlist_create (expr);
    if (!hl) {
        ccas_errorf (err, "'%s': not a hostlist expression", expr);
        return NULL;
    }
    int count = slurm_hostlist_count (hl);
    if (count <= 0 || count > CCAS_HOSTLIST_MAX) {
        slurm_hostlist_destroy (hl);
        if (count <= 0)
            ccas_errorf (err, "'%s': an empty hostlist", expr);
        else
            ccas_errorf (err, "'%.64s': %d names, more than the %d one call may name", expr, count,
                         CCAS_HOSTLIST_MAX);
        return NULL;
    }
    if (!(names = calloc ((size_t)count + 1, sizeof (*names)))) {
        slurm_hostlist_destroy (hl);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    char *h;
    size_t i = 0;
    while ((h = slurm_hostlist_shift (hl))) {
        names[i] = strdup (h);
        free (h); /* slurm_hostlist_shift returns malloc'd memory */
        if (!names[i++]) {
            ccas_slurm_names_free (names, i);
            slurm_hostlist_destroy (hl);
            ccas_errorf (err, "out of memory");
            return NULL;
        }
    }
    slurm_hostlist_destroy (hl);
    *n = i;
    return names;
}

/* The ranged form into a buffer that grows until it holds it (every Slurm
 * has slurm_hostlist_ranged_string; its _malloc form went in 23.11, and the
 * _xmalloc one wants Slurm's own free). */
static char *ranged_string (compat_hostlist hl)
{
    size_t size = 256;
    for (;;) {
        char *buf = malloc (size);
        if (!buf)
            return NULL;
        ssize_t len = slurm_hostlist_ranged_string (hl, size, buf);
        if (len >= 0 && (size_t)len < size - 1)
            return buf;
        free (buf);
        if (size > ((size_t)1 << 30))
            return NULL;
        size *= 4;
    }
}

char *ccas_slurm_hostlist_compress (const char *const *names, size_t n)
{
    compat_hostlist hl = slurm_hostlist_create (NULL);
    if (!hl)
        return NULL;
    for (size_t i = 0; i < n; i++)
        slurm_hostlist_push_host (hl, names[i]);
    char *s = ranged_string (hl);
    slurm_hostlist_destroy (hl);
    return s;
}

/* ---- nodes ----------------------------------------------------------------------------- */

static void fill_node (struct ccas_slurm_node *out, const node_info_t *ni)
{
    out->name = ni->name;
    out->features = ni->features;
    out->reason = ni->reason;
    out->addr = ni->node_addr;
    out->hostname = ni->node_hostname;
    out->partitions = ni->partitions;
    out->state = ni->node_state;
    out->cpus = ni->cpus;
    out->port = ni->port;
    out->real_memory = ni->real_memory;
}

struct ccas_slurm_nodes *ccas_slurm_nodes_load (struct ccas_error *err)
{
    struct ccas_slurm_nodes *nodes = calloc (1, sizeof (*nodes));
    if (!nodes) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    /* SHOW_ALL: powered-down cloud nodes are hidden otherwise */
    if (slurm_load_node ((time_t)0, &nodes->msg, SHOW_ALL) != SLURM_SUCCESS) {
        ccas_errorf (err, "cannot load Slurm nodes: %s", ccas_slurm_last_error ());
        free (nodes);
        return NULL;
    }
    nodes->n = nodes->msg->record_count;
    nodes->v = calloc (nodes->n + 1, sizeof (*nodes->v));
    nodes->index = ccas_resdict_create ();
    if (!nodes->v || !nodes->index) {
        ccas_slurm_nodes_destroy (nodes);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < nodes->n; i++) {
        const node_info_t *ni = &nodes->msg->node_array[i];
        if (!ni->name)
            continue; /* a hidden node leaves an empty slot */
        fill_node (&nodes->v[k], ni);
        if (ccas_resdict_intern (nodes->index, ni->name) != (int)k) {
            ccas_slurm_nodes_destroy (nodes);
            ccas_errorf (err, "out of memory (or a duplicate node name '%s')", ni->name);
            return NULL;
        }
        k++;
    }
    nodes->n = k;
    return nodes;
}

void ccas_slurm_nodes_destroy (struct ccas_slurm_nodes *nodes)
{
    if (!nodes)
        return;
    if (nodes->msg)
        slurm_free_node_info_msg (nodes->msg);
    ccas_resdict_destroy (nodes->index);
    free (nodes->v);
    free (nodes);
}

size_t ccas_slurm_nodes_count (const struct ccas_slurm_nodes *nodes)
{
    return nodes->n;
}

const struct ccas_slurm_node *ccas_slurm_nodes_at (const struct ccas_slurm_nodes *nodes, size_t i)
{
    return i < nodes->n ? &nodes->v[i] : NULL;
}

const struct ccas_slurm_node *ccas_slurm_nodes_find (const struct ccas_slurm_nodes *nodes, const char *name)
{
    int i = ccas_resdict_find (nodes->index, name);
    return i < 0 ? NULL : &nodes->v[i];
}

bool ccas_slurm_node_cloud (const struct ccas_slurm_node *n)
{
    return n->state & NODE_STATE_CLOUD;
}

bool ccas_slurm_node_powered_down (const struct ccas_slurm_node *n)
{
    return (n->state & NODE_STATE_POWERED_DOWN) && !(n->state & NODE_STATE_POWERING_UP);
}

bool ccas_slurm_node_powering_up (const struct ccas_slurm_node *n)
{
    return n->state & NODE_STATE_POWERING_UP;
}

bool ccas_slurm_node_powering_down (const struct ccas_slurm_node *n)
{
    return n->state & NODE_STATE_POWERING_DOWN;
}

bool ccas_slurm_node_down (const struct ccas_slurm_node *n)
{
    return (n->state & NODE_STATE_BASE) == NODE_STATE_DOWN;
}

bool ccas_slurm_node_drained (const struct ccas_slurm_node *n)
{
    return n->state & NODE_STATE_DRAIN;
}

bool ccas_slurm_node_busy (const struct ccas_slurm_node *n)
{
    uint32_t base = n->state & NODE_STATE_BASE;
    return base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED || (n->state & NODE_STATE_COMPLETING);
}

bool ccas_slurm_node_dynamic (const struct ccas_slurm_node *n)
{
    return n->state & NODE_STATE_DYNAMIC_NORM;
}

bool ccas_slurm_node_has_feature (const struct ccas_slurm_node *n, const char *feature)
{
    size_t len = strlen (feature);
    for (const char *p = n->features; p && *p;) {
        const char *comma = strchr (p, ',');
        size_t plen = comma ? (size_t)(comma - p) : strlen (p);
        if (plen == len && strncmp (p, feature, len) == 0)
            return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

/* sinfo's short form: base state, "drain" when draining, and the power
 * suffix (~ powered down, # powering up, % powering down). */
const char *ccas_slurm_node_state_text (const struct ccas_slurm_node *n, char *buf, size_t size)
{
    static const char *const base[] = {"unknown", "down", "idle", "alloc", "error", "mixed", "future"};
    uint32_t b = n->state & NODE_STATE_BASE;
    const char *name = b < sizeof (base) / sizeof (base[0]) ? base[b] : "unknown";
    const char *suffix = "";
    if (n->state & NODE_STATE_DRAIN)
        name = ccas_slurm_node_busy (n) ? "draining" : "drained";
    if (n->state & NODE_STATE_POWERING_UP)
        suffix = "#";
    else if (n->state & NODE_STATE_POWERING_DOWN)
        suffix = "%";
    else if (n->state & NODE_STATE_POWERED_DOWN)
        suffix = "~";
    snprintf (buf, size, "%s%s", name, suffix);
    return buf;
}

/* ---- jobs ---------------------------------------------------------------------------------- */

char **ccas_slurm_job_nodes (uint32_t job_id, size_t *n, struct ccas_error *err)
{
    job_info_msg_t *msg = NULL;
    char **names = NULL;
    *n = 0;
    if (slurm_load_job (&msg, job_id, SHOW_ALL) != SLURM_SUCCESS || !msg) {
        ccas_errorf (err, "job %u: %s", job_id, ccas_slurm_last_error ());
        return NULL;
    }
    if (msg->record_count < 1 || !msg->job_array[0].nodes || !*msg->job_array[0].nodes)
        ccas_errorf (err, "job %u: no nodes allocated", job_id);
    else
        names = ccas_slurm_hostlist_expand (msg->job_array[0].nodes, n, err);
    slurm_free_job_info_msg (msg);
    return names;
}

/* ---- updates --------------------------------------------------------------------------- */

static uint32_t update_state (enum ccas_slurm_update what)
{
    switch (what) {
    case CCAS_SLURM_POWER_DOWN_FORCE:
        return NODE_STATE_POWER_DOWN | NODE_STATE_POWERED_DOWN;
    case CCAS_SLURM_DRAIN:
        return NODE_STATE_DRAIN;
    case CCAS_SLURM_DOWN:
        return NODE_STATE_DOWN;
    case CCAS_SLURM_RESUME:
        return NODE_RESUME;
    case CCAS_SLURM_UNDRAIN:
        return NODE_STATE_UNDRAIN;
    case CCAS_SLURM_POWER_UP:
        return NODE_STATE_POWER_UP;
    }
    return NO_VAL;
}

int ccas_slurm_update (const char *hostlist, enum ccas_slurm_update what, const char *reason,
                       struct ccas_error *err)
{
    update_node_msg_t msg;
    slurm_init_update_node_msg (&msg);
    msg.node_names = (char *)hostlist;
    msg.node_state = update_state (what);
    msg.reason = (char *)reason;
    if (reason)
        msg.reason_uid = 0;
    if (slurm_update_node (&msg) != SLURM_SUCCESS)
        return ccas_errorf (err, "slurm update of '%s': %s", hostlist, ccas_slurm_last_error ());
    return 0;
}

int ccas_slurm_reconfigure (struct ccas_error *err)
{
    if (slurm_reconfigure () != SLURM_SUCCESS)
        return ccas_errorf (err, "slurmctld reconfigure: %s", ccas_slurm_last_error ());
    return 0;
}

int ccas_slurm_suspend_exc_update (const char *add, const char *remove, struct ccas_error *err)
{
#if COMPAT_POWER_SAVE_UPDATES
    if (add && *add && slurm_update_suspend_exc_nodes ((char *)add, UPDATE_ADD) != SLURM_SUCCESS)
        return ccas_errorf (err, "SuspendExcNodes+=%s: %s", add, ccas_slurm_last_error ());
    if (remove && *remove && slurm_update_suspend_exc_nodes ((char *)remove, UPDATE_REMOVE) != SLURM_SUCCESS)
        return ccas_errorf (err, "SuspendExcNodes-=%s: %s", remove, ccas_slurm_last_error ());
    return 1;
#else
    (void)add;
    (void)remove;
    (void)err;
    return 0;
#endif
}

int ccas_slurm_set_addr (const char *name, const char *addr, const char *hostname, struct ccas_error *err)
{
    update_node_msg_t msg;
    slurm_init_update_node_msg (&msg);
    msg.node_names = (char *)name;
    msg.node_addr = (char *)addr;
    msg.node_hostname = (char *)hostname;
    if (slurm_update_node (&msg) != SLURM_SUCCESS)
        return ccas_errorf (err, "slurm update of '%s' address: %s", name, ccas_slurm_last_error ());
    return 0;
}

/* ---- dynamic nodes --------------------------------------------------------------------- */

int ccas_slurm_create_nodes (const char *node_line, struct ccas_error *err)
{
    update_node_msg_t msg;
    slurm_init_update_node_msg (&msg);
    msg.extra = (char *)node_line; /* scontrol create passes the whole line so */
    if (slurm_create_node (&msg) != SLURM_SUCCESS)
        return ccas_errorf (err, "slurm create of '%s': %s", node_line, ccas_slurm_last_error ());
    return 0;
}

int ccas_slurm_delete_nodes (const char *hostlist, struct ccas_error *err)
{
    update_node_msg_t msg;
    slurm_init_update_node_msg (&msg);
    msg.node_names = (char *)hostlist;
    if (slurm_delete_node (&msg) != SLURM_SUCCESS)
        return ccas_errorf (err, "slurm delete of '%s': %s", hostlist, ccas_slurm_last_error ());
    return 0;
}
