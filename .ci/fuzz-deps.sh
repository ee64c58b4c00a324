#!/bin/sh
# Install clang and libFuzzer's runtime for `make fuzz`, when missing (as .ci/deps.sh does
# for the build dependencies). As root: apt-get install; otherwise print the command and fail.
pkgs="clang libclang-rt-14-dev"
have_rt() {
	for d in /usr/lib/llvm-*/lib/clang/*/lib/linux; do
		[ -f "$d/libclang_rt.fuzzer-x86_64.a" ] || [ -f "$d/libclang_rt.fuzzer-aarch64.a" ] && return 0
	done
	return 1
}
command -v clang >/dev/null 2>&1 && have_rt && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "fuzz-deps: installing $pkgs" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 && apt-get install -y -qq $pkgs >&2 || {
		echo "fuzz-deps: apt-get install $pkgs failed" >&2; exit 1; }
else
	echo "fuzz-deps: clang and libFuzzer are missing; run:" >&2
	echo "  sudo apt-get install -y $pkgs" >&2
	exit 1
fi
