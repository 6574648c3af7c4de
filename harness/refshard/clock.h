/* Clocks. The loop reads the monotonic clock once per iteration (a vDSO call, so checking
 * the time costs nothing even when the loop spins). */
#ifndef REFSHARD_CLOCK_H
#define REFSHARD_CLOCK_H

#include <stdint.h>

#define NS_PER_MS 1000000LL

int64_t clock_mono_ns(void);
/* CPU time of the whole process (every thread), as the real server's Environment.CpuUsage. */
uint64_t clock_cpu_ns(void);
/* Busy the calling thread for us microseconds of its own CPU time (not wall time: a burst
 * stands for work, and work is not shortened by being descheduled). */
void clock_burn_us(long us);

#endif
