package dev.mortise.lock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code redis-cli} against a loopback port, for replies with more than one line. */
final class RedisCli {

    private RedisCli() {
    }

    static String run(int port, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("/usr/bin/redis-cli", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("redis-cli " + String.join(" ", args) + " did not finish");
        }
        return output.trim();
    }
}
