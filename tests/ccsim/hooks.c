/* SPDX-License-Identifier: MIT */
/* hooks.c: run the on-ready and on-terminate programs (posix_spawn, never a shell). */
#include "config.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sim.h"

extern char **environ;

static void set_env (char **env, size_t *n, const char *key, const char *value)
{
    if (asprintf (&env[*n], "%s=%s", key, value ? value : "") >= 0)
        (*n)++;
}

void sim_hook_run (const char *program, const struct sim_node *n)
{
    if (!program || !*program)
        return;
    size_t nenv = 0, base = 0;
    while (environ[base])
        base++;
    char **env = calloc (base + 8, sizeof (*env));
    if (!env)
        return;
    for (size_t i = 0; i < base; i++)
        env[nenv++] = strdup (environ[i]);
    set_env (env, &nenv, "CCSIM_NODE_NAME", n->name);
    set_env (env, &nenv, "CCSIM_NODE_HOSTNAME", n->hostname);
    set_env (env, &nenv, "CCSIM_NODE_IP", n->ip);
    set_env (env, &nenv, "CCSIM_NODE_ID", n->id);
    set_env (env, &nenv, "CCSIM_NODEARRAY", n->bucket->na->name);
    set_env (env, &nenv, "CCSIM_MACHINE_TYPE", n->bucket->machine_type);
    set_env (env, &nenv, "CCSIM_PLACEMENT_GROUP", n->pg);
    char *argv[] = {(char *)program, n->name, n->hostname ? n->hostname : (char *)"",
                    n->ip ? n->ip : (char *)"", NULL};
    pid_t pid;
    int rc = posix_spawn (&pid, program, NULL, NULL, argv, env);
    if (rc != 0)
        fprintf (stderr, "ccsim: cannot run hook %s: %s\n", program, strerror (rc));
    for (size_t i = 0; i < nenv; i++)
        free (env[i]);
    free (env);
}

void sim_hooks_reap (void)
{
    int status;
    while (waitpid (-1, &status, WNOHANG) > 0)
        ;
}
