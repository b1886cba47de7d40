/* libsecfilter.so's top floor (HACKING.md): how the library starts (the
 * constructor, init.c; the audit module, audit.c) and its API (api.c). */
#ifndef SECFILTER_ENTRY_H
#define SECFILTER_ENTRY_H

#include "wrap.h"

/* init.c */
int sf_settings_from_env(const char **msg);
int sf_boot_trusted(void); /* from la_version; 1 when it became the authority */
/* err's text on stderr, and exit status 125 */
void sf_apply_error(const struct sf_error *err) __attribute__((noreturn));

/* landlock.c: the policy's fs./net. layers entered at the start (fact:
 * SECFILTER_LANDLOCK's value, or NULL; all_inherited: the kernel says
 * this very policy is in force already), exit 125 when they cannot be;
 * and by secfilter_apply, the layers it added (0 or -errno, err). */
void sf_ll_boot(const struct sf_policy *p, const char *fact, int all_inherited);
int sf_ll_narrow(const struct sf_policy *p, struct sf_error *err);

/* api.c */
int sf_publish(const struct sf_policy *p); /* state mapping + env text */
/* the same, for an exec'd image's policy and the text and map it was handed */
int sf_publish_handed(const struct sf_policy *p, const char *text, const char *origins);
/* the state mapping alone, for a policy parsed at its first use */
int sf_publish_deferred(const char *text);
int sf_arm_all_threads(void);
int sf_other_threads(void);
extern const struct sf_authority sf_authority_iface; /* what the authority hands out */

#endif
