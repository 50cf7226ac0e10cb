/* lf_clock.h - the one monotonic clock: progress lines, watchdogs, spins and
 * time bounds all read it. */
#ifndef LF_CLOCK_H
#define LF_CLOCK_H

/* Milliseconds on CLOCK_MONOTONIC (not wall time: it never jumps). */
double lf_now_ms(void);

#endif
