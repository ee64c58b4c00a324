#!/bin/sh
# Install the Debian packages hloproof builds with, when a header is missing.
# As root: apt-get install; otherwise print the exact command and fail.
missing=""
[ -f /usr/include/z3.h ] || missing="yes"
[ -f /usr/include/libxml2/libxml/parser.h ] || missing="yes"
[ -f /usr/include/cmocka.h ] || missing="yes"
[ -f /usr/include/jansson.h ] || missing="yes"
command -v pkg-config >/dev/null 2>&1 || missing="yes"
command -v z3 >/dev/null 2>&1 || missing="yes"
command -v xmllint >/dev/null 2>&1 || missing="yes"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing $*" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 && apt-get install -y -qq "$@" >&2 || {
		echo "deps: apt-get install $* failed" >&2; exit 1; }
else
	echo "deps: missing build dependencies; run:" >&2
	echo "  sudo apt-get install -y $*" >&2
	exit 1
fi
