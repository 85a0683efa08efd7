/* SPDX-License-Identifier: MIT */
/* power_main.c: main() of ccautoscale-resume, -suspend and -resume-fail (one source, built three ways). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccapi/failure.h"
#include "power.h"
#include "resume_file.h"
#include "util/log.h"

#if !defined(POWER_RESUME) && !defined(POWER_SUSPEND) && !defined(POWER_RESUME_FAIL)
#error "build with -DPOWER_RESUME, -DPOWER_SUSPEND or -DPOWER_RESUME_FAIL"
#endif

#if defined(POWER_RESUME)
#define PROG "ccautoscale-resume"
#define ROLE "ResumeProgram: create or start the VMs behind Slurm nodes being powered up"
#elif defined(POWER_SUSPEND)
#define PROG "ccautoscale-suspend"
#define ROLE "SuspendProgram: shut down (or terminate, or deallocate) the VMs behind Slurm nodes"
#else
#define PROG "ccautoscale-resume-fail"
#define ROLE "ResumeFailProgram: release VMs that never registered and return their nodes to the pool"
#endif

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_CONFIG = 2, EXIT_CYCLECLOUD = 3, EXIT_PARTIAL = 4, EXIT_BUSY = 6 };

static void usage (FILE *f)
{
    fprintf (f, "usage: " PROG " [-c FILE] [--dry-run] [-v] HOSTLIST\n\n" PROG " - " ROLE ".\n\n"
                "slurmctld runs it with one argument, a hostlist expression (hpc-[1-4,7]).\n"
                "It returns within a second and never waits for a VM to boot.\n\n"
                "Options:\n"
                "  -c, --config FILE   configuration (default: $CCAUTOSCALE_CONFIG, else ccautoscale.json\n"
                "                      beside $SLURM_CONF, else " CCAS_DEFAULT_CONFIG ")\n"
                "  -n, --dry-run       print what would be done; change nothing (no lock taken)\n"
                "  -v, --verbose       log to stderr too\n"
                "  -h, --help          this help\n"
                "  --version           print the version\n\n"
                "Exit status: 0 done; 1 usage; 2 configuration; 3 CycleCloud unreachable or refused;\n"
                "4 done in part (see the log; nodes not served were handed back with a reason); 6 busy.\n"
                "Logs go to syslog (and logging.file).  See " PROG "(8).\n");
}

static int parse (int argc, char **argv, struct ccas_power_opts *o, const char **hostlist)
{
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'}, {"dry-run", no_argument, NULL, 'n'},
        {"verbose", no_argument, NULL, 'v'},      {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long (argc, argv, "c:nvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            o->config_path = optarg;
            break;
        case 'n':
            o->dry_run = true;
            break;
        case 'v':
            o->verbosity++;
            break;
        case 'h':
            usage (stdout);
            exit (EXIT_OK);
        case 'V': {
            char slurm[512];
            printf ("%s %s\nSlurm: built against %s\n", PROG, PACKAGE_VERSION,
                    ccas_slurm_describe (slurm, sizeof (slurm)));
            exit (EXIT_OK);
        }
        default:
            usage (stderr);
            return EXIT_USAGE;
        }
    }
    if (optind + 1 != argc) {
        fprintf (stderr, PROG ": expected exactly one hostlist argument\n");
        usage (stderr);
        return EXIT_USAGE;
    }
    *hostlist = argv[optind];
    return EXIT_OK;
}

/* What slurmctld started us with (slurmscriptd gives SLURM_CONF, and to
 * ResumeProgram SLURM_RESUME_FILE, but no PATH or HOME; the working
 * directory is slurmctld's), for whoever debugs a run. */
static void log_environment (void)
{
    static const char *const vars[] = {"SLURM_CONF", "SLURM_RESUME_FILE", "PATH", "HOME", "USER"};
    char text[1024] = "", cwd[512];
    size_t len = 0;
    for (size_t i = 0; i < sizeof (vars) / sizeof (vars[0]) && len < sizeof (text); i++) {
        const char *v = getenv (vars[i]);
        len += (size_t)snprintf (text + len, sizeof (text) - len, "%s%s%s%s", i ? ", " : "", vars[i],
                                 v ? "=" : " unset", v ? v : "");
    }
    ccas_log (LOG_DEBUG, "environment: %s; working directory %s", text,
              getcwd (cwd, sizeof (cwd)) ? cwd : "unknown");
}

static int open_failed (char **names, size_t n, const struct ccas_resume_file *rf,
                        const struct ccas_error *err)
{
    int code = errno == EWOULDBLOCK ? EXIT_BUSY : EXIT_CONFIG;
    /* busy, or shared storage briefly gone: the same names may be resumed again soon */
    bool transient = code == EXIT_BUSY || ccas_power_storage_error (errno);
    fprintf (stderr, PROG ": %s\n", err->text);
#if defined(POWER_RESUME)
    {
        char reason[600];
        ccas_failure_reason (transient ? CCAS_CLASS_TRANSIENT : CCAS_CLASS_PERMANENT, err->text, reason,
                             sizeof (reason));
        ccas_power_handback_all (PROG, names, n, rf, reason);
    }
#else
    (void)names;
    (void)n;
    (void)rf;
    (void)transient;
#endif
    return code;
}

static int load_failed (struct ccas_power *p, char **names, size_t n, const struct ccas_error *err)
{
    ccas_log (LOG_ERR, "%s", err->text);
#if defined(POWER_RESUME)
    char reason[600], msg[560];
    const struct ccas_http_failure *f = ccas_ccapi_last_failure (p->api);
    if (f->kind == CCAS_FAIL_TRANSPORT)
        snprintf (msg, sizeof (msg), "CycleCloud unreachable: %s", f->message);
    else
        snprintf (msg, sizeof (msg), "%s", err->text);
    ccas_failure_reason (f->kind == CCAS_FAIL_NONE ? CCAS_CLASS_TRANSIENT : ccas_failure_classify_request (f),
                         msg, reason, sizeof (reason));
    for (size_t i = 0; i < n; i++)
        ccas_power_handback (p, names[i], reason);
#elif defined(POWER_RESUME_FAIL)
    /* without CycleCloud the VMs cannot be released, but the nodes can go back */
    ccas_power_update (p, (const char *const *)names, n, CCAS_SLURM_RESUME, NULL);
#else
    (void)names;
    (void)n;
#endif
    return EXIT_CYCLECLOUD;
}

int main (int argc, char **argv)
{
    struct ccas_power_opts o = {NULL, false, 0};
    struct ccas_error err = {""};
    struct ccas_power p;
    struct ccas_resume_file *rf = NULL;
    const char *hostlist = NULL;
    char **names = NULL;
    size_t n = 0;
    int rc;

    if ((rc = parse (argc, argv, &o, &hostlist)) != EXIT_OK)
        return rc;
#if defined(POWER_RESUME)
    /* first: the file is slurmctld's descriptor and goes away with us */
    struct ccas_error rferr = {""};
    rf = ccas_resume_file_read (&rferr);
#endif
    ccas_slurm_init (&err);
    if (!(names = ccas_slurm_hostlist_expand (hostlist, &n, &err))) {
        fprintf (stderr, PROG ": %s\n", err.text);
        ccas_resume_file_destroy (rf);
        return EXIT_USAGE;
    }
    if (ccas_power_open (&p, PROG, &o, &err) < 0) {
        rc = open_failed (names, n, rf, &err);
        ccas_power_close (&p);
        goto done;
    }
    ccas_log (LOG_INFO, "%s %s", PROG, hostlist);
    log_environment ();
#if defined(POWER_RESUME)
    if (rf)
        ccas_log (LOG_DEBUG, "SLURM_RESUME_FILE (%zu bytes): %s%s", rf->len, rf->head,
                  rf->len >= sizeof (rf->head) ? "..." : "");
    if (!rf && getenv ("SLURM_RESUME_FILE"))
        ccas_log (LOG_WARNING,
                  "%s; every name is resumed, with no job ids: placement groups from the hostlist alone",
                  rferr.text);
    char *outside = ccas_resume_file_outside (rf, names, n);
    if (outside)
        ccas_log (
            LOG_WARNING,
            "SLURM_RESUME_FILE names %s, which the hostlist does not: only the hostlist's names are resumed",
            outside);
    free (outside);
#endif
    p.rf = rf; /* hand-backs name their jobs, even when CycleCloud cannot be read */
    if (ccas_power_load (&p, true, &err) < 0)
        rc = load_failed (&p, names, n, &err);
    else {
#if defined(POWER_RESUME)
        rc = ccas_power_resume (&p, names, n, rf) < 0 ? EXIT_PARTIAL : EXIT_OK;
#elif defined(POWER_SUSPEND)
        rc = ccas_power_suspend (&p, names, n) < 0 ? EXIT_PARTIAL : EXIT_OK;
#else
        rc = ccas_power_resume_fail (&p, names, n) < 0 ? EXIT_PARTIAL : EXIT_OK;
#endif
    }
    ccas_power_close (&p);
done:
    ccas_slurm_names_free (names, n);
    ccas_resume_file_destroy (rf);
    return rc;
}
