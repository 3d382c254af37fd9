/*
 * The offset file's one line, as FakeClock.format writes it ("+5.000s", "-30.000s"), in
 * nanoseconds. Shared by clockjump.c (the LD_PRELOAD shim) and clocktrace.c (the ptrace
 * tracer); FakeClock copies it next to either source before compiling.
 */
#ifndef MORTISE_OFFSET_H
#define MORTISE_OFFSET_H

static long long parse_offset(const char *s) {
    int sign = 1;
    long long whole = 0, frac = 0, scale = 1000000000LL;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '+') s++; else if (*s == '-') { sign = -1; s++; }
    while (*s >= '0' && *s <= '9') whole = whole * 10 + (*s++ - '0');
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9' && scale > 1) { scale /= 10; frac += (*s++ - '0') * scale; }
    }
    return sign * (whole * 1000000000LL + frac);
}

#endif
