/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --prom-file: node_exporter's textfile collector reads every *.prom file of
 * its directory at each scrape, so the file is replaced atomically: written
 * to a hidden temporary in the same directory (not *.prom, never collected),
 * then renamed over PATH.
 */
#ifndef NW_PROM_TEXTFILE_H
#define NW_PROM_TEXTFILE_H

#include <stddef.h>

/*
 * Only a regular file (or a missing one) is ever replaced: NULL, or what
 * PATH is instead ("a FIFO", "a symbolic link", ...). A symbolic link is
 * refused: rename() would replace the link itself, not its target.
 */
const char *prom_textfile_refused(const char *path);
/* Returns 0 or -errno (-EEXIST: refused, see above); PATH is untouched on failure. */
int prom_textfile_write(const char *path, const char *data, size_t len);

#endif /* NW_PROM_TEXTFILE_H */
