/* libsecfilter.so's top floor (HACKING.md): how the library starts (the
 * constructor, init.c; the audit module, audit.c) and its API (api.c). */
#ifndef SECFILTER_ENTRY_H
#define SECFILTER_ENTRY_H

#include "wrap.h"

/* init.c */
int sf_settings_from_env(const char **msg);
int sf_boot_trusted(void); /* from la_version; 1 when it became the authority */

/* api.c */
int sf_publish(const struct sf_policy *p); /* state mapping + env text */
int sf_arm_all_threads(void);
int sf_other_threads(void);
extern const struct sf_authority sf_authority_iface; /* what the authority hands out */

#endif
