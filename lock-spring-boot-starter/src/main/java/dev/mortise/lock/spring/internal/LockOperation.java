package dev.mortise.lock.spring.internal;

import dev.mortise.lock.spring.LockAccess;
import dev.mortise.lock.spring.OnBusy;
import dev.mortise.lock.spring.OnLost;

import java.lang.reflect.Method;
import java.time.Duration;

/**
 * A {@code @DistributedLock} as it applies to one method, with its strings resolved and
 * validated at start-up.
 *
 * @param method          the most specific method (the one whose parameter names keys use)
 * @param keyExpression   the SpEL key expression as written
 * @param name            the metric name: the annotation's name or the key expression
 * @param waitFor         how long to wait; zero tries once
 * @param lease           an explicit, unrenewed lease, or {@code null} for a renewed one
 * @param onBusy          the busy policy
 * @param holdAtLeast     the minimum hold, or {@code null}
 * @param backend         the backend name, empty for the default
 * @param fencingArgIndex the index of the {@code @FencingToken} parameter, or -1
 * @param onLost          what the call is told of a loss, never {@link OnLost#DEFAULT}
 * @param fenceExpression the SpEL fence expression as written, or {@code null} for no fence
 * @param mode            read (shared) or write (exclusive)
 */
public record LockOperation(Method method, String keyExpression, String name, Duration waitFor, Duration lease,
                            OnBusy onBusy, Duration holdAtLeast, String backend, int fencingArgIndex,
                            OnLost onLost, String fenceExpression, LockAccess mode) {

    /** Whether the method's writes are fenced ({@code @DistributedLock(fence = ...)}). */
    public boolean fenced() {
        return fenceExpression != null;
    }

    /** "OrderService.pay(Order)", for messages. */
    public String describeMethod() {
        return describe(method);
    }

    static String describe(Method method) {
        StringBuilder text = new StringBuilder(method.getDeclaringClass().getSimpleName()).append('.')
                .append(method.getName()).append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            text.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
        }
        return text.append(')').toString();
    }
}
