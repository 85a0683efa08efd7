/* SPDX-License-Identifier: MIT */
/* intent.c: the template's Slurm settings, ccautoscale's own keys first. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "intent.h"
#include "model/resdict.h"
#include "util/json.h"
#include "util/log.h"
#include "util/units.h"

/* ---- messages ---------------------------------------------------------------------------------- */

static void note (char ***list, size_t *n, bool *oom, const char *fmt, va_list ap)
    __attribute__ ((format (printf, 4, 0)));
static void note (char ***list, size_t *n, bool *oom, const char *fmt, va_list ap)
{
    char text[1024];
    vsnprintf (text, sizeof (text), fmt, ap);
    char **grown = realloc (*list, (*n + 1) * sizeof (**list));
    char *copy = strdup (text);
    if (!grown || !copy) {
        free (copy);
        if (grown)
            *list = grown;
        *oom = true;
        return;
    }
    *list = grown;
    (*list)[(*n)++] = copy;
}

struct reader {
    const struct ccas_cluster *c;
    struct ccas_slurm_intents *in;
    bool oom;
    bool bad_pattern; /* slurm.gpu_device_files, said once */
    bool bad_memory;  /* a slurm_memory rule of no size, said once */
    bool bad_gpus;    /* a slurm_gpus rule of no count, said once */
};

static void warn (struct reader *r, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static void warn (struct reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    note (&r->in->warnings, &r->in->nwarnings, &r->oom, fmt, ap);
    va_end (ap);
}

static void fail (struct reader *r, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static void fail (struct reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    note (&r->in->errors, &r->in->nerrors, &r->oom, fmt, ap);
    va_end (ap);
}

static void origin (struct ccas_slurm_intent *it, enum ccas_intent_setting s, enum ccas_intent_from from,
                    const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
static void origin (struct ccas_slurm_intent *it, enum ccas_intent_setting s, enum ccas_intent_from from,
                    const char *fmt, ...)
{
    va_list ap;
    it->origin[s].from = from;
    va_start (ap, fmt);
    vsnprintf (it->origin[s].key, sizeof (it->origin[s].key), fmt, ap);
    va_end (ap);
}

/* ---- values of the Configuration --------------------------------------------------------------- */

/* Configuration slurm.KEY, nested ({"slurm": {"KEY": v}}) or dotted; a null
 * reads as absent. */
static json_object *template_value (const struct ccas_nodearray *na, const char *key)
{
    char dotted[128];
    json_object *conf = ccas_json_get (na->st->record, "Configuration");
    json_object *v = ccas_json_get (ccas_json_get (conf, "slurm"), key);
    if (!v) {
        snprintf (dotted, sizeof (dotted), "slurm.%s", key);
        v = ccas_json_get (conf, dotted);
    }
    return v;
}

/* A string setting: 1 (in *out), 0 absent, -1 the wrong type (reported). */
static int template_string (struct reader *r, const struct ccas_slurm_intent *it, const char *key,
                            const char **out)
{
    char brief[64];
    json_object *v = template_value (it->na, key);
    if (!v)
        return 0;
    if (!json_object_is_type (v, json_type_string)) {
        if (it->managed)
            fail (r, "nodearray '%s': Configuration slurm.%s: expected a string, got %s", it->na->name, key,
                  ccas_json_brief (v, brief, sizeof (brief)));
        return -1;
    }
    *out = json_object_get_string (v);
    return 1;
}

/* A boolean setting: true or false, or the word in any case (azslurm
 * compares the text).  1, 0 absent, -1 the wrong type (reported). */
static int template_bool (struct reader *r, const struct ccas_slurm_intent *it, const char *key, bool *out)
{
    char brief[64];
    json_object *v = template_value (it->na, key);
    if (!v)
        return 0;
    if (json_object_is_type (v, json_type_boolean)) {
        *out = json_object_get_boolean (v);
        return 1;
    }
    if (json_object_is_type (v, json_type_string) &&
        (strcasecmp (json_object_get_string (v), "true") == 0 ||
         strcasecmp (json_object_get_string (v), "false") == 0)) {
        *out = strcasecmp (json_object_get_string (v), "true") == 0;
        return 1;
    }
    if (it->managed)
        fail (r, "nodearray '%s': Configuration slurm.%s: expected true or false, got %s", it->na->name, key,
              ccas_json_brief (v, brief, sizeof (brief)));
    return -1;
}

/* A number setting, as a number or its text.  1, 0 absent, -1 the wrong
 * type (reported). */
static int template_number (struct reader *r, const struct ccas_slurm_intent *it, const char *key,
                            double *out)
{
    char brief[64], *end;
    json_object *v = template_value (it->na, key);
    if (!v)
        return 0;
    if (json_object_is_type (v, json_type_int) || json_object_is_type (v, json_type_double)) {
        *out = json_object_get_double (v);
        return 1;
    }
    if (json_object_is_type (v, json_type_string)) {
        const char *s = json_object_get_string (v);
        double d = strtod (s, &end);
        if (end != s && !*end && isfinite (d)) {
            *out = d;
            return 1;
        }
    }
    if (it->managed)
        fail (r, "nodearray '%s': Configuration slurm.%s: expected a number, got %s", it->na->name, key,
              ccas_json_brief (v, brief, sizeof (brief)));
    return -1;
}

/* ---- node prefix ------------------------------------------------------------------------------- */

static bool hostname_char (char ch)
{
    return isalnum ((unsigned char)ch) || ch == '-';
}

static void read_prefix (struct reader *r, struct ccas_slurm_intent *it)
{
    const struct ccas_config *cfg = r->c->cfg;
    const char *v = NULL;
    if (ccas_conf_given (cfg, "slurm.node_prefix")) {
        /* checked once, for every nodearray (check_own_prefix) */
        v = cfg->slurm.node_prefix;
        origin (it, CCAS_SET_PREFIX, CCAS_FROM_CONFIG, "slurm.node_prefix");
        snprintf (it->prefix, sizeof (it->prefix), "%s", v);
        return;
    }
    if (template_string (r, it, "node_prefix", &v) > 0) {
        origin (it, CCAS_SET_PREFIX, CCAS_FROM_TEMPLATE, "slurm.node_prefix");
    } else {
        v = "";
        origin (it, CCAS_SET_PREFIX, CCAS_FROM_DEFAULT, "none");
    }
    if (strlen (v) >= sizeof (it->prefix)) {
        if (it->managed)
            fail (r,
                  "nodearray '%s': Configuration slurm.node_prefix: '%s' is longer than a hostname's 63"
                  " characters",
                  it->na->name, v);
        return;
    }
    /* the template's prefix is the cluster's name and '-': made a hostname
     * as azslurm makes it, each other character a '-' */
    size_t i;
    for (i = 0; v[i]; i++)
        it->prefix[i] = hostname_char (v[i]) ? v[i] : '-';
    it->prefix[i] = '\0';
    if (strcmp (it->prefix, v) != 0 && it->managed)
        warn (r, "nodearray '%s': Configuration slurm.node_prefix '%s' made a hostname: '%s'", it->na->name,
              v, it->prefix);
    if (it->prefix[0] == '-' && it->managed)
        fail (r,
              "nodearray '%s': Configuration slurm.node_prefix: '%s' cannot begin a hostname (it begins with"
              " '-')",
              it->na->name, v);
}

/* The site's slurm.node_prefix is taken as written: it must be a hostname's beginning. */
static void check_own_prefix (struct reader *r)
{
    const struct ccas_config *cfg = r->c->cfg;
    const char *v = cfg->slurm.node_prefix, *bad;
    if (!ccas_conf_given (cfg, "slurm.node_prefix") || !v)
        return;
    for (bad = v; *bad && hostname_char (*bad); bad++)
        ;
    if (*bad)
        fail (r, "slurm.node_prefix: '%s' cannot begin a hostname ('%c'; letters, digits and '-' only)", v,
              *bad);
    else if (v[0] == '-')
        fail (r, "slurm.node_prefix: '%s' cannot begin a hostname (it begins with '-')", v);
    else if (strlen (v) > 63)
        fail (r, "slurm.node_prefix: '%s' is longer than a hostname's 63 characters", v);
}

/* ---- partition --------------------------------------------------------------------------------- */

/* Why Slurm would not take `name` for a partition, or NULL: slurm.conf
 * ends a value at a blank, '#' begins a comment, a job's --partition
 * separates names by ',', and PartitionName=DEFAULT sets the defaults of
 * the others instead of making one. */
static const char *bad_partition (const char *name, char *buf, size_t size)
{
    if (!*name)
        return "is empty";
    if (strcasecmp (name, "DEFAULT") == 0)
        return "is the name Slurm keeps for the defaults of partitions";
    for (const char *p = name; *p; p++)
        if (!isgraph ((unsigned char)*p) || strchr (",=#\"'", *p)) {
            if (isgraph ((unsigned char)*p))
                snprintf (buf, size, "holds '%c', which Slurm does not take in a partition name", *p);
            else
                snprintf (buf, size, "holds a blank or control character");
            return buf;
        }
    return NULL;
}

static void read_partition (struct reader *r, struct ccas_slurm_intent *it)
{
    const struct ccas_nodearray_config *set = ccas_conf_nodearray (r->c->cfg, it->na->name);
    const char *v = NULL, *why;
    char buf[128], key[256];
    if (set && set->slurm_partition) {
        v = set->slurm_partition;
        snprintf (key, sizeof (key), "nodearrays.%s.slurm_partition", it->na->name);
        origin (it, CCAS_SET_PARTITION, CCAS_FROM_CONFIG, "%s", key);
    } else if (template_string (r, it, "partition", &v) > 0) {
        snprintf (key, sizeof (key), "Configuration slurm.partition");
        origin (it, CCAS_SET_PARTITION, CCAS_FROM_TEMPLATE, "slurm.partition");
    } else {
        v = it->na->name;
        snprintf (key, sizeof (key), "the nodearray's name");
        origin (it, CCAS_SET_PARTITION, CCAS_FROM_DEFAULT, "the nodearray's name");
    }
    it->partition = v;
    if (it->managed && (why = bad_partition (v, buf, sizeof (buf))))
        fail (r, "nodearray '%s': %s: partition name '%s' %s", it->na->name, key, v, why);
}

/* ---- the other settings ------------------------------------------------------------------------ */

static void read_colocated (struct reader *r, struct ccas_slurm_intent *it)
{
    const struct ccas_nodearray_config *set = ccas_conf_nodearray (r->c->cfg, it->na->name);
    bool hpc;
    it->colocated = it->na->colocated;
    int got = template_bool (r, it, "hpc", &hpc);
    if (set && set->colocated >= 0)
        origin (it, CCAS_SET_COLOCATED, CCAS_FROM_CONFIG, "nodearrays.%s.colocated", it->na->name);
    else if (got > 0)
        origin (it, CCAS_SET_COLOCATED, CCAS_FROM_TEMPLATE, "slurm.hpc");
    else if (it->na->st->placement_group_id)
        origin (it, CCAS_SET_COLOCATED, CCAS_FROM_CYCLECLOUD, "PlacementGroupId");
    else
        origin (it, CCAS_SET_COLOCATED, CCAS_FROM_DEFAULT, "InfiniBand machine types");
    /* ccautoscale makes its own colocated partitions exclusive (a placement
     * group per job); the template's slurm.hpc partitions share nodes, as
     * under azslurm */
    if (ccas_conf_given (r->c->cfg, "slurm.exclusive_colocated")) {
        it->exclusive = it->colocated && r->c->cfg->slurm.exclusive_colocated;
        origin (it, CCAS_SET_EXCLUSIVE, CCAS_FROM_CONFIG, "slurm.exclusive_colocated");
    } else {
        it->exclusive = it->colocated && it->origin[CCAS_SET_COLOCATED].from != CCAS_FROM_TEMPLATE;
        origin (it, CCAS_SET_EXCLUSIVE, CCAS_FROM_DEFAULT, "colocated, unless by the template's slurm.hpc");
    }
}

static void read_flags (struct reader *r, struct ccas_slurm_intent *it)
{
    const struct ccas_config *cfg = r->c->cfg;
    bool b;
    it->use_pcpu = true;
    if (template_bool (r, it, "use_pcpu", &b) > 0) {
        it->use_pcpu = b;
        origin (it, CCAS_SET_USE_PCPU, CCAS_FROM_TEMPLATE, "slurm.use_pcpu");
    } else
        origin (it, CCAS_SET_USE_PCPU, CCAS_FROM_DEFAULT, "true");
    it->autoscale = true;
    if (template_bool (r, it, "autoscale", &b) > 0) {
        it->autoscale = b;
        origin (it, CCAS_SET_AUTOSCALE, CCAS_FROM_TEMPLATE, "slurm.autoscale");
    } else
        origin (it, CCAS_SET_AUTOSCALE, CCAS_FROM_DEFAULT, "true");
    /* where the template makes the node's name its hostname, Slurm finds
     * the node by name, and azslurm never sets NodeAddr */
    int named = template_bool (r, it, "use_nodename_as_hostname", &b);
    if (ccas_conf_given (cfg, "slurm.set_node_addr")) {
        it->set_node_addr = cfg->slurm.set_node_addr;
        origin (it, CCAS_SET_NODE_ADDR, CCAS_FROM_CONFIG, "slurm.set_node_addr");
    } else if (named > 0) {
        it->set_node_addr = !b;
        origin (it, CCAS_SET_NODE_ADDR, CCAS_FROM_TEMPLATE, "slurm.use_nodename_as_hostname");
    } else {
        it->set_node_addr = cfg->slurm.set_node_addr;
        origin (it, CCAS_SET_NODE_ADDR, CCAS_FROM_DEFAULT, "true");
    }
}

static void read_memory (struct reader *r, struct ccas_slurm_intent *it)
{
    const struct ccas_config *cfg = r->c->cfg;
    double pct;
    it->margin_percent = cfg->slurm.memory_margin_percent;
    it->margin_min_mb = cfg->slurm.memory_margin_min_mb;
    it->use_rule = false;
    int dampen = template_number (r, it, "dampen_memory", &pct);
    if (ccas_conf_given (cfg, "slurm.memory_margin_percent") ||
        ccas_conf_given (cfg, "slurm.memory_margin_min_mb")) {
        origin (it, CCAS_SET_MEMORY, CCAS_FROM_CONFIG, "slurm.memory_margin_percent %g, at least %g MB",
                it->margin_percent, it->margin_min_mb);
        return;
    }
    if (dampen > 0 && (pct < 0 || pct >= 100)) {
        if (it->managed)
            fail (
                r,
                "nodearray '%s': Configuration slurm.dampen_memory: %g is no percentage of memory (0 to 99)",
                it->na->name, pct);
        dampen = -1;
    }
    if (dampen > 0) {
        /* azslurm's dampen_memory: that share, at least 1 GiB, over the slurm_memory rule */
        it->margin_percent = pct;
        it->margin_min_mb = 1024;
        origin (it, CCAS_SET_MEMORY, CCAS_FROM_TEMPLATE, "slurm.dampen_memory %g%%, at least 1024 MB", pct);
        return;
    }
    it->use_rule = true;
    origin (it, CCAS_SET_MEMORY, CCAS_FROM_DEFAULT, "%g%%, at least %g MB, or the slurm_memory rule",
            it->margin_percent, it->margin_min_mb);
}

const char *ccas_slurm_config_feature (const char *args, char *buf, size_t size)
{
    char copy[1024];
    char *save = NULL;
    size_t n = 0;
    buf[0] = '\0';
    for (const char *p = args; *p && n + 1 < sizeof (copy); p++)
        if (*p != '"' && *p != '\'')
            copy[n++] = *p;
    copy[n] = '\0';
    for (char *tok = strtok_r (copy, " \t", &save); tok; tok = strtok_r (NULL, " \t", &save))
        if (strncasecmp (tok, "feature=", 8) == 0)
            snprintf (buf, size, "%.*s", (int)strcspn (tok + 8, ","), tok + 8);
    return buf;
}

/* slurm.dynamic_feature, else the last Feature= of slurm.dynamic_config
 * (azslurm's older form: slurmd -Z arguments); of several features the
 * first names the nodeset. */
static void read_dynamic (struct reader *r, struct ccas_slurm_intent *it)
{
    const char *v = NULL;
    char feature[128] = "";
    it->dynamic_feature[0] = '\0';
    if (template_string (r, it, "dynamic_feature", &v) > 0 && *v) {
        snprintf (feature, sizeof (feature), "%s", v);
        origin (it, CCAS_SET_DYNAMIC, CCAS_FROM_TEMPLATE, "slurm.dynamic_feature");
    } else if (template_string (r, it, "dynamic_config", &v) > 0) {
        ccas_slurm_config_feature (v, feature, sizeof (feature));
        origin (it, CCAS_SET_DYNAMIC, CCAS_FROM_TEMPLATE, "slurm.dynamic_config");
        if (!feature[0] && it->managed)
            fail (r,
                  "nodearray '%s': Configuration slurm.dynamic_config: '%s' has no Feature= (Slurm's"
                  " nodeset of a dynamic partition needs one)",
                  it->na->name, v);
    }
    if (!feature[0]) {
        if (it->origin[CCAS_SET_DYNAMIC].from == CCAS_FROM_DEFAULT)
            origin (it, CCAS_SET_DYNAMIC, CCAS_FROM_DEFAULT, "none: static nodes");
        return;
    }
    feature[strcspn (feature, ",")] = '\0';
    for (const char *p = feature; *p; p++)
        if (!isgraph ((unsigned char)*p) || strchr ("=#\"'&|[]", *p)) {
            if (it->managed)
                fail (r, "nodearray '%s': Configuration %s: feature '%s' is not one Slurm takes",
                      it->na->name, it->origin[CCAS_SET_DYNAMIC].key, feature);
            return;
        }
    snprintf (it->dynamic_feature, sizeof (it->dynamic_feature), "%s", feature);
}

static void read_gpu_files (struct reader *r, struct ccas_slurm_intent *it)
{
    const struct ccas_config *cfg = r->c->cfg;
    const char *v = NULL;
    it->gpu_device_config = NULL;
    if (ccas_conf_given (cfg, "slurm.gpu_device_files") || ccas_conf_given (cfg, "slurm.gpu_device_first"))
        origin (it, CCAS_SET_GPU_FILES, CCAS_FROM_CONFIG, "slurm.gpu_device_files");
    else if (template_string (r, it, "gpu_device_config", &v) > 0 && *v) {
        it->gpu_device_config = v;
        origin (it, CCAS_SET_GPU_FILES, CCAS_FROM_TEMPLATE, "slurm.gpu_device_config");
        if (strpbrk (v, " \t\n") && it->managed)
            fail (r, "nodearray '%s': Configuration slurm.gpu_device_config: '%s' holds a blank",
                  it->na->name, v);
    } else
        origin (it, CCAS_SET_GPU_FILES, CCAS_FROM_DEFAULT,
                "by vendor: /dev/nvidiaN, AMD MI300 /dev/dri/renderD128+8N");
}

static void read_nodearray (struct reader *r, struct ccas_slurm_intent *it, const struct ccas_nodearray *na)
{
    it->na = na;
    it->managed = na->enabled;
    read_prefix (r, it);
    read_partition (r, it);
    read_colocated (r, it);
    read_flags (r, it);
    read_memory (r, it);
    read_dynamic (r, it);
    read_gpu_files (r, it);
}

/* ---- across nodearrays ------------------------------------------------------------------------- */

/* Default=YES: the nodearray slurm.default_partition names; else those the
 * template marks (Slurm makes the last one read its default, so only that
 * one is written); else none here, and conf_gen makes the first partition
 * it writes the default. */
static void resolve_default (struct reader *r)
{
    const struct ccas_config *cfg = r->c->cfg;
    struct ccas_slurm_intents *in = r->in;
    if (ccas_conf_given (cfg, "slurm.default_partition") && cfg->slurm.default_partition) {
        bool found = false;
        for (size_t i = 0; i < in->nna; i++) {
            struct ccas_slurm_intent *it = &in->na[i];
            it->is_default = it->managed && strcmp (it->na->name, cfg->slurm.default_partition) == 0;
            found = found || it->is_default;
            origin (it, CCAS_SET_DEFAULT, CCAS_FROM_CONFIG, "slurm.default_partition");
        }
        if (!found)
            warn (r,
                  "slurm.default_partition: '%s' is no nodearray ccautoscale manages: no partition is the"
                  " default",
                  cfg->slurm.default_partition);
        return;
    }
    struct ccas_slurm_intent *last = NULL;
    char marked[512] = "";
    size_t nmarked = 0;
    for (size_t i = 0; i < in->nna; i++) {
        struct ccas_slurm_intent *it = &in->na[i];
        bool b;
        if (template_bool (r, it, "default_partition", &b) > 0 && b && it->managed) {
            size_t len = strlen (marked);
            snprintf (marked + len, sizeof (marked) - len, "%s'%s'", nmarked ? ", " : "", it->na->name);
            nmarked++;
            last = it;
        }
    }
    if (nmarked > 1)
        warn (r,
              "Configuration slurm.default_partition is true on nodearrays %s: Slurm makes the last one"
              " its default, and so does ccautoscale ('%s')",
              marked, last->na->name);
    for (size_t i = 0; i < in->nna; i++) {
        struct ccas_slurm_intent *it = &in->na[i];
        if (last) {
            it->is_default = it == last;
            origin (it, CCAS_SET_DEFAULT, CCAS_FROM_TEMPLATE, "slurm.default_partition");
        } else
            origin (it, CCAS_SET_DEFAULT, CCAS_FROM_DEFAULT, "the first partition written");
    }
}

/* Two managed nodearrays whose names look alike ("a-" and "b", "" and
 * "a-b") would share their nodes' names. */
static void check_names_apart (struct reader *r)
{
    struct ccas_slurm_intents *in = r->in;
    for (size_t i = 0; i < in->nna; i++)
        for (size_t j = i + 1; j < in->nna; j++) {
            const struct ccas_slurm_intent *a = &in->na[i], *b = &in->na[j];
            char na[256], nb[256];
            if (!a->managed || !b->managed || a->dynamic_feature[0] || b->dynamic_feature[0])
                continue;
            snprintf (na, sizeof (na), "%s%s", a->prefix, a->na->name);
            snprintf (nb, sizeof (nb), "%s%s", b->prefix, b->na->name);
            if (strcmp (na, nb) == 0)
                fail (r, "nodearrays '%s' and '%s': slurm.node_prefix: both would name their nodes '%s-N'",
                      a->na->name, b->na->name, na);
        }
}

/* ---- one bucket -------------------------------------------------------------------------------- */

/* A resource the rules define on the bucket's nodes, or NULL. */
static const struct ccas_value *rule_value (const struct ccas_cluster *c, const struct ccas_bucket *b,
                                            const char *name)
{
    int id = ccas_resdict_find (c->dict, name);
    const struct ccas_node *t = &b->template_node;
    if (id < 0 || (uint32_t)id >= t->nres || t->res[id].type == CCAS_V_NONE)
        return NULL;
    return &t->res[id];
}

/* A rule's value for a message, to go between single quotes. */
static const char *rule_text (const struct ccas_value *v, char *buf, size_t size)
{
    if (v->type == CCAS_V_STR) {
        snprintf (buf, size, "%s", v->u.str);
        return buf;
    }
    return ccas_value_format (v, buf, size);
}

static void shape_memory (struct reader *r, const struct ccas_slurm_intent *it, const struct ccas_bucket *b,
                          struct ccas_slurm_shape *s)
{
    double mb = b->template_node.memory / CCAS_MIB;
    const struct ccas_value *rule = rule_value (r->c, b, "slurm_memory");
    char text[64];
    double real;
    if (it->use_rule && rule) {
        if (rule->type != CCAS_V_NUM || !rule->size) {
            if (it->managed && !r->bad_memory)
                fail (r,
                      "nodearray '%s' machine type '%s': default_resources slurm_memory: '%s' is no size"
                      " of memory (write 'memory::15g' or 'node.memory')",
                      it->na->name, b->machine_type, rule_text (rule, text, sizeof (text)));
            r->bad_memory = r->bad_memory || it->managed;
            return;
        }
        real = rule->u.num / CCAS_MIB;
        if (mb > 0 && real > mb + 0.5 && it->managed)
            fail (r,
                  "nodearray '%s' machine type '%s': default_resources slurm_memory: '%s' is more than the"
                  " VM's memory (%.0f MB)",
                  it->na->name, b->machine_type, rule_text (rule, text, sizeof (text)), mb);
        s->memory.from = CCAS_FROM_RULE;
        snprintf (s->memory.key, sizeof (s->memory.key), "default_resources slurm_memory %s",
                  rule_text (rule, text, sizeof (text)));
    } else {
        double margin = mb * it->margin_percent / 100.0;
        if (margin < it->margin_min_mb)
            margin = it->margin_min_mb;
        real = mb - margin;
        s->memory = it->origin[CCAS_SET_MEMORY];
        if (rule && it->origin[CCAS_SET_MEMORY].from == CCAS_FROM_TEMPLATE && it->managed)
            warn (r,
                  "nodearray '%s': Configuration slurm.dampen_memory is set, so the slurm_memory rule of"
                  " default_resources is not used (as under azslurm)",
                  it->na->name);
    }
    /* azslurm's floor of 1 GiB where the VM has more; never above the VM */
    if (real < 1024 && mb > 1024)
        real = 1024;
    if (mb > 0 && real > mb)
        real = mb;
    if (real < 1)
        real = 1;
    s->real_memory_mb = real < 1e15 ? (long)floor (real) : (long)1e15;
    s->def_mem_per_cpu = s->real_memory_mb / s->cpus;
}

static void shape_gpus (struct reader *r, const struct ccas_slurm_intent *it, const struct ccas_bucket *b,
                        struct ccas_slurm_shape *s)
{
    const struct ccas_value *rule = rule_value (r->c, b, "slurm_gpus");
    char text[64];
    s->gpus = b->template_node.gpu_count;
    s->gpu_count.from = CCAS_FROM_CYCLECLOUD;
    snprintf (s->gpu_count.key, sizeof (s->gpu_count.key), "gpuCount");
    if (rule) {
        if (rule->type != CCAS_V_NUM || rule->size || rule->u.num < 0 || rule->u.num > 1024 ||
            rule->u.num != floor (rule->u.num)) {
            if (it->managed && !r->bad_gpus)
                fail (r,
                      "nodearray '%s' machine type '%s': default_resources slurm_gpus: '%s' is no count of"
                      " GPUs",
                      it->na->name, b->machine_type, rule_text (rule, text, sizeof (text)));
            r->bad_gpus = r->bad_gpus || it->managed;
            return;
        }
        s->gpus = (int)rule->u.num;
        s->gpu_count.from = CCAS_FROM_RULE;
        snprintf (s->gpu_count.key, sizeof (s->gpu_count.key), "default_resources slurm_gpus");
    }
}

/* gres.conf File= for the bucket's GPUs.  slurm.gpu_device_files: its %d
 * as a range from slurm.gpu_device_first ("/dev/nvidia[0-7]"); else the
 * template's slurm.gpu_device_config as it is; else by vendor, as azslurm:
 * an AMD MI300 numbers its render nodes 128, 136 ...  Every GPU needs one:
 * 25.11 drops a GPU without, and marks a node whose slurmd then reports
 * fewer GPUs than slurm.conf says INVALID. */
static void shape_gpu_files (struct reader *r, const struct ccas_slurm_intent *it,
                             const struct ccas_bucket *b, struct ccas_slurm_shape *s)
{
    const struct ccas_config *cfg = r->c->cfg;
    size_t size = sizeof (s->gpu_files);
    int n = s->gpus;
    s->gpu_files[0] = '\0';
    if (n <= 0)
        return;
    if (it->origin[CCAS_SET_GPU_FILES].from == CCAS_FROM_CONFIG) {
        const char *pat = cfg->slurm.gpu_device_files ? cfg->slurm.gpu_device_files : "/dev/nvidia%d";
        const char *d = strstr (pat, "%d");
        int first = cfg->slurm.gpu_device_first;
        if (!d || strchr (d + 2, '%') || strchr (pat, '%') != d || strpbrk (pat, " \t\n[]")) {
            if (!r->bad_pattern && it->managed)
                fail (r, "slurm.gpu_device_files: '%s': expected a path with one %%d (the GPU's number)",
                      pat);
            r->bad_pattern = r->bad_pattern || it->managed;
            return;
        }
        if (n == 1)
            snprintf (s->gpu_files, size, "%.*s%d%s", (int)(d - pat), pat, first, d + 2);
        else
            snprintf (s->gpu_files, size, "%.*s[%d-%d]%s", (int)(d - pat), pat, first, first + n - 1, d + 2);
    } else if (it->gpu_device_config)
        snprintf (s->gpu_files, size, "%s", it->gpu_device_config);
    else if (strcasestr (b->machine_type, "mi300")) {
        if (n == 1)
            snprintf (s->gpu_files, size, "/dev/dri/renderD128");
        else {
            size_t len = (size_t)snprintf (s->gpu_files, size, "/dev/dri/renderD[");
            for (int i = 0; i < n && len < size; i++)
                len += (size_t)snprintf (s->gpu_files + len, size - len, "%s%d", i ? "," : "", 128 + 8 * i);
            if (len < size)
                snprintf (s->gpu_files + len, size - len, "]");
        }
    } else if (n == 1)
        snprintf (s->gpu_files, size, "/dev/nvidia0");
    else
        snprintf (s->gpu_files, size, "/dev/nvidia[0-%d]", n - 1);
}

static void read_shape (struct reader *r, const struct ccas_slurm_intent *it, const struct ccas_bucket *b,
                        struct ccas_slurm_shape *s)
{
    const struct ccas_node *t = &b->template_node;
    s->cpus = t->vcpu_count > 0 ? t->vcpu_count : 1;
    s->threads = 1;
    if (it->use_pcpu && t->pcpu_count > 0 && s->cpus % t->pcpu_count == 0)
        s->threads = s->cpus / t->pcpu_count;
    s->cores = s->cpus / s->threads;
    shape_memory (r, it, b, s);
    shape_gpus (r, it, b, s);
    shape_gpu_files (r, it, b, s);
}

/* ---- the whole ---------------------------------------------------------------------------------- */

struct ccas_slurm_intents *ccas_slurm_intents_read (const struct ccas_cluster *c)
{
    struct ccas_slurm_intents *in = calloc (1, sizeof (*in));
    struct reader r = {c, in, false, false, false, false};
    if (!in || !(in->na = calloc (c->nnodearrays + 1, sizeof (*in->na))) ||
        !(in->shape = calloc (c->nbuckets + 1, sizeof (*in->shape)))) {
        ccas_slurm_intents_destroy (in);
        return NULL;
    }
    in->nna = c->nnodearrays;
    in->nbuckets = c->nbuckets;
    check_own_prefix (&r);
    for (size_t i = 0; i < c->nnodearrays; i++)
        read_nodearray (&r, &in->na[i], &c->nodearrays[i]);
    resolve_default (&r);
    check_names_apart (&r);
    for (size_t i = 0; i < c->nbuckets; i++) {
        const struct ccas_bucket *b = &c->buckets[i];
        read_shape (&r, ccas_slurm_intent_of (in, c, b->na), b, &in->shape[i]);
    }
    if (r.oom) {
        ccas_slurm_intents_destroy (in);
        return NULL;
    }
    for (size_t i = 0; i < in->nwarnings; i++)
        ccas_log (LOG_DEBUG, "%s", in->warnings[i]);
    return in;
}

void ccas_slurm_intents_destroy (struct ccas_slurm_intents *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->nwarnings; i++)
        free (in->warnings[i]);
    for (size_t i = 0; i < in->nerrors; i++)
        free (in->errors[i]);
    free (in->warnings);
    free (in->errors);
    free (in->na);
    free (in->shape);
    free (in);
}

int ccas_slurm_intents_note (struct ccas_slurm_intents *in, bool error, const char *fmt, ...)
{
    bool oom = false;
    va_list ap;
    va_start (ap, fmt);
    if (error)
        note (&in->errors, &in->nerrors, &oom, fmt, ap);
    else
        note (&in->warnings, &in->nwarnings, &oom, fmt, ap);
    va_end (ap);
    if (!error && !oom)
        ccas_log (LOG_DEBUG, "%s", in->warnings[in->nwarnings - 1]);
    return oom ? -1 : 0;
}

const struct ccas_slurm_intent *ccas_slurm_intent_of (const struct ccas_slurm_intents *in,
                                                      const struct ccas_cluster *c,
                                                      const struct ccas_nodearray *na)
{
    size_t i = (size_t)(na - c->nodearrays);
    if (i >= in->nna)
        CCAS_BUG ("nodearray '%s' is not of this model", na->name);
    return &in->na[i];
}

const struct ccas_slurm_shape *ccas_slurm_shape_of (const struct ccas_slurm_intents *in,
                                                    const struct ccas_cluster *c, const struct ccas_bucket *b)
{
    size_t i = (size_t)(b - c->buckets);
    if (i >= in->nbuckets)
        CCAS_BUG ("bucket '%s' is not of this model", b->machine_type);
    return &in->shape[i];
}

const char *ccas_slurm_origin_text (const struct ccas_intent_origin *o, char *buf, size_t size)
{
    static const char *const from[] = {
        [CCAS_FROM_DEFAULT] = "default",        [CCAS_FROM_CONFIG] = "autoscale.json",
        [CCAS_FROM_TEMPLATE] = "Configuration", [CCAS_FROM_CYCLECLOUD] = "CycleCloud",
        [CCAS_FROM_RULE] = "autoscale.json",
    };
    if (o->from == CCAS_FROM_DEFAULT)
        snprintf (buf, size, "default (%s)", o->key);
    else
        snprintf (buf, size, "%s %s", from[o->from], o->key);
    return buf;
}

/* ---- for config check -------------------------------------------------------------------------- */

static void add_setting (json_object *o, const char *name, json_object *value,
                         const struct ccas_intent_origin *from)
{
    char text[256];
    json_object *s = json_object_new_object ();
    json_object_object_add (s, "value", value);
    json_object_object_add (s, "from",
                            json_object_new_string (ccas_slurm_origin_text (from, text, sizeof (text))));
    json_object_object_add (o, name, s);
}

static json_object *strings (char **list, size_t n)
{
    json_object *a = json_object_new_array ();
    for (size_t i = 0; i < n; i++)
        json_object_array_add (a, json_object_new_string (list[i]));
    return a;
}

json_object *ccas_slurm_intents_json (const struct ccas_slurm_intents *in, const struct ccas_cluster *c)
{
    json_object *root = json_object_new_object ();
    json_object *nas = json_object_new_object ();
    if (!root || !nas) {
        json_object_put (root);
        json_object_put (nas);
        return NULL;
    }
    for (size_t i = 0; i < in->nna; i++) {
        const struct ccas_slurm_intent *it = &in->na[i];
        const struct ccas_intent_origin *o = it->origin;
        json_object *na = json_object_new_object ();
        json_object *set = json_object_new_object ();
        json_object *buckets = json_object_new_object ();
        json_object_object_add (na, "managed", json_object_new_boolean (it->managed));
        add_setting (set, "node_prefix", json_object_new_string (it->prefix), &o[CCAS_SET_PREFIX]);
        add_setting (set, "partition", json_object_new_string (it->partition), &o[CCAS_SET_PARTITION]);
        add_setting (set, "default_partition", json_object_new_boolean (it->is_default),
                     &o[CCAS_SET_DEFAULT]);
        add_setting (set, "colocated", json_object_new_boolean (it->colocated), &o[CCAS_SET_COLOCATED]);
        add_setting (set, "exclusive", json_object_new_boolean (it->exclusive), &o[CCAS_SET_EXCLUSIVE]);
        add_setting (set, "use_pcpu", json_object_new_boolean (it->use_pcpu), &o[CCAS_SET_USE_PCPU]);
        add_setting (set, "autoscale", json_object_new_boolean (it->autoscale), &o[CCAS_SET_AUTOSCALE]);
        add_setting (set, "dynamic_feature",
                     it->dynamic_feature[0] ? json_object_new_string (it->dynamic_feature) : NULL,
                     &o[CCAS_SET_DYNAMIC]);
        add_setting (set, "set_node_addr", json_object_new_boolean (it->set_node_addr),
                     &o[CCAS_SET_NODE_ADDR]);
        for (size_t j = 0; j < c->nbuckets; j++) {
            const struct ccas_bucket *b = &c->buckets[j];
            const struct ccas_slurm_shape *s = &in->shape[j];
            if (b->na != it->na)
                continue;
            json_object *bo = json_object_new_object ();
            json_object_object_add (bo, "CPUs", json_object_new_int (s->cpus));
            json_object_object_add (bo, "ThreadsPerCore", json_object_new_int (s->threads));
            add_setting (bo, "RealMemory", json_object_new_int64 (s->real_memory_mb), &s->memory);
            json_object_object_add (bo, "DefMemPerCPU", json_object_new_int64 (s->def_mem_per_cpu));
            add_setting (bo, "gpus", json_object_new_int (s->gpus), &s->gpu_count);
            if (s->gpus > 0)
                add_setting (bo, "gpu_files", json_object_new_string (s->gpu_files), &o[CCAS_SET_GPU_FILES]);
            json_object_object_add (buckets, b->machine_type, bo);
        }
        json_object_object_add (na, "settings", set);
        json_object_object_add (na, "buckets", buckets);
        json_object_object_add (nas, it->na->name, na);
    }
    json_object_object_add (root, "nodearrays", nas);
    json_object_object_add (root, "warnings", strings (in->warnings, in->nwarnings));
    json_object_object_add (root, "errors", strings (in->errors, in->nerrors));
    return root;
}
