/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NW_ERRNAMES_H
#define NW_ERRNAMES_H

/* "ENOENT" for 2 (either sign); a kernel-internal one like "ERESTARTSYS". */
const char *nw_errno_name(long err);

#endif /* NW_ERRNAMES_H */
