package dev.mortise.lock.tck.server;

import java.util.ArrayList;
import java.util.List;

/** Runs server commands as the right user: PostgreSQL will not run as root. */
final class RunAs {

    private RunAs() {
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * {@code command} as the {@code postgres} system user when we are root ({@code setpriv}
     * execs, so the process id stays the server's own for signals), unchanged otherwise.
     */
    static List<String> postgres(List<String> command) {
        if (!isRoot()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("setpriv", "--reuid=postgres", "--regid=postgres",
                "--init-groups", "--"));
        wrapped.addAll(command);
        return wrapped;
    }
}
