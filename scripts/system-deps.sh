#!/usr/bin/env bash
# Installs the system tools the test suite uses when they are missing: poppler-utils (pdftotext, pdftoppm,
# pdfinfo) to read back generated PDFs the way a person would, qpdf to make encrypted fixture PDFs,
# redis-server for the store that several server processes share, postgresql (initdb, postgres) for the Postgres
# store's tests, and chromium for the checkout page's browser test.
set -euo pipefail
missing=()
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v qpdf >/dev/null 2>&1 || missing+=(qpdf)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v initdb >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "Installing ${missing[*]} from Debian's packages" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then
  sudo apt-get update -qq >/dev/null
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "The tests need: ${missing[*]} (Debian/Ubuntu package names). Install them and run the tests again." >&2
  exit 1
fi
