/* SPDX-License-Identifier: MIT */
/* sim_process.c: start and stop a real ccsim for the C tests. */
#include "config.h"

#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_process.h"

extern char **environ;

/* The port ccsim wrote once it listens; 0 when it has not within 5 s. */
static int wait_port (const char *portfile)
{
    int port = 0;
    for (int i = 0; i < 500 && !port; i++) {
        FILE *f = fopen (portfile, "r");
        if (!f || fscanf (f, "%d", &port) != 1)
            usleep (10000);
        if (f)
            fclose (f);
    }
    return port;
}

int sim_process_start (struct sim_process *s, const char *tag, const char *cluster)
{
    const char *ccsim = getenv ("CCSIM");
    char portfile[128];
    s->pid = 0;
    snprintf (s->dir, sizeof (s->dir), "/tmp/ccas-%s.XXXXXX", tag);
    if (!ccsim || !mkdtemp (s->dir))
        return -1;
    snprintf (portfile, sizeof (portfile), "%s/port", s->dir);
    char *argv[] = {(char *)ccsim, "--cluster", (char *)cluster, "--port-file", portfile, "--boot-delay",
                    "0",           NULL};
    if (posix_spawn (&s->pid, ccsim, NULL, NULL, argv, environ) != 0) {
        s->pid = 0;
        rmdir (s->dir);
        return -1;
    }
    int port = wait_port (portfile);
    if (!port) {
        sim_process_stop (s, NULL);
        return -1;
    }
    snprintf (s->url, sizeof (s->url), "http://127.0.0.1:%d", port);
    return 0;
}

void sim_process_stop (struct sim_process *s, const char *const *files)
{
    char path[128];
    if (s->pid > 0) {
        kill (s->pid, SIGTERM);
        waitpid (s->pid, NULL, 0);
        s->pid = 0;
    }
    snprintf (path, sizeof (path), "%s/port", s->dir);
    unlink (path);
    for (size_t i = 0; files && files[i]; i++) {
        snprintf (path, sizeof (path), "%s/%s", s->dir, files[i]);
        unlink (path);
    }
    rmdir (s->dir);
}
