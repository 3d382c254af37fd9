package dev.mortise.lock.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Sends signals to worker JVMs through one long-lived {@code bash} whose {@code kill} is a
 * builtin: no process is forked per signal. On a loaded machine forking {@code kill(1)} can
 * take hundreds of milliseconds, long enough for a holder to leave its critical section before
 * the SIGSTOP meant for it lands. Thread-safe (one signal at a time).
 */
final class Signals {

    private static Process shell;
    private static OutputStream in;
    private static BufferedReader out;

    private Signals() {
    }

    /** {@code kill -<signal> <pid>}; returns once bash has sent it, throws if it failed. */
    static synchronized void send(String signal, long pid) throws IOException {
        if (shell == null || !shell.isAlive()) {
            shell = new ProcessBuilder("bash").redirectErrorStream(true).start();
            in = shell.getOutputStream();
            out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
            Process started = shell;
            Cleanup.register(started::destroyForcibly);
        }
        in.write(("kill -" + signal + " " + pid + " 2>&1; echo \"rc=$?\"\n").getBytes(StandardCharsets.US_ASCII));
        in.flush();
        String line;
        StringBuilder said = new StringBuilder();
        while ((line = out.readLine()) != null) {
            if (line.startsWith("rc=")) {
                if (!line.equals("rc=0")) {
                    throw new IOException("kill -" + signal + " " + pid + " failed: " + said.toString().trim());
                }
                return;
            }
            said.append(line).append('\n');
        }
        throw new IOException("the signalling shell ended while sending kill -" + signal + " " + pid);
    }
}
