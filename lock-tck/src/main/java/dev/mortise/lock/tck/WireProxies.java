package dev.mortise.lock.tck;

import dev.mortise.lock.tck.server.StallingProxy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The wire of one client of the wire-level fault suite ({@link WireFaultContract}): a
 * {@link StallingProxy} in front of each server the backend talks to (one for a single server,
 * one per node of a Redis Cluster or per Redlock server), struck together. A fault armed here is
 * armed on every proxy; it strikes where a request naming the key goes (the node that owns the
 * key's slot, or every Redlock server), and the counts add up over the proxies. Thread-safe.
 */
final class WireProxies implements AutoCloseable {

    private final Map<Integer, StallingProxy> byServerPort = new LinkedHashMap<>();

    /** A proxy in front of each of {@code serverPorts}. */
    WireProxies(List<Integer> serverPorts) throws IOException {
        try {
            for (int port : serverPorts) {
                byServerPort.put(port, new StallingProxy(port));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Each server's port mapped to the port of the proxy in front of it, in the order given. */
    Map<Integer, Integer> proxyPorts() {
        Map<Integer, Integer> ports = new LinkedHashMap<>();
        byServerPort.forEach((server, proxy) -> ports.put(server, proxy.port()));
        return Collections.unmodifiableMap(ports);
    }

    private void each(Consumer<StallingProxy> action) {
        byServerPort.values().forEach(action);
    }

    /** {@link StallingProxy#cutReply} on every proxy. */
    void cutReply(String marker) {
        each(p -> p.cutReply(marker));
    }

    /** {@link StallingProxy#holdReply} on every proxy. */
    void holdReply(String marker) {
        each(p -> p.holdReply(marker));
    }

    /**
     * The answer that tells a waiting client it is granted: the reply to its next request naming
     * the key ({@code reply}: an attempt after a wake-up), or the next message naming the key that
     * the server sends it (a hand-off, a watch event). It is held until {@link #letGo()} ({@code cut}
     * false) or lost with its connection ({@code cut} true).
     */
    void strikeTheAnswer(String marker, boolean cut, boolean reply) {
        each(p -> {
            if (cut && reply) {
                p.cutReply(marker);
            } else if (cut) {
                p.cutIncoming(marker);
            } else if (reply) {
                p.holdReply(marker);
            } else {
                p.holdIncoming(marker);
            }
        });
    }

    /** {@link StallingProxy#disarm()} on every proxy. */
    void disarm() {
        each(StallingProxy::disarm);
    }

    /** Replies and messages cut, over every proxy. */
    int cuts() {
        return byServerPort.values().stream().mapToInt(StallingProxy::cuts).sum();
    }

    /** Waits up to {@code timeout} until some proxy holds a chunk; true if one does. */
    boolean awaitHeld(Duration timeout) throws InterruptedException {
        return awaitStruck(timeout, false);
    }

    /** Waits up to {@code timeout} until some proxy holds a chunk ({@code cut} false) or cut one; true if so. */
    boolean awaitStruck(Duration timeout, boolean cut) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (StallingProxy proxy : byServerPort.values()) {
                if (cut ? proxy.cuts() > 0 : proxy.awaitHeld(Duration.ZERO)) {
                    return true;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(5);
        }
    }

    /**
     * Waits until the client has sent a request naming the marker of {@link #count(String)} (at most
     * {@code first}), then until it has sent none for {@code quiet} (it waits for a wake-up), at most
     * {@code max} more; returns either way (a client that polls is never quiet).
     */
    void awaitQuiet(Duration first, Duration quiet, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + first.toNanos();
        while (byServerPort.values().stream().mapToInt(StallingProxy::counted).sum() == 0
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() - deadline < 0) {
            Duration since = Duration.ofDays(1);
            for (StallingProxy proxy : byServerPort.values()) {
                since = since.compareTo(proxy.sinceLastCounted()) < 0 ? since : proxy.sinceLastCounted();
            }
            if (since.compareTo(quiet) >= 0) {
                return;
            }
            Thread.sleep(20);
        }
    }

    /** {@link StallingProxy#count(String)} on every proxy. */
    void count(String marker) {
        each(p -> p.count(marker));
    }

    /** {@link StallingProxy#letGo()} on every proxy. */
    void letGo() {
        each(StallingProxy::letGo);
    }

    /** {@link StallingProxy#dropHeld()} on every proxy. */
    void dropHeld() {
        each(StallingProxy::dropHeld);
    }

    /** {@link StallingProxy#silence()} on every proxy. */
    void silence() {
        each(StallingProxy::silence);
    }

    /** {@link StallingProxy#resume()} on every proxy. */
    void resume() {
        each(StallingProxy::resume);
    }

    /** Resumes, lets go and closes every proxy. */
    @Override
    public void close() {
        List<StallingProxy> proxies = new ArrayList<>(byServerPort.values());
        for (StallingProxy proxy : proxies) {
            proxy.resume();
            proxy.letGo();
            proxy.close();
        }
    }
}
