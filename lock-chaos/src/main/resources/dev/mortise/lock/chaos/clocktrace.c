/*
 * clocktrace: runs one program with its wall clock (CLOCK_REALTIME, CLOCK_REALTIME_COARSE,
 * gettimeofday, time) moved by an offset read from a file, every other clock (CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME...) left alone - what a step of the system clock does. Written for lock-chaos
 * (dev.mortise.lock.chaos.FakeClock) because etcd is a Go binary: Go reads the clock through
 * the vDSO without libc, so no LD_PRELOAD library (clockjump.c, libfaketime) can move it.
 *
 *   clocktrace OFFSET_FILE PROGRAM [ARGS...]
 *
 * How (x86-64 Linux only):
 *  - The child asks to be traced, stops, installs a seccomp filter that sends the wall-clock
 *    system calls to the tracer (SECCOMP_RET_TRACE) and lets every other call through, then
 *    execs PROGRAM. The filter and the tracing reach every thread and child it makes.
 *  - At the exec stop, before the dynamic loader runs, the tracer turns the AT_SYSINFO_EHDR
 *    entry of the new program's auxiliary vector into AT_IGNORE: neither ld.so/glibc nor the Go
 *    runtime then finds the vDSO, and both read the clock with real system calls (Go's
 *    runtime.walltime/nanotime and time.now fall back to SYSCALL when vdsoClockgettimeSym is 0).
 *  - At each seccomp stop the tracer answers the call itself: its own wall clock plus the
 *    offset, written into the tracee's buffer, and the call skipped (syscall number -1, the
 *    result in rax). One stop per call instead of two (entry, then exit), and no per-thread
 *    state but "seen".
 *  - Every other signal is passed on to the tracee (Go preempts with SIGURG all the time);
 *    group stops are resumed (this is PTRACE_TRACEME tracing, so a SIGSTOP sent to the tracee
 *    does not keep it stopped: stop the tracer instead). SIGTERM, SIGINT and SIGHUP sent to the
 *    tracer are forwarded to the program, which shuts down as it would untraced; the tracer exits
 *    with the program's status (128 + signal if a signal killed it). If the tracer dies, the
 *    kernel kills the program (PTRACE_O_EXITKILL).
 *
 * OFFSET_FILE holds the offset as libfaketime's files do: "+5.000s", "-120.250s", "+0"
 * (seconds, optional fraction, optional 's'). It is re-read at most every 100 ms (by
 * CLOCK_MONOTONIC); the controller replaces it atomically (rename). A missing or unreadable
 * file means offset 0.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "offset.h"

#ifndef __x86_64__
#error "clocktrace reads and writes x86-64 registers"
#endif

#define RELOAD_NS 100000000LL
#define MAX_TID (1 << 22) /* PID_MAX_LIMIT on 64-bit */

static const char *offset_path;
static long long offset_ns;
static long long read_at_ns = -1;
static volatile pid_t child;
static unsigned char seen[MAX_TID / 8];

static long long mono_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

static long long current_offset(void) {
    long long mono = mono_ns();
    if (read_at_ns >= 0 && mono - read_at_ns < RELOAD_NS) {
        return offset_ns;
    }
    long long offset = 0;
    int fd = open(offset_path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[64];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = 0;
            offset = parse_offset(buf);
        }
    }
    offset_ns = offset;
    read_at_ns = mono;
    return offset;
}

/* The moved wall clock, as the tracee should see it. */
static struct timespec moved_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long t = ts.tv_sec * 1000000000LL + ts.tv_nsec + current_offset();
    ts.tv_sec = t / 1000000000LL;
    ts.tv_nsec = t % 1000000000LL;
    if (ts.tv_nsec < 0) { ts.tv_nsec += 1000000000LL; ts.tv_sec -= 1; }
    return ts;
}

static int poke(pid_t tid, unsigned long long addr, long value) {
    return ptrace(PTRACE_POKEDATA, tid, (void *) addr, (void *) value);
}

/* Answers the wall-clock call the thread is stopped in, and skips the real one. */
static void answer(pid_t tid) {
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, tid, 0, &regs) != 0) {
        return; /* the thread is gone (killed meanwhile) */
    }
    struct timespec now = moved_now();
    long long result = 0;
    switch (regs.orig_rax) {
        case SYS_clock_gettime: /* (clockid, struct timespec *) */
            if (poke(tid, regs.rsi, now.tv_sec) != 0 || poke(tid, regs.rsi + 8, now.tv_nsec) != 0) {
                result = -EFAULT;
            }
            break;
        case SYS_gettimeofday: /* (struct timeval *, struct timezone *) */
            if (regs.rdi != 0 && (poke(tid, regs.rdi, now.tv_sec) != 0
                    || poke(tid, regs.rdi + 8, now.tv_nsec / 1000) != 0)) {
                result = -EFAULT;
            }
            if (result == 0 && regs.rsi != 0) {
                /* struct timezone is two ints, minutes west and DST: 0/0, the kernel's default. */
                if (poke(tid, regs.rsi, 0) != 0) result = -EFAULT;
            }
            break;
        case SYS_time: /* (time_t *) */
            result = now.tv_sec;
            if (regs.rdi != 0 && poke(tid, regs.rdi, now.tv_sec) != 0) result = -EFAULT;
            break;
        default:
            return; /* not ours: the filter sends only the three above */
    }
    regs.orig_rax = (unsigned long long) -1; /* skip the call... */
    regs.rax = (unsigned long long) result;  /* ...which then returns this */
    ptrace(PTRACE_SETREGS, tid, 0, &regs);
}

/*
 * At the exec stop: the stack holds argc, argv..., NULL, envp..., NULL, then the auxiliary
 * vector's (tag, value) pairs up to AT_NULL. AT_SYSINFO_EHDR (the vDSO) becomes AT_IGNORE.
 */
static void hide_vdso(pid_t tid) {
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, tid, 0, &regs) != 0) {
        return;
    }
    unsigned long long p = regs.rsp;
    errno = 0;
    long argc = ptrace(PTRACE_PEEKDATA, tid, (void *) p, 0);
    if (errno != 0) {
        fprintf(stderr, "clocktrace: cannot read the new stack: %s\n", strerror(errno));
        return;
    }
    p += 8 * (argc + 2); /* argc, argv[argc], NULL */
    for (;;) {            /* envp up to its NULL */
        long word = ptrace(PTRACE_PEEKDATA, tid, (void *) p, 0);
        p += 8;
        if (errno != 0 || word == 0) break;
    }
    for (int i = 0; i < 512 && errno == 0; i++, p += 16) {
        long tag = ptrace(PTRACE_PEEKDATA, tid, (void *) p, 0);
        if (errno != 0 || tag == AT_NULL) break;
        if (tag == AT_SYSINFO_EHDR) {
            if (poke(tid, p, AT_IGNORE) != 0) {
                fprintf(stderr, "clocktrace: cannot hide the vDSO: %s\n", strerror(errno));
            }
            return;
        }
    }
    if (errno != 0) {
        fprintf(stderr, "clocktrace: cannot read the auxiliary vector: %s\n", strerror(errno));
    }
}

static int install_filter(void) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettimeofday, 6, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_time, 5, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_gettime, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])), /* low half */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_REALTIME, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_REALTIME_COARSE, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
    };
    struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

static void forward(int sig) {
    if (child > 0) kill(child, sig);
}

static int is_seen(pid_t tid) {
    return tid > 0 && tid < MAX_TID && (seen[tid / 8] & (1 << (tid % 8)));
}

static void mark(pid_t tid, int on) {
    if (tid <= 0 || tid >= MAX_TID) return;
    if (on) seen[tid / 8] |= (unsigned char) (1 << (tid % 8));
    else seen[tid / 8] &= (unsigned char) ~(1 << (tid % 8));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: clocktrace OFFSET_FILE PROGRAM [ARGS...]\n");
        return 2;
    }
    offset_path = argv[1];
    pid_t pid = fork();
    if (pid < 0) {
        perror("clocktrace: fork");
        return 1;
    }
    if (pid == 0) {
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) {
            perror("clocktrace: PTRACE_TRACEME");
            _exit(126);
        }
        raise(SIGSTOP); /* the parent sets its options, then continues us */
        if (install_filter() != 0) {
            perror("clocktrace: seccomp filter");
            _exit(126);
        }
        execvp(argv[2], argv + 2);
        fprintf(stderr, "clocktrace: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    child = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    int status;
    if (waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status)) {
        fprintf(stderr, "clocktrace: the child did not stop for tracing\n");
        return 1;
    }
    long options = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK
            | PTRACE_O_TRACEVFORK | PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD;
    if (ptrace(PTRACE_SETOPTIONS, pid, 0, (void *) options) != 0) {
        perror("clocktrace: PTRACE_SETOPTIONS");
        kill(pid, SIGKILL);
        return 1;
    }
    mark(pid, 1);
    ptrace(PTRACE_CONT, pid, 0, 0);

    for (;;) {
        pid_t tid = waitpid(-1, &status, __WALL);
        if (tid < 0) {
            if (errno == EINTR) continue;
            if (errno == ECHILD) return 1; /* cannot happen before the main tracee's exit */
            perror("clocktrace: waitpid");
            return 1;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            mark(tid, 0);
            if (tid == pid) {
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            continue;
        }
        if (!WIFSTOPPED(status)) continue;
        int sig = WSTOPSIG(status);
        int event = status >> 16;
        int deliver = 0;
        if (sig == SIGTRAP && event != 0) {
            if (event == PTRACE_EVENT_SECCOMP) {
                answer(tid);
            } else if (event == PTRACE_EVENT_EXEC) {
                hide_vdso(tid);
            }
            /* clone/fork/vfork: the new task reports its own first stop */
        } else if (sig == (SIGTRAP | 0x80)) {
            /* a syscall stop: none asked for */
        } else if (!is_seen(tid)) {
            /* a new thread or child's first stop (SIGSTOP from the auto-attach): swallow it */
            mark(tid, 1);
            if (sig != SIGSTOP) deliver = sig;
        } else {
            siginfo_t info;
            if (ptrace(PTRACE_GETSIGINFO, tid, 0, &info) == 0) {
                deliver = sig; /* a signal for the tracee: pass it on */
            } /* else a group stop: resume (see the header) */
        }
        mark(tid, 1);
        ptrace(PTRACE_CONT, tid, 0, (void *) (long) deliver);
    }
}
