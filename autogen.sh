#!/bin/sh
# SPDX-License-Identifier: MIT
# autogen.sh: make ./configure from a git checkout.
set -e
cd "$(dirname "$0")"
autoreconf --install --force --warnings=all
