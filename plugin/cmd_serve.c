/* SPDX-License-Identifier: MIT */
/* cmd_serve.c: `ccautoscale serve` — the autostop endpoint nodes call — and `serve token`. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "autostop.h"
#include "builtins.h"
#include "model_load.h"
#include "serve.h"
#include "serve_auth.h"
#include "serve_decide.h"
#include "util/file.h"
#include "util/log.h"
#include "util/secret.h"

static const struct cmd_option serve_options[] = {
    {"--listen ADDR:PORT", "where to listen (default serve.listen, 0.0.0.0:9443); [ADDR]:PORT for IPv6"},
    {"--cert FILE", "PEM certificate for HTTPS (default serve.cert_file)"},
    {"--key FILE", "its PEM private key, mode 0600 (default serve.key_file)"},
    {"--plain-http", "allow plain HTTP on an address that is not loopback (serve.plain_http)"},
    {"--port-file FILE", "write the port listened on to FILE once listening (for port 0)"},
    {NULL, NULL},
};

const struct cmd_help help_serve = {
    .synopsis = "serve [--listen ADDR:PORT] [--cert FILE --key FILE] [--plain-http] | serve token ...",
    .summary = "the autostop endpoint: nodes ask over HTTPS to stop, and stop when demand allows",
    .description =
        "Runs until SIGTERM or SIGINT, answering (GET only; HEAD too for the last two):\n"
        "  /autostop?instance=ID  a node asks to stop (also ?node=NAME): the decision of\n"
        "                         'ccautoscale autostop', under the same lock\n"
        "  /healthz               200 {\"status\": \"ok\", ...} while it runs\n"
        "  /metrics               Prometheus text: metrics.file, then the service's own\n"
        "                         (ccautoscale_serve_requests_total, _autostop_total,\n"
        "                         _autostop_seconds, _status_reads_total, _connections)\n"
        "\n"
        "An autostop is answered 200 {\"stopped\": true, \"reason\": ...} when the node was\n"
        "terminated (or was already going), 409 {\"stopped\": false, \"reason\": ...} when demand\n"
        "or a target still needs it: keep running and ask again later.  403 when the caller is not\n"
        "that node, 404 for a node this cluster does not have, 400 for a query that is not one\n"
        "instance or node (missing, repeated, malformed), 405 for another method, 414 for a URL\n"
        "over 8 KiB, 502 when CycleCloud did not terminate a node it may stop, 503 (with\n"
        "Retry-After) when the lock is busy or CycleCloud cannot be read.  Every body is JSON\n"
        "with \"stopped\" and \"reason\"; nothing is stopped on any 4xx.\n"
        "\n"
        "Only a node may stop itself: the request must come from the node's private address as\n"
        "CycleCloud reports it, or carry its token, 'Authorization: Bearer TOKEN'.  A token is\n"
        "good for one node (its NodeId) of this cluster; 'ccautoscale serve token --node NAME'\n"
        "prints it, to be put on the node when it joins (e.g. /etc/ccautoscale/autostop.token,\n"
        "mode 0600).  It is made from serve.token_key_file (state_dir/serve-token.key, made at\n"
        "first use, mode 0600); remove that file to revoke every token.  serve.auth \"token\"\n"
        "accepts tokens only (behind a proxy or NAT, where addresses prove nothing).\n"
        "\n"
        "HTTPS with --cert and --key (or serve.cert_file and serve.key_file); plain HTTP only on a\n"
        "loopback address unless --plain-http.  Each decision reads the cluster's status once, or\n"
        "uses the one read less than serve.status_max_age seconds ago (a granted stop drops it).\n"
        "\n"
        "On a CycleCloud cluster, publish the URL as cyclecloud.cluster.autoscale.stop_callback\n"
        "(https://SCHEDULER:9443/autostop); a node's idle script calls it with its\n"
        "cyclecloud.instance.id, as the sample autostop-idle script installed with the examples\n"
        "does.  The systemd unit ccautoscale-serve.service runs this command.",
    .options = serve_options,
    .examples =
        "$ ccautoscale serve --listen 0.0.0.0:9443 --cert /etc/ccautoscale/serve.pem --key "
        "/etc/ccautoscale/serve.key\n"
        "$ curl -sS --cacert ca.pem 'https://scheduler:9443/autostop?instance=/subscriptions/.../vm-3'\n"
        "{\"stopped\":false,\"node\":\"htc-3\",\"decision\":\"refused\",\"reason\":\"array 'htc' of request "
        "set 'standard' wants 4 nodes and has 4\",...}",
    .see_also = "ccautoscale-serve-token(8), ccautoscale-autostop(8), ccautoscale-autoscale-update(8)",
};

static const struct cmd_option token_options[] = {
    {"--node NAME", "the node, by its CycleCloud name or hostname"},
    {"--instance ID", "the node, by its cyclecloud.instance.id (InstanceId) or NodeId"},
    {NULL, NULL},
};

const struct cmd_help help_serve_token = {
    .synopsis = "serve token (--node NAME | --instance ID)",
    .summary = "print the token a node shows 'ccautoscale serve' to stop itself",
    .description =
        "Prints the node's token on standard output: HMAC-SHA256 of the cluster's name and the\n"
        "node's NodeId, keyed with serve.token_key_file (made, mode 0600, when missing).  The node\n"
        "sends it as 'Authorization: Bearer TOKEN' when it asks to stop; it stops that node only,\n"
        "and none made later under the same name.  Give it to the node when it joins, over a\n"
        "channel only root on the node can read (e.g. ssh into /etc/ccautoscale/autostop.token,\n"
        "mode 0600), never on a command line.  With --json: {\"node\", \"node_id\", \"token\"}.",
    .options = token_options,
    .examples = "$ ccautoscale serve token --node htc-3 | ssh root@htc-3 'umask 077; cat "
                ">/etc/ccautoscale/autostop.token'",
    .see_also = "ccautoscale-serve(8)",
};

/* serve.token_key_file, else state_dir/serve-token.key */
static const char *key_path (const struct ccas_config *cfg, char *buf, size_t size)
{
    if (cfg->serve.token_key_file)
        return cfg->serve.token_key_file;
    snprintf (buf, size, "%s/serve-token.key", cfg->state_dir);
    return buf;
}

int cmd_serve_token (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"node", required_argument, NULL, 0x741},
        {"instance", required_argument, NULL, 0x742},
        {NULL, 0, NULL, 0},
    };
    struct model_source src = {.with_nodes = true};
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct serve_auth_key key;
    const char *name = NULL, *instance = NULL;
    char path[4200], token[SERVE_AUTH_TOKEN_CHARS + 1] = "";
    int rc, opt;

    while ((opt = cli_getopt (cli, argc, argv, "", longopts)) != -1) {
        if (opt == 0x741)
            name = optarg;
        else if (opt == 0x742)
            instance = optarg;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (!name == !instance)
        return cli_usage_error (cli, "give the node: --node NAME or --instance ID");
    if ((rc = cli_prepare (cli)) != EXIT_OK || (rc = model_load (cli, &src, &c)) != EXIT_OK)
        goto done;
    struct ccas_node *n = autostop_find_cli (cli, c, name, instance, &rc);
    if (!n)
        goto done;
    if (serve_auth_key_load (key_path (cli->cfg, path, sizeof (path)), true, &key, &err) < 0 ||
        serve_auth_token (&key, cli->cfg->cluster_name, n->node_id, token, &err) < 0) {
        ccas_secret_burn (&key, sizeof (key));
        rc = cli_fail (cli, EXIT_CONFIG, "%s: %s", n->name, err.text);
        goto done;
    }
    ccas_secret_burn (&key, sizeof (key));
    if (cli->json) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "node", json_object_new_string (n->name));
        json_object_object_add (o, "node_id", json_object_new_string (n->node_id));
        json_object_object_add (o, "token", json_object_new_string (token));
        cli_print_json (o);
        json_object_put (o);
    } else
        printf ("%s\n", token);
    ccas_secret_burn (token, sizeof (token));
done:
    ccas_cluster_destroy (c);
    return rc;
}

static int write_port_file (struct cli *cli, const char *path, int port)
{
    struct ccas_error err = {""};
    char text[32];
    int len = snprintf (text, sizeof (text), "%d\n", port);
    if (ccas_file_write_atomic (path, text, (size_t)len, 0644, &err) < 0)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    return EXIT_OK;
}

/* Run until SIGTERM or SIGINT: blocked here, before the service's threads
 * start (they inherit the mask), and taken by sigwait. */
static int run (struct cli *cli, const struct serve_options *o, const char *port_file, const sigset_t *stop,
                const struct serve_auth_key *key)
{
    struct ccas_error err = {""};
    struct serve_decide *decide = serve_decide_create (cli, key);
    struct serve *s = NULL;
    int rc = EXIT_OK, sig = 0;
    if (!decide)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    if (!(s = serve_start (cli, o, decide, &err))) {
        rc = cli_fail (cli, EXIT_CONFIG, "%s", err.text);
        goto done;
    }
    if (port_file && (rc = write_port_file (cli, port_file, serve_port (s))) != EXIT_OK)
        goto done;
    ccas_log (LOG_NOTICE, "serve: cluster '%s': listening on %s://%s (port %d)", cli->cfg->cluster_name,
              serve_scheme (s), o->listen, serve_port (s));
    while (sigwait (stop, &sig) != 0)
        ;
    ccas_log (LOG_NOTICE, "serve: stopping on signal %d", sig);
done:
    serve_stop (s);
    serve_decide_destroy (decide);
    return rc;
}

int cmd_serve (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 0x731},    {"cert", required_argument, NULL, 0x732},
        {"key", required_argument, NULL, 0x733},       {"plain-http", no_argument, NULL, 0x734},
        {"port-file", required_argument, NULL, 0x735}, {NULL, 0, NULL, 0},
    };
    struct ccas_error err = {""};
    struct serve_options o = {0};
    struct serve_auth_key key;
    const char *port_file = NULL, *listen = NULL, *cert = NULL, *keyfile = NULL;
    bool plain = false;
    char path[4200], hex[2 * SERVE_AUTH_KEY_BYTES + 1];
    sigset_t stop;
    int rc, opt;

    while ((opt = cli_getopt (cli, argc, argv, "", longopts)) != -1) {
        if (opt == 0x731)
            listen = optarg;
        else if (opt == 0x732)
            cert = optarg;
        else if (opt == 0x733)
            keyfile = optarg;
        else if (opt == 0x734)
            plain = true;
        else if (opt == 0x735)
            port_file = optarg;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (!cert != !keyfile)
        return cli_usage_error (cli, "--cert and --key go together");
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    o.listen = listen ? listen : cli->cfg->serve.listen;
    o.cert_file = cert ? cert : cli->cfg->serve.cert_file;
    o.key_file = cert ? keyfile : cli->cfg->serve.key_file;
    o.plain_http = plain || cli->cfg->serve.plain_http;
    if (serve_auth_key_load (key_path (cli->cfg, path, sizeof (path)), true, &key, &err) < 0)
        return cli_fail (cli, EXIT_CONFIG, "%s", err.text);
    /* the key never reaches a log, even if some message quoted it */
    for (size_t i = 0; i < SERVE_AUTH_KEY_BYTES; i++)
        snprintf (hex + 2 * i, 3, "%02x", key.bytes[i]);
    ccas_log_add_secret (hex);
    ccas_secret_burn (hex, sizeof (hex));
    sigemptyset (&stop);
    sigaddset (&stop, SIGTERM);
    sigaddset (&stop, SIGINT);
    pthread_sigmask (SIG_BLOCK, &stop, NULL);
    signal (SIGPIPE, SIG_IGN);
    rc = run (cli, &o, port_file, &stop, &key);
    ccas_secret_burn (&key, sizeof (key));
    return rc;
}
