# SPDX-License-Identifier: MIT
# Shared by the comparisons that run programs in a memory cgroup through the
# test rig's shim-cgrun (shim-vs-nocache.sh, outside.sh, shim-direct.sh), sourced after they
# set NFILES, FILE_MIB and DIR: the rig's programs, a work folder removed at
# exit, the source files, medians and the columns of their result files.

# rig_tools BUILD [PROGRAM...]: PAGECLIFF, CGRUN and PAGESTAT of the build
# folder BUILD, checked with the other PROGRAMs; exit 77 without root.
rig_tools() {
	PAGECLIFF=$1/cli/pagecliff
	CGRUN=$1/tests/shim/shim-cgrun
	PAGESTAT=$1/tests/shim/shim-pagestat
	[ "$(id -u)" = 0 ] || { echo "needs root (memory cgroups)" >&2; exit 77; }
	for x in "$PAGECLIFF" "$CGRUN" "$PAGESTAT" "${@:2}"; do
		[ -x "$x" ] || { echo "missing $x: build first (ninja -C $1; apt-get install time)" >&2; exit 2; }
	done
}

work=$(mktemp -d "${DIR:-/var/tmp}/pagecliff-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# random_files FOLDER: NFILES files of FILE_MIB MiB of random bytes in
# FOLDER (made here); their MiB in all in $total.
random_files() {
	mkdir "$1"
	i=0
	while [ $i -lt "$NFILES" ]; do
		head -c "${FILE_MIB}M" /dev/urandom > "$1/f$i"
		i=$((i + 1))
	done
	total=$((NFILES * FILE_MIB))
}

# The median of the numbers on stdin, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# col FILE N: the median of column N over the runs (lines) of FILE.
col() {
	awk -v n="$2" '{ print $n }' "$1" | median
}

# same FILE N REF: "yes" when column N (a checksum) is REF in every run of FILE.
same() {
	if [ "$(awk -v n="$2" '{ print $n }' "$1" | sort -u)" = "$3" ]; then echo yes; else echo no; fi
}
