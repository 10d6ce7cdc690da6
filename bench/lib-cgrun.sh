# SPDX-License-Identifier: MIT
# Shared by the comparisons that run programs in a memory cgroup through the
# test rig's shim-cgrun (shim-vs-nocache.sh, outside.sh), sourced after they
# set NFILES, FILE_MIB and DIR: a work folder removed at exit, the source
# files, medians and the columns of their result files.

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
