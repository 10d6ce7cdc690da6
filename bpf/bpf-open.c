// SPDX-License-Identifier: MIT
/*
 * The one copy of the BPF program in a binary: its skeleton embeds the whole
 * object (BTF and all), and every file calling the skeleton's open would
 * hold a copy of its own.  engine/trace and outside/hot.c open it here.
 */
#include <limits.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bpf-open.h"

/*
 * Whether libbpf can read this kernel's configuration (for the weak
 * CONFIG_HZ): /boot/config-RELEASE or /proc/config.gz.  A guest booted from
 * a bare kernel image has neither, and libbpf would refuse to open the
 * object for want of it.
 */
static int have_kconfig(void)
{
	char path[PATH_MAX];
	struct utsname u;

	if (!access("/proc/config.gz", R_OK))
		return 1;
	if (uname(&u))
		return 0;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	return !access(path, R_OK);
}

struct pagecliff_bpf *pcl_bpf_open(void)
{
	/* no configuration: the weak CONFIG_HZ reads 0 (throttle unknown) */
	LIBBPF_OPTS(bpf_object_open_opts, opts,
		    .kconfig = have_kconfig() ? NULL : "CONFIG_HZ=0\n");

	return pagecliff_bpf__open_opts(&opts);
}
