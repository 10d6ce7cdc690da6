#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages (debian/): dpkg-buildpackage -us -uc -b builds them
# from a copy of the tree (the files git knows, as they are now, built
# nowhere near the tree's own build folders); lintian finds no error; the
# symbols file matches the version script (dh_makeshlibs -c4 fails the build
# otherwise).  Installed, they work from the installed files alone: doctor
# --json, run --stats -- cat of a file, a C program built with pkg-config
# that streams a file and checks its bytes, man pages, bash completion,
# `import pagecliff` reading the file's bytes with Debian's python3.
# The guard's unit is installed, neither enabled nor started, with its links
# recorded for purge; `systemctl enable` links it, removing pagecliff stops
# a running guard (under systemd for real, otherwise the prerm's own code run
# with systemd's tools stubbed), and purge takes the link away.
# Purged, they leave nothing behind: no file that was not there before.
# Packages are purged on any failure or signal.
set -u
src=${PAGECLIFF_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/../harness.sh"

needs_root "to install packages"
for t in dpkg-buildpackage dh lintian git cc pkg-config man; do
	command -v $t >/dev/null || skip "$t is missing (./setup.sh test installs it)"
done
pkgs=(libpagecliff0 libpagecliff-dev pagecliff pagecliff-mpi python3-pagecliff)
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^.[^n]' &&
		skip "$p is installed already; this test installs and purges its own"
done

unit=pagecliff-guard.service
unitfile=/usr/lib/systemd/system/$unit
wants=/etc/systemd/system/multi-user.target.wants
link=$wants/$unit
dsh=/var/lib/systemd/deb-systemd-helper-enabled/$unit.dsh-also
[ -L "$link" ] && skip "$link is there already (left by an earlier install?); remove it to run this test"
[ -e "$dsh" ] && skip "$dsh is there already (left by an earlier install?); remove it to run this test"
[ -d "$wants" ]; had_wants=$?

make_tmpdir tmp /tmp
installed=0
enabled=0
cleanup() {
	[ $installed = 1 ] && dpkg --purge "${pkgs[@]}" >/dev/null 2>&1
	# what the test's own `systemctl enable` made, should purge have left it
	[ $enabled = 1 ] && { rm -f "$link" "$dsh"; [ $had_wants = 0 ] || rmdir "$wants" 2>/dev/null; }
	rm -rf "$tmp"
}
at_exit cleanup

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version) || fail "no version in debian/changelog"
tree=$tmp/pagecliff-$version
mkdir "$tree" || exit 1
# git's files as they are in the worktree, deleted ones left out: a dirty
# worktree builds what it has, a clean clone what it holds
(cd "$src" && git ls-files -z -c -o --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf -) | tar -C "$tree" -xf - || fail "cannot copy the tree"

# phase NAME: its name and the seconds since the test began
phase() { echo "== $1 (at $SECONDS s)"; }

phase "dpkg-buildpackage -us -uc -b"
# no -dbgsym packages: nothing here uses them, and they double strip's and lintian's work
(cd "$tree" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
	>"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log"; fail "dpkg-buildpackage failed"; }
changes=$(ls "$tmp"/*.changes)
for p in "${pkgs[@]}"; do
	[ -f "$tmp/${p}_${version}_$(dpkg --print-architecture).deb" ] || fail "no package $p"
done
grep -q "dh_makeshlibs -- -c4" "$tmp/build.log" || fail "the symbols were not checked"

phase lintian
lintian --fail-on error "$changes" >"$tmp/lintian.log" 2>&1 || {
	cat "$tmp/lintian.log"; fail "lintian found errors"; }
grep -v "running with root" "$tmp/lintian.log"

# pagecliff-mpi alone pulls no MPI into plain installs: pagecliff does not need it
dpkg-deb -f "$tmp"/pagecliff_*.deb Depends >"$tmp/depends" || fail "no Depends in pagecliff"
grep -qi mpi "$tmp/depends" && fail "pagecliff depends on MPI: $(cat "$tmp/depends")"
dpkg-deb -c "$tmp"/pagecliff_*.deb >"$tmp/contents" || fail "cannot list pagecliff"
grep -q "usr/lib/.*/pagecliff/libpagecliff-preload.so" "$tmp/contents" ||
	fail "the shim is not in pagecliff"

# What the packages hold that is not on the machine yet: all of it must go.
debs=()
for p in "${pkgs[@]}"; do debs+=("$tmp/${p}_${version}_$(dpkg --print-architecture).deb"); done
for d in "${debs[@]}"; do dpkg-deb --fsys-tarfile "$d" | tar -t; done |
	sed 's|^\./|/|; s|/$||' | grep -v '^\.\?$' | sort -u |
	while read -r f; do [ -e "$f" ] || [ -L "$f" ] || echo "$f"; done >"$tmp/new-paths"
[ -s "$tmp/new-paths" ] || fail "the packages add nothing new?"

phase install
installed=1
dpkg -i "${debs[@]}" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "dpkg -i failed"; }

# From here on, only what the packages installed: a plain PATH, no tree.
work=$tmp/work
mkdir "$work" && cd "$work" || exit 1
run() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work" LANG=C.UTF-8 "$@"; }
[ "$(run sh -c 'command -v pagecliff')" = /usr/bin/pagecliff ] || fail "pagecliff is not /usr/bin/pagecliff"

run pagecliff doctor --json >doctor.json 2>doctor.err
rc=$?
[ $rc -le 1 ] || fail "doctor --json: exit $rc: $(cat doctor.err)"
python3 -c 'import json, sys; d = json.load(open("doctor.json")); sys.exit(0 if isinstance(d, dict) and d else 1)' ||
	fail "doctor --json is not a JSON object: $(head -c 300 doctor.json)"

head -c $((24 << 20)) /dev/urandom >data || exit 1
run pagecliff run --stats --min-size 1m -- cat data >out 2>stats || fail "run --stats -- cat: exit $?: $(cat stats)"
cmp -s data out || fail "run -- cat changed the bytes"
grep -q "^pagecliff: data: $((24 << 20)) bytes read" stats ||
	fail "run --stats did not count the $((24 << 20)) bytes of data: $(cat stats)"

cat >stream.c <<'EOF'
/* Stream a file with libpagecliff; print its bytes and a checksum. */
#include <pagecliff.h>
#include <stdio.h>
#include <stdint.h>

int main(int argc, char **argv)
{
	struct pc_stream *s;
	struct pc_opts o;
	const void *p;
	uint64_t sum = 1469598103934665603ull, total = 0;
	ssize_t n;

	pc_opts_init(&o);
	if (argc != 2 || pc_stream_open(&s, argv[1], &o))
		return 2;
	while ((n = pc_stream_next(s, &p)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			sum = (sum ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
		total += (uint64_t)n;
	}
	pc_stream_close(s);
	if (n < 0)
		return 3;
	printf("%llu %016llx\n", (unsigned long long)total, (unsigned long long)sum);
	return 0;
}
EOF
# shellcheck disable=SC2046
run cc -o stream stream.c $(run pkg-config --cflags --libs pagecliff) 2>cc.err ||
	fail "cannot build against the installed library: $(cat cc.err)"
run ldd ./stream >ldd.txt || fail "ldd stream: exit $?"
grep -Eq "libpagecliff.so.0 => (/usr)?/lib/" ldd.txt ||
	fail "stream does not link the installed libpagecliff.so.0: $(cat ldd.txt)"
want=$(python3 -c '
import sys
h = 1469598103934665603
d = open("data", "rb").read()
for b in d:
    h = ((h ^ b) * 1099511628211) & 0xffffffffffffffff
print("%d %016x" % (len(d), h))')
got=$(run ./stream data) || fail "stream: exit $?"
[ "$got" = "$want" ] || fail "stream read '$got', the file is '$want'"

run sh -c 'MANWIDTH=80 man pagecliff-bench 2>&1' >man.txt || fail "man pagecliff-bench: exit $?"
grep -q "PAGECLIFF-BENCH" man.txt && grep -q "SYNOPSIS" man.txt || fail "man pagecliff-bench: $(head -5 man.txt)"
# (-l: the page itself, not a page man-db cached from an earlier install of
# the same version: dpkg gives both the changelog's date)
run sh -c 'MANWIDTH=80 man -l "$(man -w pagecliff-attach)" 2>&1' >man.txt ||
	fail "man pagecliff-attach: exit $?"
grep -qx " *$unitfile" man.txt ||
	fail "pagecliff-attach(1) does not name the unit where it is installed, $unitfile: $(grep -i systemd/system man.txt)"
run sh -c 'man 3 pc_stream_open 2>&1' | grep -q "pc_stream_open" || fail "man 3 pc_stream_open does not render"
run sh -c 'man pagecliff-mpi 2>&1' | grep -q "PAGECLIFF-MPI" || fail "man pagecliff-mpi does not render"
run bash -c '. /usr/share/bash-completion/completions/pagecliff.bash &&
	COMP_WORDS=(pagecliff ca); COMP_CWORD=1; _pagecliff; echo "${COMPREPLY[*]}"' >compl.txt
[ "$(cat compl.txt)" = "cat" ] || fail "installed completion for 'pagecliff ca': $(cat compl.txt)"
[ -x /usr/bin/pagecliff-mpi ] || fail "no /usr/bin/pagecliff-mpi"

# the module from the package alone: Debian's python3, no PYTHONPATH
run /usr/bin/python3 -c '
import hashlib, sys, pagecliff
assert pagecliff.__file__.startswith("/usr/lib/python3/dist-packages/"), pagecliff.__file__
with pagecliff.open("data") as f:
    got = hashlib.sha256(f.read()).hexdigest()
print(got == hashlib.sha256(open("data", "rb").read()).hexdigest())' >py.txt 2>&1 ||
	fail "import pagecliff from python3-pagecliff: $(cat py.txt)"
[ "$(cat py.txt)" = True ] || fail "pagecliff.open read other bytes than the file's: $(cat py.txt)"
dpkg -L python3-pagecliff | grep -q "/usr/lib/python3/dist-packages/pagecliff.pyi" ||
	fail "python3-pagecliff has no type stubs"
run sh -c 'man 3 pagecliff-python 2>&1' | grep -q "PAGECLIFF-PYTHON" || fail "man 3 pagecliff-python does not render"

phase "the guard's unit"
cd "$tmp" || exit 1
[ -f "$unitfile" ] || fail "no $unitfile"
[ -L "$link" ] && fail "installing enabled the guard; it is opt-in: $link"
systemd=0
[ -d /run/systemd/system ] && systemd=1
if [ $systemd = 1 ]; then
	systemctl is-active --quiet "$unit" && fail "installing started the guard; it is opt-in"
fi
# the links `systemctl enable` makes are recorded, so that purge can remove them
[ "$(cat "$dsh" 2>&1)" = "$link" ] ||
	fail "deb-systemd-helper records no link of $unit for purge: $(cat "$dsh" 2>&1)"

enabled=1
systemctl enable "$unit" >"$tmp/enable.log" 2>&1 || { cat "$tmp/enable.log"; fail "systemctl enable $unit failed"; }
[ -L "$link" ] && [ "$link" -ef "$unitfile" ] || fail "systemctl enable $unit made no $link"
if [ $systemd = 1 ]; then
	systemctl start "$unit" || fail "systemctl start $unit failed"
	systemctl is-active --quiet "$unit" || fail "the guard did not start"
fi

# The maintainer scripts as dpkg runs them where systemd runs (a tmpfs /run
# with /run/systemd/system, in a mount namespace of their own), systemd's
# tools stubbed to log what they are asked; deb-systemd-helper says the unit
# was never enabled.
dpkg-deb -e "$tmp/pagecliff_${version}_$(dpkg --print-architecture).deb" "$tmp/control" ||
	fail "cannot extract pagecliff's control files"
for s in postinst prerm postrm; do
	[ -x "$tmp/control/$s" ] || fail "pagecliff has no $s"
done
mkdir "$tmp/stubs" || exit 1
for t in deb-systemd-helper deb-systemd-invoke systemctl; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\ncase "$*" in *was-enabled*) exit 1;; esac\nexit 0\n' \
		"$t" "$tmp/calls" >"$tmp/stubs/$t" && chmod +x "$tmp/stubs/$t" || exit 1
done
# as_systemd SCRIPT ARGS...: the calls SCRIPT made but deb-systemd-helper's,
# one a line, then its exit status and output if it failed
as_systemd() {
	: >"$tmp/calls"
	unshare -m sh -c 'mount -t tmpfs pkgtest /run && mkdir -p /run/systemd/system && exec "$@"' sh \
		env PATH="$tmp/stubs:$PATH" DPKG_MAINTSCRIPT_PACKAGE=pagecliff \
		sh "$tmp/control/$1" "${@:2}" >"$tmp/script.out" 2>&1 ||
		echo "$*: exit $?: $(cat "$tmp/script.out")" >>"$tmp/calls"
	grep -v "^deb-systemd-helper" "$tmp/calls"
}
# expect_calls WHAT SCRIPT ARGS...: SCRIPT ARGS makes the calls $want or fails with WHAT
expect_calls() {
	got=$(as_systemd "${@:2}")
	[ "$got" = "$want" ] || fail "$1: $*: calls '$got', not '$want'"
}
want="deb-systemd-invoke stop $unit"
expect_calls "removing pagecliff does not stop the guard" prerm remove
want=
expect_calls "an upgrade stops the guard in prerm (postinst restarts it)" prerm upgrade "$version"
want="systemctl --system daemon-reload"
expect_calls "a first install must only reload systemd" postinst configure
grep -q "deb-systemd-helper enable" "$tmp/calls" &&
	fail "postinst configure enabled a unit that was never enabled: $(cat "$tmp/calls")"
want="systemctl --system daemon-reload
deb-systemd-invoke try-restart $unit"
expect_calls "an upgrade must restart a running guard" postinst configure "$version"
want="systemctl --system daemon-reload"
expect_calls "removing pagecliff does not reload systemd" postrm remove
want=
expect_calls "postrm purge" postrm purge
grep -qx "deb-systemd-helper purge $unit" "$tmp/calls" ||
	fail "postrm purge does not purge the unit's links: $(cat "$tmp/calls")"

phase "remove, purge"
dpkg --remove pagecliff >"$tmp/remove.log" 2>&1 || { cat "$tmp/remove.log"; fail "dpkg --remove pagecliff failed"; }
if [ $systemd = 1 ]; then
	systemctl is-active --quiet "$unit" && fail "removing pagecliff left the guard running"
fi
dpkg --purge "${pkgs[@]}" >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; fail "dpkg --purge failed"; }
installed=0
[ -L "$link" ] && fail "purge left the link systemctl enable made: $link -> $(readlink "$link")"
[ -e "$dsh" ] && fail "purge left deb-systemd-helper's record: $dsh"
enabled=0
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^.[^n]' && fail "$p is still known to dpkg"
done
left=$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done <"$tmp/new-paths")
[ -z "$left" ] || fail "purge left: $left"
echo "packages: built, lintian clean, installed, smoke-tested, purged ($(wc -l <"$tmp/new-paths") paths gone) in $SECONDS s"
