/* SPDX-License-Identifier: MIT */
/* benchrun: run a command (no shell) with stdout to /dev/null unless -o, and
 * print what it cost as one JSON object: wall and CPU milliseconds and peak
 * RSS, as the kernel accounts them for the child (wait4).
 *   benchrun [-o FILE] -- PROGRAM [ARGS...] */
#include "config.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double ms_of (struct timeval tv)
{
    return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

int main (int argc, char **argv)
{
    const char *out = "/dev/null";
    int i = 1;
    if (i + 1 < argc && strcmp (argv[i], "-o") == 0) {
        out = argv[i + 1];
        i += 2;
    }
    if (i < argc && strcmp (argv[i], "--") == 0)
        i++;
    if (i >= argc) {
        fprintf (stderr, "usage: benchrun [-o FILE] -- PROGRAM [ARGS...]\n");
        return 2;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init (&fa);
    posix_spawn_file_actions_addopen (&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    struct timespec t0, t1;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    pid_t pid;
    int rc = posix_spawnp (&pid, argv[i], &fa, NULL, argv + i, environ);
    posix_spawn_file_actions_destroy (&fa);
    if (rc != 0) {
        fprintf (stderr, "benchrun: %s: %s\n", argv[i], strerror (rc));
        return 2;
    }
    int status;
    struct rusage ru;
    if (wait4 (pid, &status, 0, &ru) < 0) {
        perror ("benchrun: wait4");
        return 2;
    }
    clock_gettime (CLOCK_MONOTONIC, &t1);
    double wall = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    int code = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
    printf ("{\"wall_ms\": %.1f, \"cpu_ms\": %.1f, \"user_ms\": %.1f, \"sys_ms\": %.1f, \"maxrss_kb\": %ld, "
            "\"exit\": %d}\n",
            wall, ms_of (ru.ru_utime) + ms_of (ru.ru_stime), ms_of (ru.ru_utime), ms_of (ru.ru_stime),
            ru.ru_maxrss, code);
    return 0;
}
