/* SPDX-License-Identifier: MIT */
/*
 * The kernel's escapes in /proc/mounts and /proc/PID/mountinfo: a blank, a
 * tab, a newline, a backslash (and in mount options a comma) in a path or an
 * option come as \040, \011, \012, \134 (\054).  One decoder for the
 * command's readers (sample.c, doctor) and the shim's overlay lookup.
 */
#ifndef PC_MOUNT_ESCAPE_H
#define PC_MOUNT_ESCAPE_H

/* Decode @s's \ooo escapes in place (it only shrinks). */
void pc_mount_unescape(char *s);

#endif
