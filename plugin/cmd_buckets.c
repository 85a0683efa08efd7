/* SPDX-License-Identifier: MIT */
/* cmd_buckets.c: `ccautoscale buckets` — machine types, sizes, limits, placement groups. */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "builtins.h"
#include "table.h"

static const struct cmd_option options[] = {
    {"-n, --nodearray NAME", "only this nodearray (shell wildcards allowed)"},
    {"-t, --machine-type TYPE", "only this machine type (shell wildcards allowed)"},
    {NULL, NULL},
};

const struct cmd_help help_buckets = {
    .synopsis = "buckets [--nodearray NAME] [--machine-type TYPE] [--json]",
    .summary = "list buckets: machine types, sizes, available counts, limits and placement groups",
    .description = "A bucket is one machine type in one nodearray: the unit CycleCloud creates nodes in.\n"
                   "AVAIL is how many more nodes may be created now; it already reflects the bucket's,\n"
                   "the nodearray's and the cluster's limits and the subscription's quotas, which the\n"
                   "other columns show.  PGS lists placement groups as name:active/size.  CAPFAIL is the\n"
                   "time since the last capacity failure.  One status request, nothing else.",
    .options = options,
    .examples = "$ ccautoscale buckets\n"
                "$ ccautoscale buckets --nodearray hpc --json | jq '.[].available_count'",
    .see_also = "ccautoscale-status(8), ccautoscale-nodes(8)",
};

static bool wanted (const char *pattern, const char *value)
{
    return !pattern || (value && fnmatch (pattern, value, 0) == 0);
}

static void add_count (json_object *o, const char *key, int64_t v)
{
    json_object_object_add (o, key, v < 0 ? NULL : json_object_new_int64 (v));
}

static json_object *bucket_json (const struct ccas_nodearray_status *na, const struct ccas_bucket_status *b)
{
    json_object *o = json_object_new_object ();
    json_object *pgs = json_object_new_array ();
    json_object_object_add (o, "nodearray", json_object_new_string (na->name));
    json_object_object_add (o, "machine_type", json_object_new_string (b->machine_type));
    json_object_object_add (o, "bucket_id", b->bucket_id ? json_object_new_string (b->bucket_id) : NULL);
    json_object_object_add (o, "valid", json_object_new_boolean (b->valid));
    json_object_object_add (o, "invalid_reason",
                            b->invalid_reason ? json_object_new_string (b->invalid_reason) : NULL);
    json_object_object_add (o, "vcpu_count", json_object_new_int (b->vm.vcpu_count));
    json_object_object_add (o, "pcpu_count", json_object_new_int (b->vm.pcpu_count));
    json_object_object_add (o, "gpu_count", json_object_new_int (b->vm.gpu_count));
    json_object_object_add (o, "memory_gb", json_object_new_double (b->vm.memory_gb));
    json_object_object_add (o, "infiniband", json_object_new_boolean (b->vm.infiniband));
    add_count (o, "available_count", b->available_count);
    add_count (o, "available_core_count", b->available_core_count);
    add_count (o, "active_count", b->active_count);
    add_count (o, "active_core_count", b->active_core_count);
    add_count (o, "max_count", b->max_count);
    add_count (o, "max_core_count", b->max_core_count);
    add_count (o, "quota_count", b->quota_count);
    add_count (o, "quota_core_count", b->quota_core_count);
    add_count (o, "consumed_core_count", b->consumed_core_count);
    add_count (o, "family_quota_count", b->family_quota_count);
    add_count (o, "family_quota_core_count", b->family_quota_core_count);
    add_count (o, "family_consumed_core_count", b->family_consumed_core_count);
    add_count (o, "regional_quota_count", b->regional_quota_count);
    add_count (o, "regional_quota_core_count", b->regional_quota_core_count);
    add_count (o, "regional_consumed_core_count", b->regional_consumed_core_count);
    add_count (o, "max_placement_group_size", b->max_pg_size);
    add_count (o, "max_placement_group_core_size", b->max_pg_core_size);
    for (size_t i = 0; i < b->npgs; i++) {
        json_object *pg = json_object_new_object ();
        json_object_object_add (pg, "name", json_object_new_string (b->pgs[i].name));
        json_object_object_add (pg, "active_count", json_object_new_int64 (b->pgs[i].active_count));
        json_object_array_add (pgs, pg);
    }
    json_object_object_add (o, "placement_groups", pgs);
    json_object_object_add (o, "last_capacity_failure_seconds",
                            b->last_capacity_failure < 0 ? NULL
                                                         : json_object_new_double (b->last_capacity_failure));
    return o;
}

static const char *fmt_count (int64_t v, char *buf, size_t size)
{
    if (v < 0)
        return "-";
    snprintf (buf, size, "%lld", (long long)v);
    return buf;
}

static const char *fmt_pgs (const struct ccas_bucket_status *b, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < b->npgs && o < size; i++)
        o += (size_t)snprintf (buf + o, size - o, "%s%s:%lld/%lld", i ? "," : "", b->pgs[i].name,
                               (long long)b->pgs[i].active_count, (long long)b->max_pg_size);
    return buf;
}

static const char *fmt_ago (double seconds, char *buf, size_t size)
{
    if (seconds < 0)
        return "-";
    if (seconds < 120)
        snprintf (buf, size, "%.0fs ago", seconds);
    else if (seconds < 7200)
        snprintf (buf, size, "%.0fm ago", seconds / 60);
    else
        snprintf (buf, size, "%.0fh ago", seconds / 3600);
    return buf;
}

static void add_row (struct table *t, const struct ccas_nodearray_status *na,
                     const struct ccas_bucket_status *b)
{
    char vcpu[16], pcpu[16], gpu[16], mem[32], avail[24], active[24], max[24], quota[48], famq[48], pgs[256],
        capfail[32];
    snprintf (vcpu, sizeof (vcpu), "%d", b->vm.vcpu_count);
    snprintf (pcpu, sizeof (pcpu), "%d", b->vm.pcpu_count);
    snprintf (gpu, sizeof (gpu), "%d", b->vm.gpu_count);
    snprintf (mem, sizeof (mem), "%.1fg", b->vm.memory_gb);
    if (b->quota_core_count >= 0 && b->consumed_core_count >= 0)
        snprintf (quota, sizeof (quota), "%lld/%lld", (long long)b->consumed_core_count,
                  (long long)b->quota_core_count);
    else
        snprintf (quota, sizeof (quota), "-");
    if (b->family_quota_core_count >= 0 && b->family_consumed_core_count >= 0)
        snprintf (famq, sizeof (famq), "%lld/%lld", (long long)b->family_consumed_core_count,
                  (long long)b->family_quota_core_count);
    else
        snprintf (famq, sizeof (famq), "-");
    const char *cells[] = {
        na->name,
        b->machine_type,
        vcpu,
        pcpu,
        gpu,
        mem,
        b->vm.infiniband ? "yes" : "no",
        fmt_count (b->available_count, avail, sizeof (avail)),
        fmt_count (b->active_count, active, sizeof (active)),
        fmt_count (b->max_count, max, sizeof (max)),
        quota,
        famq,
        fmt_pgs (b, pgs, sizeof (pgs)),
        fmt_ago (b->last_capacity_failure, capfail, sizeof (capfail)),
        b->valid ? "yes" : (b->invalid_reason ? b->invalid_reason : "no"),
    };
    table_add (t, cells);
}

int cmd_buckets (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"nodearray", required_argument, NULL, 'n'},
        {"machine-type", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    static const char *const headers[] = {
        "NODEARRAY", "MACHINE TYPE", ">VCPU", ">PCPU",        ">GPU", ">MEMORY", "IB",    ">AVAIL",
        ">ACTIVE",   ">MAX",         "QUOTA", "FAMILY CORES", "PGS",  "CAPFAIL", "VALID", NULL,
    };
    const char *na_pattern = NULL, *mt_pattern = NULL;
    struct ccas_error err = {""};
    struct ccas_status *st = NULL;
    int c, rc;

    while ((c = cli_getopt (cli, argc, argv, "n:t:", longopts)) != -1) {
        if (c == 'n')
            na_pattern = optarg;
        else if (c == 't')
            mt_pattern = optarg;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (ccas_ccapi_get_status (cli->api, false, &st, &err) < 0)
        return cli_fail_api (cli, &err);

    json_object *arr = cli->json ? json_object_new_array () : NULL;
    struct table *t = cli->json ? NULL : table_create (headers);
    for (size_t i = 0; i < st->nnodearrays; i++) {
        const struct ccas_nodearray_status *na = &st->nodearrays[i];
        if (!wanted (na_pattern, na->name))
            continue;
        for (size_t j = 0; j < na->nbuckets; j++) {
            const struct ccas_bucket_status *b = &na->buckets[j];
            if (!wanted (mt_pattern, b->machine_type))
                continue;
            if (arr)
                json_object_array_add (arr, bucket_json (na, b));
            else
                add_row (t, na, b);
        }
    }
    if (arr) {
        cli_print_json (arr);
        json_object_put (arr);
    } else {
        table_print (t, stdout);
        table_destroy (t);
    }
    ccas_status_destroy (st);
    return EXIT_OK;
}
