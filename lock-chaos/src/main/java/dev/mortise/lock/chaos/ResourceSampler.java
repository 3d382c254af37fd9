package dev.mortise.lock.chaos;

import static dev.mortise.lock.chaos.WorkerLog.log;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.util.List;

/** A {@link ChaosWorker}'s resource lines for the soak ({@link Soak}): heap, threads, file descriptors, sockets. */
final class ResourceSampler {

    /** System property: sample this JVM's resources every so many millis (the soak); unset, none. */
    static final String RESOURCE_EVERY_MS = "mortise.chaos.resourceEveryMs";

    /** The resource lines a sampler logs, each with its figure as the value: what the soak plots. */
    static final List<String> RESOURCES = List.of("HEAP_BYTES", "THREADS", "FDS", "SOCKETS");

    private ResourceSampler() {
    }

    /**
     * With {@value #RESOURCE_EVERY_MS} set, a daemon thread logs this JVM's resources at that
     * interval, the first at once: the heap in use right after a full collection
     * ({@code System.gc()}, so garbage does not read as a leak), live threads, open file
     * descriptors and, of those, sockets (its connections).
     */
    static void start() {
        String every = System.getProperty(RESOURCE_EVERY_MS);
        if (every == null) {
            return;
        }
        long millis = Long.parseLong(every);
        Thread sampler = new Thread(() -> {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            while (true) {
                System.gc();
                Runtime rt = Runtime.getRuntime();
                long fds = 0;
                long sockets = 0;
                File[] open = new File("/proc/self/fd").listFiles();
                for (File fd : open == null ? new File[0] : open) {
                    fds++;
                    try {
                        if (Files.readSymbolicLink(fd.toPath()).toString().startsWith("socket:")) {
                            sockets++;
                        }
                    } catch (IOException e) {
                        // Closed while listed: not counted as a socket.
                    }
                }
                log("HEAP_BYTES", "-", 0, rt.totalMemory() - rt.freeMemory());
                log("THREADS", "-", 0, threads.getThreadCount());
                log("FDS", "-", 0, fds);
                log("SOCKETS", "-", 0, sockets);
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "chaos-resources");
        sampler.setDaemon(true);
        sampler.start();
    }
}
