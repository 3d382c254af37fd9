package dev.mortise.lock.tck;

import dev.mortise.lock.DeadlockDetection;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spi.LockBackend;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * One owner of a cross-process deadlock test, in a JVM of its own ({@link CrossProcessDeadlockContract}
 * starts it): builds its backend with the factory named in its arguments, takes one key, says
 * {@code HELD <holderId>}, waits for {@code GO} on its input, then waits for another key and says
 * {@code GRANTED}, {@code DEADLOCK <members> <waited ms>} or {@code FAILED <exception>}, lets go of
 * everything and says {@code DONE}.
 *
 * <p>Arguments: the factory class (a public {@code Supplier<LockBackend>} with a public no-argument
 * constructor; it reads its server's address from system properties), the held key, its mode
 * ({@code EXCLUSIVE}/{@code SHARED}), the wanted key, its mode, the detection threshold in ms.
 */
public final class DeadlockParty {

    private DeadlockParty() {
    }

    public static void main(String[] args) throws Exception {
        @SuppressWarnings("unchecked")
        Supplier<LockBackend> factory = (Supplier<LockBackend>) Class.forName(args[0]).getConstructor().newInstance();
        Duration threshold = Duration.ofMillis(Long.parseLong(args[5]));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (LockClient client = LockClient.builder(factory.get()).defaultLease(Duration.ofSeconds(5))
                .deadlockDetection(DeadlockDetection.after(threshold).every(Duration.ofMillis(250))).build();
             LockLease held = client.acquire(LockSpec.of(args[1]).mode(LockMode.valueOf(args[2]))
                     .waitFor(Duration.ofSeconds(30)))) {
            say("HELD " + held.holderId());
            if (!"GO".equals(in.readLine())) {
                say("FAILED no GO");
                return;
            }
            long start = System.nanoTime();
            try (LockLease got = client.acquire(LockSpec.of(args[3]).mode(LockMode.valueOf(args[4]))
                    .waitFor(Duration.ofSeconds(60)))) {
                say("GRANTED " + got.fencingToken());
            } catch (LockDeadlockException e) {
                say("DEADLOCK " + e.cycle().members().size() + " " + (System.nanoTime() - start) / 1_000_000);
            }
        } catch (Exception e) {
            say("FAILED " + e.toString().replace('\n', ' '));
        }
        say("DONE");
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
