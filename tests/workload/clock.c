// SPDX-License-Identifier: GPL-2.0
/* CLOCK_MONOTONIC in ns: the clock bpf_ktime_get_ns() reads. */
#include <errno.h>
#include <time.h>

#include "nw.h"

uint64_t nw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void nw_sleep_until(uint64_t t_ns)
{
	struct timespec ts = {
		.tv_sec = t_ns / 1000000000ULL,
		.tv_nsec = t_ns % 1000000000ULL,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
