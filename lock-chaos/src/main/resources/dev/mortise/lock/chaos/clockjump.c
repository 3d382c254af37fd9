/*
 * clockjump: an LD_PRELOAD shim that moves a process's wall clock (CLOCK_REALTIME,
 * gettimeofday, time) by an offset read from a file, and leaves every other clock
 * (CLOCK_MONOTONIC, CLOCK_BOOTTIME...) alone - what a step of the system clock (NTP, an
 * operator) does. Written for lock-chaos (dev.mortise.lock.chaos.FakeClock) because
 * libfaketime 0.9.10 cannot start redis-server: jemalloc calls clock_gettime while
 * libfaketime initialises and it aborts ("Unexpected recursive calls to clock_gettime()").
 *
 * The file named by CLOCKJUMP_FILE holds the offset as libfaketime's files do:
 * "+5.000s", "-120.250s", "+0" (seconds, optional fraction, optional 's'). It is re-read at
 * most every 10 ms (CLOCK_MONOTONIC), so a change takes effect at once; the controller
 * replaces it atomically (rename). A missing or unreadable file means offset 0.
 *
 * No allocation and no dlsym: the real clocks are read with the raw syscall, so the shim is
 * safe to call from inside malloc's own initialisation (jemalloc's case).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "offset.h"

static volatile long long offset_ns;
static volatile long long read_at_ns = -1;

static int raw_clock(clockid_t clock, struct timespec *ts) {
    return (int) syscall(SYS_clock_gettime, clock, ts);
}

static long long current_offset(void) {
    struct timespec now;
    raw_clock(CLOCK_MONOTONIC, &now);
    long long mono = now.tv_sec * 1000000000LL + now.tv_nsec;
    if (read_at_ns >= 0 && mono - read_at_ns < 10000000LL) {
        return offset_ns;
    }
    const char *path = getenv("CLOCKJUMP_FILE");
    long long offset = 0;
    if (path != NULL) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            char buf[64];
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n > 0) {
                buf[n] = 0;
                offset = parse_offset(buf);
            }
        }
    }
    offset_ns = offset;
    read_at_ns = mono;
    return offset;
}

static int is_wall(clockid_t clock) {
    return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    int rc = raw_clock(clock, ts);
    if (rc == 0 && is_wall(clock)) {
        long long t = ts->tv_sec * 1000000000LL + ts->tv_nsec + current_offset();
        ts->tv_sec = t / 1000000000LL;
        ts->tv_nsec = t % 1000000000LL;
        if (ts->tv_nsec < 0) { ts->tv_nsec += 1000000000LL; ts->tv_sec -= 1; }
    }
    return rc;
}

int gettimeofday(struct timeval *tv, void *tz) {
    (void) tz;
    struct timespec ts;
    int rc = clock_gettime(CLOCK_REALTIME, &ts);
    if (rc == 0 && tv != NULL) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return rc;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out != NULL) *out = ts.tv_sec;
    return ts.tv_sec;
}
