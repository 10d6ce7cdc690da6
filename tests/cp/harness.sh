# SPDX-License-Identifier: MIT
# Shared by the cp tests (with ../harness.sh): counting a file's cached bytes
# and evicting a file of our own.
pc=${PAGECLIFF:?run through meson test}
. "$(dirname "$0")/../harness.sh"

# Bytes of file $1 in the page cache (fincore counts them with mincore).
cached() { fincore -b -n -o RES "$1" | tr -d ' '; }

# Drop our own file $1 from the page cache (it must be clean).
evict() {
	python3 -c 'import os,sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fdatasync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

# Fail unless files $1 and $2 hold the same bytes.
same() { cmp -s "$1" "$2" || fail "${3:-}: '$2' differs from '$1'"; }
