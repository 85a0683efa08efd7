/* SPDX-License-Identifier: MIT */
/* hooks.c: run the on-ready and on-terminate programs (posix_spawn, never a shell). */
#include "config.h"

#include <errno.h>
#include <signal.h>
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

static int spawn (const char *program, const struct sim_node *n, bool group)
{
    if (!program || !*program)
        return 0;
    size_t nenv = 0, base = 0;
    while (environ[base])
        base++;
    char **env = calloc (base + 8, sizeof (*env));
    if (!env)
        return 0;
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
    pid_t pid = 0;
    posix_spawnattr_t attr;
    posix_spawnattr_init (&attr);
    if (group) {
        posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup (&attr, 0);
    }
    int rc = posix_spawn (&pid, program, NULL, &attr, argv, env);
    posix_spawnattr_destroy (&attr);
    if (rc != 0) {
        fprintf (stderr, "ccsim: cannot run hook %s: %s\n", program, strerror (rc));
        pid = 0;
    }
    for (size_t i = 0; i < nenv; i++)
        free (env[i]);
    free (env);
    return (int)pid;
}

void sim_hook_run (const char *program, const struct sim_node *n)
{
    (void)spawn (program, n, false);
}

int sim_hook_start (const char *program, const struct sim_node *n)
{
    return spawn (program, n, true);
}

void sim_hook_kill (int pid)
{
    if (pid > 0)
        kill (-pid, SIGKILL);
}

/* An --on-boot program ended: its node is Ready next (exit 0), or Failed, as
 * CycleCloud marks a node whose cluster-init failed. */
static void boot_ended (int pid, int status)
{
    pthread_mutex_lock (&sim.lock);
    for (size_t i = 0; i < sim.nnodes; i++) {
        struct sim_node *n = sim.nodes[i];
        if (n->boot_pid != pid)
            continue;
        n->boot_pid = 0;
        if (n->phase != PH_PREPARING)
            break;
        if (WIFEXITED (status) && WEXITSTATUS (status) == 0) {
            n->held = false;
            n->next = sim_now ();
        } else {
            char msg[256];
            if (WIFEXITED (status))
                snprintf (msg, sizeof (msg),
                          "Software installation failure: cluster-init exited %d (ccsim --on-boot)",
                          WEXITSTATUS (status));
            else
                snprintf (msg, sizeof (msg),
                          "Software installation failure: cluster-init killed by signal %d",
                          WTERMSIG (status));
            sim_node_fail (n, msg);
        }
        sim.dirty = true;
        break;
    }
    pthread_mutex_unlock (&sim.lock);
}

void sim_hooks_reap (void)
{
    int status;
    pid_t pid;
    while ((pid = waitpid (-1, &status, WNOHANG)) > 0)
        boot_ended ((int)pid, status);
}
