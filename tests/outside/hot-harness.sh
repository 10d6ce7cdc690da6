# SPDX-License-Identifier: MIT
# What the tests of attach --all's kernel-event source share (sourced after
# harness.sh).  need_kernel_events STATS: the guard's --stats line on candidates in STATS
# must say kernel events find the candidates; skip where BPF cannot load
# here (the line says why), fail where no line says either.
need_kernel_events() {
	_src=$(sed -n 's/^pagecliff: attach --all: candidates //p' "$1")
	case $_src in
	"from kernel events"*) ;;
	*"built without BPF"* | *"needs root or CAP_BPF"* | *"no filemap tracepoint"*) skip "${_src#*no kernel events: }";;
	*) fail "no start line saying kernel events: $(cat "$1")";;
	esac
}
