/* lf_clock.c - the one monotonic clock (lf_clock.h). */
#include "lf_clock.h"

#include <time.h>

double lf_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
