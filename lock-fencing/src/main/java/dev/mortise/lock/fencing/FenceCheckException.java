package dev.mortise.lock.fencing;

import dev.mortise.lock.LockException;

/**
 * A fence check or fenced write could not be carried out (the database or Redis failed, the
 * fence table is missing). The write's fate is unknown to the guard: roll the transaction back.
 * The storage's own error is the cause.
 */
public class FenceCheckException extends LockException {

    private static final long serialVersionUID = 1L;

    public FenceCheckException(String message, String resource, String guard, Throwable cause) {
        super(message, resource, guard, cause);
    }
}
