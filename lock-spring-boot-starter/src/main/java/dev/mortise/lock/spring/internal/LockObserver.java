package dev.mortise.lock.spring.internal;

import java.util.List;
import java.util.Locale;

/**
 * Observes annotated lock calls, with the operation's low-cardinality name (metrics and
 * observations plug in here). Implementations are quick and never throw.
 */
public interface LockObserver {

    /** Observes nothing. */
    LockObserver NOOP = (operation, backend, key) -> Acquisition.NONE;

    /** How an acquisition ended. */
    enum Outcome {
        ACQUIRED, BUSY, TIMEOUT, ERROR;

        /** The tag value: "acquired", "busy", ... */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Called before {@code operation} tries to acquire {@code key} on {@code backend}. */
    Acquisition acquiring(LockOperation operation, String backend, String key);

    /** One acquisition under observation; exactly one of its methods is called. */
    interface Acquisition {

        /** Observes nothing. */
        Acquisition NONE = new Acquisition() {
            @Override
            public void notAcquired(Outcome outcome, Throwable failure) {
            }

            @Override
            public Runnable acquired() {
                return () -> { };
            }
        };

        /** Not granted: busy, timed out, or failed with {@code failure}. */
        void notAcquired(Outcome outcome, Throwable failure);

        /**
         * Granted.
         *
         * @return run once when the lock is released
         */
        Runnable acquired();
    }

    /** All of {@code observers}, in order. */
    static LockObserver composite(List<LockObserver> observers) {
        if (observers.isEmpty()) {
            return NOOP;
        }
        if (observers.size() == 1) {
            return observers.get(0);
        }
        List<LockObserver> all = List.copyOf(observers);
        return (operation, backend, key) -> {
            List<Acquisition> acquisitions = all.stream().map(o -> o.acquiring(operation, backend, key)).toList();
            return new Acquisition() {
                @Override
                public void notAcquired(Outcome outcome, Throwable failure) {
                    acquisitions.forEach(a -> a.notAcquired(outcome, failure));
                }

                @Override
                public Runnable acquired() {
                    List<Runnable> stops = acquisitions.stream().map(Acquisition::acquired).toList();
                    return () -> stops.forEach(Runnable::run);
                }
            };
        };
    }
}
