#!/bin/sh
# SPDX-License-Identifier: MIT
# TLS: ccsim serves a self-signed certificate.  Refused by default with a clear
# message; accepted with ca_file; accepted with verify_certificates: false only
# with a warning logged; a certificate for another name is refused even with ca_file.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")

command -v openssl >/dev/null 2>&1 || test_skip_all "openssl is not installed"

selfsigned () { # NAME SAN: NAME.key and NAME.pem, valid for SAN only
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=ccsim" \
        -addext "subjectAltName=$2" -keyout "$1.key" -out "$1.pem" 2>/dev/null
}

test_expect_success 'start ccsim over HTTPS with a self-signed certificate for 127.0.0.1' '
    selfsigned ccsim "IP:127.0.0.1,DNS:localhost" &&
    ccsim_start "$CCSIM_CLUSTERS/small.json" --tls-cert ccsim.pem --tls-key ccsim.key &&
    case $CCSIM_URL in https://*) ;; *) false ;; esac
'

test_expect_success 'by default the certificate is refused, and the message says what to do' '
    ccsim_write_config default.json &&
    test_expect_code 3 "$CCAS" -c default.json status >out 2>err &&
    test_grep "TLS" err &&
    test_grep "ca_file" err &&
    test_grep "local state only" out && test_no_grep "ready" out
'

test_expect_success 'with ca_file naming the certificate it is accepted, without a warning' '
    ccsim_write_config ca.json ".ca_file = \"$TEST_TMP/ccsim.pem\"" &&
    "$CCAS" -c ca.json buckets >out 2>err &&
    test_grep "Standard_F2s_v2" out &&
    test_no_grep "verification is off" ccautoscale.log
'

test_expect_success 'verify_certificates: false is accepted, with a warning in the log and on stderr' '
    ccsim_write_config insecure.json ".verify_certificates = false" &&
    "$CCAS" -c insecure.json buckets >out 2>err &&
    test_grep "Standard_F2s_v2" out &&
    test_grep "verification is off" ccautoscale.log &&
    test_grep "verification is off" err
'

test_expect_success 'the warning is logged even when logging.level asks for errors only' '
    : >ccautoscale.log &&
    ccsim_write_config quiet.json ".verify_certificates = false | .logging.level = \"error\"" &&
    "$CCAS" -c quiet.json -q buckets >out 2>err &&
    test_grep "Standard_F2s_v2" out &&
    test_grep "warning: TLS certificate verification is off" ccautoscale.log
'

test_expect_success 'a certificate for another name is refused even with ca_file' '
    kill_pid "$CCSIM_PID" &&
    selfsigned other "DNS:other.example.com" &&
    ccsim_start "$CCSIM_CLUSTERS/small.json" --tls-cert other.pem --tls-key other.key &&
    ccsim_write_config other.json ".ca_file = \"$TEST_TMP/other.pem\"" &&
    test_expect_code 3 "$CCAS" -c other.json status 2>err &&
    test_grep "TLS" err
'

test_expect_success 'a ca_file that does not exist is named in the error' '
    ccsim_write_config missing.json ".ca_file = \"$TEST_TMP/nonexistent.pem\"" &&
    ! "$CCAS" -c missing.json status 2>err &&
    test_grep "ca_file .*nonexistent.pem. cannot be used" err
'

test_done
