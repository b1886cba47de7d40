/* A listener's verdict on a notified call (notif.h). */
#include <linux/audit.h>
#include <signal.h>

#include "eval.h"
#include "notif.h"

int sf_notif_useful(const struct sf_policy *p, int log)
{
	return log || p->dflt == SF_ACTION_KILL || p->dflt == SF_ACTION_LOG;
}

void sf_notif_judge(const struct sf_policy *p, int log, uint32_t arch, long nr,
		    const uint64_t a[6], struct sf_notif_verdict *v)
{
	v->x86 = arch == AUDIT_ARCH_X86_64 && !(nr & 0x40000000);
	v->decision = v->x86 ? sf_decide(p, (uint64_t)nr, a) : SF_DENY_I386;
	if (v->decision == SF_ALLOW)
		v->action = SF_ACTION_RUN;
	else if (!v->x86)
		v->action = SF_ACTION_KILL;
	else
		v->action = log ? sf_action_log_mode(p, (uint64_t)nr, v->decision)
				: sf_action(p, (uint64_t)nr, v->decision);
}

unsigned sf_notif_kill_way(uint64_t blk, uint64_t ign, uint64_t cgt)
{
	const uint64_t bit = 1ull << (SIGSYS - 1);

	if (ign & bit)
		return SF_KILL_SIGKILL;
	return ((blk & bit) ? SF_KILL_UNMASK : 0) | ((cgt & bit) ? SF_KILL_HANDLED : 0);
}

static int digit(char c, int hex)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (hex && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int sf_status_field(const char *text, size_t len, const char *name, int hex, uint64_t *v)
{
	size_t i = 0, n = 0;

	while (name[n])
		n++;
	while (i < len) {
		size_t j = i;
		int d, found = 0;
		while (j - i < n && j < len && text[j] == name[j - i])
			j++;
		if (j - i == n && j < len && text[j] == ':') {
			for (j++; j < len && (text[j] == '\t' || text[j] == ' '); j++)
				;
			for (*v = 0; j < len && (d = digit(text[j], hex)) >= 0; j++, found = 1)
				*v = *v * (hex ? 16 : 10) + (uint64_t)d;
			if (found)
				return 0;
		}
		while (i < len && text[i] != '\n')
			i++;
		i++;
	}
	return -1;
}
