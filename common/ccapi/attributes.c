/* SPDX-License-Identifier: MIT */
/* attributes.c: the node and nodearray attributes of CycleCloud's cluster template reference. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ccapi/attributes.h"
#include "util/json.h"

#define S CCAS_ATTR_STRING
#define B CCAS_ATTR_BOOL
#define I CCAS_ATTR_INT
#define N CCAS_ATTR_NUMBER
#define T CCAS_ATTR_TIME
#define L CCAS_ATTR_STRINGS
#define O CCAS_ATTR_OBJECT
#define PASS CCAS_ATTR_PASS
#define READ CCAS_ATTR_READ
#define NO CCAS_ATTR_REFUSED

/* In the reference's order: required, image, additional, networking, tags,
 * spot, nodearray-specific, inheritance. */
static const struct ccas_attribute table[] = {
    {"MachineType", L, READ, "the machine types new nodes are made of, in preference order"},
    {"SubnetId", S, PASS, NULL},
    {"Credentials", S, PASS, NULL},
    {"ImageName", S, PASS, NULL},
    {"ImageId", S, PASS, NULL},
    {"ImagePlan", O, PASS, NULL},
    {"ImagePlan.Name", S, PASS, NULL},
    {"ImagePlan.Publisher", S, PASS, NULL},
    {"ImagePlan.Product", S, PASS, NULL},
    {"Azure", O, PASS, NULL},
    {"Azure.Publisher", S, PASS, NULL},
    {"Azure.Offer", S, PASS, NULL},
    {"Azure.Sku", S, PASS, NULL},
    {"Azure.ImageVersion", S, PASS, NULL},
    {"DownloadJetpack", B, PASS, NULL},
    {"InstallJetpack", B, PASS, NULL},
    {"AwaitInstallation", B, PASS, NULL},
    {"JetpackPlatform", S, PASS, NULL},
    {"ComputerName", S, NO, "it names one VM, and the nodes of an array each need their own"},
    {"ComputerNamePrefix", S, PASS, NULL},
    {"EphemeralOSDisk", B, PASS, NULL},
    {"Zone", L, PASS, NULL},
    {"ProximityPlacementGroupId", S, PASS, NULL},
    {"PlacementGroupId", S, NO,
     "ccautoscale chooses placement groups: a grouped target (TargetGroupCount) gives each group its own"},
    {"KeyPairLocation", S, PASS, NULL},
    {"KeepAlive", B, PASS, NULL},
    {"Locker", S, PASS, NULL},
    {"BootDiagnosticsUri", S, PASS, NULL},
    {"HybridBenefit", B, PASS, NULL},
    {"HybridBenefitLicense", S, PASS, NULL},
    {"NetworkSecurityGroupId", S, PASS, NULL},
    {"EnableTerminateNotification", B, PASS, NULL},
    {"TerminateNotificationTimeout", T, PASS, NULL},
    {"ThrottleCapacity", B, PASS, NULL},
    {"ThrottleCapacityTime", T, PASS, NULL},
    {"FlexScaleSetId", S, PASS, NULL},
    {"EncryptionAtHost", B, PASS, NULL},
    {"SecurityType", S, PASS, NULL},
    {"EnableSecureBoot", B, PASS, NULL},
    {"EnableVTPM", B, PASS, NULL},
    {"ScaleSetUpgradePolicyMode", S, PASS, NULL},
    {"IsReturnProxy", B, NO, "one node of a cluster is its return proxy, never an autoscaled array's"},
    {"ReturnPath", O, PASS, NULL},
    {"ReturnPath.Hostname", S, PASS, NULL},
    {"ReturnPath.WebserverPort", I, PASS, NULL},
    {"ReturnPath.BrokerPort", I, PASS, NULL},
    {"Tags", O, PASS, NULL},
    {"Tags.*", S, PASS, NULL},
    {"Interruptible", B, READ,
     "it must be the nodearray's own: spot and on-demand VMs draw on different quotas, counted per "
     "nodearray"},
    {"MaxPrice", N, PASS, NULL},
    {"Priority", I, PASS, NULL},
    {"Azure.AllocationMethod", S, PASS, NULL},
    {"Azure.SingleScaleset", B, PASS, NULL},
    {"Azure.SinglePlacementGroup", B, PASS, NULL},
    {"Azure.Overprovision", B, PASS, NULL},
    {"Azure.MaxScaleSetSize", I, PASS, NULL},
    {"Azure.MaxScalesetSize", I, PASS, NULL},
    {"InitialCount", I, NO, "it acts when a cluster starts; a request states TargetCount"},
    {"InitialCoreCount", I, NO, "it acts when a cluster starts; a request states TargetCoreCount"},
    {"MaxCount", I, READ, "the array grows to at most this many nodes"},
    {"MaxCoreCount", I, READ, "the array grows to at most this many cores"},
    {"ShutdownPolicy", S, PASS, NULL},
    {"Abstract", B, NO, "an array of a request is made, never abstract"},
    {"Extends", S, READ, "the nodearray a dynamic array's nodes are made in"},
    {NULL, S, PASS, NULL},
};

#undef S
#undef B
#undef I
#undef N
#undef T
#undef L
#undef O
#undef PASS
#undef READ
#undef NO

const struct ccas_attribute *ccas_attributes_find (const char *key)
{
    const char *dot = key ? strchr (key, '.') : NULL;
    for (size_t i = 0; key && table[i].name; i++) {
        const char *star = strchr (table[i].name, '*');
        if (strcmp (table[i].name, key) == 0)
            return &table[i];
        /* "Tags.*": any member of Tags */
        if (star && dot && dot[1] && (size_t)(dot - key) + 1 == (size_t)(star - table[i].name) &&
            strncmp (table[i].name, key, (size_t)(dot - key) + 1) == 0 && !strchr (dot + 1, '.'))
            return &table[i];
    }
    return NULL;
}

static const char *type_name (enum ccas_attr_type t)
{
    switch (t) {
    case CCAS_ATTR_STRING:
        return "a string";
    case CCAS_ATTR_BOOL:
        return "true or false";
    case CCAS_ATTR_INT:
        return "an integer";
    case CCAS_ATTR_NUMBER:
        return "a number";
    case CCAS_ATTR_TIME:
        return "a relative time (\"5m\") or seconds";
    case CCAS_ATTR_STRINGS:
        return "a string or a list of them";
    case CCAS_ATTR_OBJECT:
        return "an object";
    }
    return "?";
}

static bool is_int (json_object *v)
{
    if (json_object_is_type (v, json_type_int))
        return true;
    double d = json_object_get_double (v);
    return json_object_is_type (v, json_type_double) && d == floor (d) && fabs (d) < 9e15;
}

static bool scalar_of (enum ccas_attr_type t, json_object *v)
{
    switch (t) {
    case CCAS_ATTR_STRING:
        return json_object_is_type (v, json_type_string);
    case CCAS_ATTR_BOOL:
        return json_object_is_type (v, json_type_boolean);
    case CCAS_ATTR_INT:
        return is_int (v);
    case CCAS_ATTR_NUMBER:
        return json_object_is_type (v, json_type_int) || json_object_is_type (v, json_type_double);
    case CCAS_ATTR_TIME:
        return json_object_is_type (v, json_type_string) || json_object_is_type (v, json_type_int) ||
               json_object_is_type (v, json_type_double);
    case CCAS_ATTR_STRINGS:
        return json_object_is_type (v, json_type_string) || json_object_is_type (v, json_type_int);
    case CCAS_ATTR_OBJECT:
        return json_object_is_type (v, json_type_object);
    }
    return false;
}

bool ccas_attributes_check (const struct ccas_attribute *a, const char *key, json_object *value, char *why,
                            size_t size)
{
    if (a->type == CCAS_ATTR_STRINGS && json_object_is_type (value, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length (value); i++)
            if (!scalar_of (a->type, json_object_array_get_idx (value, i))) {
                char brief[80];
                snprintf (why, size, "%s[%zu]: expected a string, got %s", key, i,
                          ccas_json_brief (json_object_array_get_idx (value, i), brief, sizeof (brief)));
                return false;
            }
        if (json_object_array_length (value) == 0) {
            snprintf (why, size, "%s: expected %s, got an empty list", key, type_name (a->type));
            return false;
        }
        return true;
    }
    if (!scalar_of (a->type, value)) {
        char brief[80];
        snprintf (why, size, "%s: expected %s, got %s", key, type_name (a->type),
                  ccas_json_brief (value, brief, sizeof (brief)));
        return false;
    }
    if (a->type != CCAS_ATTR_OBJECT)
        return true;
    json_object_object_foreach (value, member, v)
    {
        char sub[300];
        snprintf (sub, sizeof (sub), "%s.%s", key, member);
        const struct ccas_attribute *m = ccas_attributes_find (sub);
        if (!m) {
            snprintf (why, size, "%s: CycleCloud has no such attribute", sub);
            return false;
        }
        if (!ccas_attributes_check (m, sub, v, why, size))
            return false;
    }
    return true;
}

int ccas_attributes_put (json_object *attrs, const char *key, json_object *value)
{
    char head[200];
    const char *dot = strchr (key, '.');
    if (!dot) {
        json_object *have = json_object_object_get (attrs, key);
        if (json_object_is_type (have, json_type_object) && json_object_is_type (value, json_type_object)) {
            json_object_object_foreach (value, k, v)
            {
                if (ccas_attributes_put (have, k, json_object_get (v)) < 0) {
                    json_object_put (value);
                    return -1;
                }
            }
            json_object_put (value);
            return 0;
        }
        json_object_object_add (attrs, key, value);
        return 0;
    }
    snprintf (head, sizeof (head), "%.*s", (int)(dot - key), key);
    json_object *sub = json_object_object_get (attrs, head);
    if (!sub) {
        sub = json_object_new_object ();
        json_object_object_add (attrs, head, sub);
    } else if (!json_object_is_type (sub, json_type_object)) {
        json_object_put (value);
        return -1;
    }
    return ccas_attributes_put (sub, dot + 1, value);
}

const char *ccas_attributes_names (enum ccas_attr_use use, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; table[i].name && o < size; i++) {
        if (table[i].use != use || table[i].type == CCAS_ATTR_OBJECT)
            continue;
        int n = snprintf (buf + o, size - o, "%s%s", o ? ", " : "", table[i].name);
        if (n < 0)
            break;
        o += (size_t)n;
    }
    return buf;
}
