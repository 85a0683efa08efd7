/* SPDX-License-Identifier: MIT */
/* fuzz_config.c: autoscale.json — parsing, validation against the key table, the effective view. */
#include "config.h"

#include <stdlib.h>

#include "conf/conf.h"
#include "fuzz.h"
#include "util/json.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    json_object *root = ccas_json_parse ((const char *)data, size, "autoscale.json", &err);
    struct ccas_config *cfg = root ? ccas_conf_from_json (root, "autoscale.json", &err) : NULL;
    if (cfg) {
        json_object_put (ccas_conf_effective (cfg));
        (void)ccas_conf_idle_timeout (cfg, "htc");
        (void)ccas_conf_boot_timeout (cfg, "hpc");
        (void)cfg->slurm.memory_margin_percent;
        ccas_conf_destroy (cfg);
    }
    return 0;
}
