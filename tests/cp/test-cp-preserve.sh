#!/bin/bash
# SPDX-License-Identifier: MIT
# cp -p keeps what cp(1) keeps for a user who may not keep the owner: run as
# nobody, a set-user-ID or set-group-ID file of root's (or of nobody's with
# root's group) becomes a plain file of nobody's, the sticky bit goes too,
# a file nobody owns keeps its set-ID bits, times are kept; as root all of
# mode, owner and group are kept.  Each result is compared with /bin/cp's
# made side by side.  With -r a directory that cannot be read still gets its
# mode (and with -p its times) instead of staying at 0700.
set -u
. "$(dirname "$0")/harness.sh"
needs_root "to make files of root's and to run as nobody"
id nobody >/dev/null 2>&1 || skip "no user nobody"
grp=$(id -gn nobody)
as_nobody() { setpriv --reuid=nobody --regid="$grp" --clear-groups "$@"; }
as_nobody true 2>/dev/null || skip "setpriv cannot drop to nobody"
make_tmpdir dir /tmp
chmod 0755 "$dir"
cd "$dir" || exit 1
mkdir out && chmod 0777 out
as_nobody test -x "$pc" || skip "nobody cannot run '$pc'"

# name owner mode
mk() {
	printf 'data of %s\n' "$1" >"$1"
	chown "$2" "$1" && chmod "$3" "$1"
	touch -d '2001-02-03 04:05:06.123456789' "$1"
}
mk suid root:root 4755
mk sgid root:root 2755
mk sticky root:root 1755
mk own "nobody:$grp" 6755
mk owngrp nobody:root 6755
mk other 1234:5678 0644
attrs() { stat -c '%a %U:%G %y' "$1"; }

for f in suid sgid sticky own owngrp other; do
	as_nobody bash -c 'umask 022; /bin/cp -p "$1" "out/gnu.$1" && "$2" cp -p "$1" "out/pc.$1"' \
		_ "$f" "$pc" || fail "-p $f as nobody: exit $?"
	same "$f" "out/pc.$f" "-p $f as nobody"
	[ "$(attrs "out/pc.$f")" = "$(attrs "out/gnu.$f")" ] ||
		fail "-p $f as nobody: '$(attrs "out/pc.$f")', cp(1) '$(attrs "out/gnu.$f")'"
	/bin/cp -p "$f" "out/rgnu.$f" && "$pc" cp -p "$f" "out/rpc.$f" || fail "-p $f as root"
	[ "$(attrs "out/rpc.$f")" = "$(attrs "$f")" ] ||
		fail "-p $f as root: '$(attrs "out/rpc.$f")', source '$(attrs "$f")'"
done
# The figures themselves, not only agreement with cp(1).
t='2001-02-03 04:05:06.123456789 +0000'
for want in "suid 755 nobody:$grp" "sgid 755 nobody:$grp" "sticky 755 nobody:$grp" \
	    "own 6755 nobody:$grp" "owngrp 755 nobody:$grp" "other 644 nobody:$grp"; do
	set -- $want
	[ "$(TZ=UTC attrs "out/pc.$1")" = "$2 $3 $t" ] ||
		fail "-p $1 as nobody: '$(TZ=UTC attrs "out/pc.$1")', want '$2 $3 $t'"
done
[ "$(stat -c '%a %u:%g' out/rpc.suid out/rpc.other | tr '\n' ' ')" = "4755 0:0 644 1234:5678 " ] ||
	fail "-p as root: $(stat -c '%a %u:%g' out/rpc.suid out/rpc.other | tr '\n' ' ')"

# An existing destination of nobody's: the same.
for tool in /bin/cp "$pc"; do
	n=out/exist.$(basename "$tool")
	printf old >"$n" && chown "nobody:$grp" "$n" && chmod 0600 "$n"
	as_nobody bash -c '[ "$1" = /bin/cp ] && exec /bin/cp -p suid "$2"; exec "$1" cp -p suid "$2"' \
		_ "$tool" "$n" || fail "-p onto an existing file with $tool: exit $?"
done
[ "$(attrs out/exist.pagecliff)" = "$(attrs out/exist.cp)" ] ||
	fail "-p onto an existing file: '$(attrs out/exist.pagecliff)', cp(1) '$(attrs out/exist.cp)'"

# A directory nobody cannot read, with -r and with -rp: its mode as cp(1)
# leaves it, not 0700; the times with -p; exit 1 and the directory named.
mkdir -p tree/sub && chmod 0311 tree/sub && touch -d '2001-02-03' tree/sub
for p in "" p; do
	for tool in gnu pc; do
		as_nobody bash -c 'umask 022; cd out
			if [ "$1" = gnu ]; then exec /bin/cp -r$2 ../tree "$1.r$2"; fi
			exec "$3" cp -r$2 ../tree "$1.r$2"' _ "$tool" "$p" "$pc" 2>err
		rc=$?
		[ $rc = 1 ] && grep -q "'../tree/sub'.*Permission denied" err ||
			fail "-r$p $tool: unreadable directory: exit $rc '$(cat err)'"
	done
	[ "$(stat -c '%a %Y' out/pc.r$p/sub)" = "$(stat -c '%a %Y' out/gnu.r$p/sub)" ] ||
		fail "-r$p: unreadable directory copied as '$(stat -c '%a %Y' out/pc.r$p/sub)'," \
		     "cp(1) '$(stat -c '%a %Y' out/gnu.r$p/sub)'"
done
[ "$(stat -c %a out/pc.r/sub)" = 311 ] && [ "$(stat -c %Y out/pc.rp/sub)" = "$(stat -c %Y tree/sub)" ] ||
	fail "-r: unreadable directory: $(stat -c '%a %Y' out/pc.r/sub out/pc.rp/sub)"
echo "cp -p as nobody drops set-ID bits it cannot keep, keeps times; as root keeps all; as cp(1)"
