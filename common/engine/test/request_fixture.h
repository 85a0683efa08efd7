/* SPDX-License-Identifier: MIT */
/* request_fixture.h: what the autoscale API's tests (test_request_set.c,
 * test_targets.c) share — the cluster of match-status.json with a state
 * directory of its own, and requests parsed against it.  Header-only
 * (static inline), for test programs; include it after cmocka.h. */
#ifndef CCAS_ENGINE_TEST_REQUEST_FIXTURE_H
#define CCAS_ENGINE_TEST_REQUEST_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"
#include "engine/request.h"
#include "engine/request_set.h"
#include "model/cluster.h"
#include "util/json.h"

struct fixture {
    char dir[64]; /* state_dir: a scratch directory, removed with the fixture */
    struct ccas_config *cfg;
    struct ccas_cluster *c;
};

/* The cluster of match-status.json (htc: F2s_v2, F4s_v2; hpc: HB120rs_v3,
 * placement groups of 4; gpu), with the node records of data file `nodes`
 * (a node list as CycleCloud returns it, or NULL) and the F4s_v2 bucket's
 * availableCount set to `f4_room` (<0: as the file says) and the cluster's
 * state and targetState `state` (NULL: as the file says).  Free with
 * teardown_cluster(). */
static inline struct fixture *setup_cluster_state (const char *nodes, int f4_room, const char *state)
{
    struct ccas_error err = {""};
    struct fixture *f = calloc (1, sizeof (*f));
    char text[512];
    assert_non_null (f);
    snprintf (f->dir, sizeof (f->dir), "/tmp/ccas-targets.XXXXXX");
    assert_non_null (mkdtemp (f->dir));
    snprintf (text, sizeof (text),
              "{\"url\": \"http://x\", \"username\": \"u\", \"password\": \"p\", \"cluster_name\": \"test\","
              " \"logging\": {\"syslog\": false}, \"state_dir\": \"%s\"}",
              f->dir);
    f->cfg = ccas_conf_from_json (json_tokener_parse (text), "test", &err);
    assert_non_null (f->cfg);
    json_object *st = ccas_json_load_file (TEST_DATA_DIR "/match-status.json", 1 << 20, &err);
    assert_non_null (st);
    if (f4_room >= 0) {
        json_object *nas = ccas_json_get (st, "nodearrays");
        for (size_t i = 0; i < json_object_array_length (nas); i++) {
            json_object *bs = ccas_json_get (json_object_array_get_idx (nas, i), "buckets");
            for (size_t k = 0; k < json_object_array_length (bs); k++) {
                json_object *b = json_object_array_get_idx (bs, k);
                if (strcmp (ccas_json_str (ccas_json_get (b, "definition"), "machineType"),
                            "Standard_F4s_v2") == 0)
                    json_object_object_add (b, "availableCount", json_object_new_int (f4_room));
            }
        }
    }
    if (state) {
        json_object_object_add (st, "state", json_object_new_string (state));
        json_object_object_add (st, "targetState", json_object_new_string (state));
    }
    struct ccas_status *status = ccas_status_from_json (st, "test", &err);
    assert_non_null (status);
    struct ccas_record_list *list = NULL;
    if (nodes) {
        char path[512];
        snprintf (path, sizeof (path), "%s/%s", TEST_DATA_DIR, nodes);
        json_object *doc = ccas_json_load_file (path, 1 << 20, &err);
        if (!doc)
            fail_msg ("%s", err.text);
        list = ccas_record_list_from_json (doc, &err);
        assert_non_null (list);
    }
    f->c = ccas_cluster_create (f->cfg, status, list, &err);
    assert_non_null (f->c);
    return f;
}

static inline struct fixture *setup_cluster (const char *nodes, int f4_room)
{
    return setup_cluster_state (nodes, f4_room, NULL);
}

static inline void teardown_cluster (struct fixture *f)
{
    char path[512];
    DIR *d = opendir (f->dir);
    ccas_cluster_destroy (f->c);
    ccas_conf_destroy (f->cfg);
    for (struct dirent *de; d && (de = readdir (d));)
        if (de->d_name[0] != '.' || (de->d_name[1] && strcmp (de->d_name, "..") != 0)) {
            snprintf (path, sizeof (path), "%s/%s", f->dir, de->d_name);
            unlink (path);
        }
    if (d)
        closedir (d);
    assert_int_equal (rmdir (f->dir), 0);
    free (f);
}

/* Parse `request` against the fixture's cluster: the normalized arrays, and
 * in *refused (caller puts it) the entries refused; NULL with `err` when
 * the request is no list. */
static inline json_object *parse_all (struct fixture *f, const char *request, json_object **refused,
                                      struct ccas_error *err)
{
    json_object *doc = json_tokener_parse (request);
    assert_non_null (doc);
    json_object *out = ccas_request_parse (doc, "req.json", f->c, refused, err);
    json_object_put (doc);
    return out;
}

/* The same when every entry must be taken: NULL with `err` (the first
 * refusal's) when one is not. */
static inline json_object *parse (struct fixture *f, const char *request, struct ccas_error *err)
{
    json_object *refused = NULL;
    json_object *out = parse_all (f, request, &refused, err);
    if (out && json_object_array_length (refused) > 0) {
        snprintf (err->text, sizeof (err->text), "%s",
                  ccas_json_str (json_object_array_get_idx (refused, 0), "error"));
        json_object_put (out);
        out = NULL;
    }
    json_object_put (refused);
    return out;
}

#endif /* !CCAS_ENGINE_TEST_REQUEST_FIXTURE_H */
