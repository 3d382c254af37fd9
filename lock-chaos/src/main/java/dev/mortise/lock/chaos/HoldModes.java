package dev.mortise.lock.chaos;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The mode of each hold in a run's events, from the line a worker logs right after ACQUIRED
 * ({@link ModeCycles}): {@value #SHARED} for a shared (read) hold, {@value #PERMIT} (value = the
 * permit count) for one permit of a semaphore; a hold without such a line is exclusive, as every
 * hold of the basic, mixed and leader workloads is. It says which holds may coexist on one
 * resource ({@link #conflict}, {@link #capacity}), for {@link ModeRules}.
 */
final class HoldModes {

    /** The line type of a shared hold. */
    static final String SHARED = "MODE_SHARED";

    /** The line type of one permit; its value is the semaphore's permit count. */
    static final String PERMIT = "MODE_PERMIT";

    /** How a hold shares its resource. */
    enum Kind { EXCLUSIVE, SHARED, PERMIT }

    /**
     * A hold's mode.
     *
     * @param permits the semaphore's permit count for a {@link Kind#PERMIT} hold, else 1
     */
    record Mode(Kind kind, int permits) {
        static final Mode EXCLUSIVE = new Mode(Kind.EXCLUSIVE, 1);

        @Override
        public String toString() {
            return kind == Kind.PERMIT ? "permit of " + permits : kind.name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Map<String, Mode> modes;

    private HoldModes(Map<String, Mode> modes) {
        this.modes = modes;
    }

    /** The modes the events' MODE_SHARED and MODE_PERMIT lines declare. */
    static HoldModes of(List<WorkerEvent> events) {
        Map<String, Mode> modes = new HashMap<>();
        for (WorkerEvent e : events) {
            if (e.type().equals(SHARED)) {
                modes.put(id(e.worker(), e.key(), e.token()), new Mode(Kind.SHARED, 1));
            } else if (e.type().equals(PERMIT)) {
                modes.put(id(e.worker(), e.key(), e.token()), new Mode(Kind.PERMIT, (int) e.value()));
            }
        }
        return new HoldModes(modes);
    }

    private static String id(String worker, String key, long token) {
        return worker + "\n" + key + "\n" + token;
    }

    /** The mode of the hold {@code worker} was granted on {@code key} with {@code token}: exclusive unless a line said otherwise. */
    Mode of(String worker, String key, long token) {
        return modes.getOrDefault(id(worker, key, token), Mode.EXCLUSIVE);
    }

    /**
     * What a hold counts against: its key, but for a permit the semaphore's name, so that the
     * slots of a slot semaphore ({@code name#permit-i}) and a native one's key ({@code name#permits})
     * are counted together.
     */
    static String resource(String key, Mode mode) {
        if (mode.kind() != Kind.PERMIT) {
            return key;
        }
        int hash = key.lastIndexOf('#');
        return hash < 0 ? key : key.substring(0, hash);
    }

    /**
     * Whether a hold in mode {@code b} takes room from a grant in mode {@code a} on the same
     * resource: readers beside readers do not; a writer beside anyone does; every permit takes
     * one of the permits.
     */
    static boolean conflict(Mode a, Mode b) {
        if (a.kind() == Kind.SHARED && b.kind() == Kind.SHARED) {
            return false;
        }
        return true;
    }

    /** How many conflicting holds a grant in {@code mode} may have beside it: the other permits, else none. */
    static int capacity(Mode mode) {
        return mode.kind() == Kind.PERMIT ? mode.permits() - 1 : 0;
    }
}
