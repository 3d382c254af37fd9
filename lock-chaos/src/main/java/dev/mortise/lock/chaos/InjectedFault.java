package dev.mortise.lock.chaos;

/**
 * One fault as injected: which worker, the lock (key, token) it held at that moment, and the
 * controller's wall clock when it struck and (for a pause) when the worker was continued.
 */
public record InjectedFault(Fault fault, String worker, String key, long token, long at, long endedAt) {
}
