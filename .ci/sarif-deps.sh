#!/bin/sh
# Install Microsoft's SARIF Multitool (npm, pinned) into a project-local,
# uncommitted directory, when it is not there yet; print the path of the
# Linux binary. tests/ci-outputs.sh runs it directly: the npm wrapper
# script does not quote its arguments, so "--rule-kind Sarif;Gh" breaks.
# Usage: sh .ci/sarif-deps.sh [DIR]   (DIR defaults to build/node)
VERSION=5.7.0
DIR=${1:-build/node}
BIN="$DIR/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [ ! -x "$BIN" ]; then
	command -v npm >/dev/null 2>&1 || { echo "sarif-deps: npm is missing (apt-get install npm)" >&2; exit 1; }
	mkdir -p "$DIR" || exit 1
	echo "sarif-deps: installing @microsoft/sarif-multitool@$VERSION into $DIR" >&2
	npm install --prefix "$DIR" --no-save --no-audit --no-fund --loglevel=error \
		"@microsoft/sarif-multitool@$VERSION" "@microsoft/sarif-multitool-linux@$VERSION" >&2 || {
		echo "sarif-deps: npm install failed" >&2; exit 1; }
	[ -x "$BIN" ] || chmod +x "$BIN" 2>/dev/null
	[ -x "$BIN" ] || { echo "sarif-deps: no $BIN after the install" >&2; exit 1; }
fi
echo "$BIN"
