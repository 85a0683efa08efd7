/* SPDX-License-Identifier: MIT */
/* fuzz.h: what the fuzz targets share.
 *
 * Each target defines LLVMFuzzerTestOneInput().  Built with --enable-fuzzing
 * it is a libFuzzer fuzzer; otherwise it is linked with driver.c, which
 * replays the target's seed corpus and kept crash inputs (make check).
 */
#ifndef CCAS_FUZZ_H
#define CCAS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"
#include "model/cluster.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (caller frees). */
char *fuzz_text (const uint8_t *data, size_t size);

/* A fresh model of tests/ccsim/clusters/small.json with a minimal
 * configuration, so that one input's changes never reach the next.
 * Caller frees with fuzz_model_destroy().  Aborts if the fixture is bad.
 * `cfg` is one configuration shared by every model (never freed). */
struct fuzz_model {
    const struct ccas_config *cfg;
    struct ccas_cluster *cluster;
};
struct fuzz_model fuzz_model_create (void);
void fuzz_model_destroy (struct fuzz_model *m);

/* A minimal valid configuration (caller frees with ccas_conf_destroy()). */
struct ccas_config *fuzz_config (void);

#endif /* !CCAS_FUZZ_H */
