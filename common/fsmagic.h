/* SPDX-License-Identifier: MIT */
/*
 * File systems by statfs(2)'s f_type: <linux/magic.h>, and here, once, the
 * numbers older copies of that header lack.
 */
#ifndef PC_FSMAGIC_H
#define PC_FSMAGIC_H

#include <linux/magic.h>

#ifndef CIFS_SUPER_MAGIC
#define CIFS_SUPER_MAGIC 0xFF534D42
#endif
#ifndef SMB2_SUPER_MAGIC
#define SMB2_SUPER_MAGIC 0xFE534D42
#endif

#endif
