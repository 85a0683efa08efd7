/* SPDX-License-Identifier: MIT */
/* driver.c: replay inputs through a fuzz target without libFuzzer.
 *
 *   fuzz_x [FILE|DIR]...   with no arguments: the target's seed corpus and
 *                          kept crash inputs, FUZZ_DIR/{corpus,regressions}/fuzz_x
 *
 * Prints one TAP line per input, so that a crash names the input that caused it.
 */
#include "config.h"

#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "util/file.h"
#include "util/json.h"

static int count;

static void replay_file (const char *path)
{
    struct ccas_error err = {""};
    size_t len = 0;
    char *data = ccas_file_read (path, 1 << 24, &len, &err);
    if (!data) {
        printf ("not ok %d - %s\n", ++count, err.text);
        exit (1);
    }
    fflush (stdout);
    LLVMFuzzerTestOneInput ((const uint8_t *)data, len);
    printf ("ok %d - %s\n", ++count, path);
    free (data);
}

static int by_name (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

static void replay (const char *path)
{
    struct stat st;
    if (stat (path, &st) < 0)
        return;
    if (!S_ISDIR (st.st_mode)) {
        replay_file (path);
        return;
    }
    DIR *d = opendir (path);
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir (d)))
        if (e->d_name[0] != '.') {
            char **v = realloc (names, (n + 1) * sizeof (*names));
            if (!v)
                abort ();
            names = v;
            size_t size = strlen (path) + strlen (e->d_name) + 2;
            names[n] = malloc (size);
            snprintf (names[n++], size, "%s/%s", path, e->d_name);
        }
    if (d)
        closedir (d);
    qsort (names, n, sizeof (*names), by_name);
    for (size_t i = 0; i < n; i++) {
        replay (names[i]);
        free (names[i]);
    }
    free (names);
}

int main (int argc, char **argv)
{
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            replay (argv[i]);
    } else {
        char dir[4096];
        const char *target = basename (argv[0]);
        snprintf (dir, sizeof (dir), "%s/corpus/%s", FUZZ_DIR, target);
        replay (dir);
        snprintf (dir, sizeof (dir), "%s/regressions/%s", FUZZ_DIR, target);
        replay (dir);
    }
    printf ("1..%d\n", count);
    return count > 0 ? 0 : 1;
}
