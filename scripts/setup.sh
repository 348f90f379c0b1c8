#!/bin/bash
# Installs the Debian packages in debian-packages.txt that are missing,
# then configures (once) and builds. Safe to run again: it only does
# what is not done yet.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
while read -r pkg; do
	pkg=${pkg%%#*}
	pkg=$(echo "$pkg" | tr -d '[:space:]')
	[ -n "$pkg" ] || continue
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$pkg")
done <debian-packages.txt

if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}" >&2
	[ "$(id -u)" -eq 0 ] || { echo "setup: run as root to install packages" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure --quiet
make -j"$(nproc)" --quiet
