package dev.mortise.lock.tck.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free loopback port in front of one server (redis-server, etcd, any TCP
 * protocol; adapted from lock-chaos's {@code ChaosProxy}), for reproducing a request whose
 * reply comes late: {@link #stall(String, long)} holds the next client-to-server chunk that
 * contains a marker (a Redis script's SHA-1, a lock key) for a while before forwarding it, and
 * {@link #hold(String)} holds it until {@link #letGo()}. Only that connection waits (its later
 * bytes queue behind, in order); every other connection flows freely, so a command sent on
 * another connection meanwhile reaches the server first, exactly as a slow link or a stalled
 * socket buffer would let it. The held request has not reached the server yet: once let go, the
 * server applies it and its reply comes back late. Thread-safe; a test utility.
 */
public final class StallingProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger stallsLeft = new AtomicInteger();
    private final AtomicInteger stallsDone = new AtomicInteger();
    private final AtomicInteger dropsLeft = new AtomicInteger();
    private final AtomicInteger drops = new AtomicInteger();
    private volatile byte[] dropMarker;
    private volatile byte[] replyMarker;
    private final AtomicInteger replyHoldsLeft = new AtomicInteger();
    private volatile byte[] incomingMarker;
    private final AtomicInteger incomingHoldsLeft = new AtomicInteger();
    private volatile byte[] incomingCutMarker;
    private final AtomicInteger incomingCutsLeft = new AtomicInteger();
    private volatile byte[] countedMarker;
    private final AtomicInteger counted = new AtomicInteger();
    private volatile long lastCountedNanos;
    private volatile byte[] marker;
    private volatile long stallMillis;
    private volatile byte[] cutMarker;
    private volatile boolean dropHeld;
    private final AtomicInteger cutsLeft = new AtomicInteger();
    private final AtomicInteger cuts = new AtomicInteger();
    /** Open while traffic flows; {@link #silence()} replaces it with a closed one until {@link #resume()}. */
    private volatile CountDownLatch flowing = new CountDownLatch(0);
    private volatile long startStallMillis;
    private volatile boolean closed;
    private volatile CountDownLatch held = new CountDownLatch(1);
    private volatile CountDownLatch letGo = new CountDownLatch(0);
    /**
     * Runs on the pump right after a hold told {@link #awaitHeld} (nothing by default): the moment a test
     * thread woken by it may already run on, for {@code StallingProxyTest} to act in.
     */
    volatile Runnable afterHeld = () -> { };

    /** A proxy to {@code 127.0.0.1:port}, listening on a free loopback port. */
    public StallingProxy(int port) throws IOException {
        this.target = new InetSocketAddress("127.0.0.1", port);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "stalling-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The loopback port clients connect to instead of the server's. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code 127.0.0.1:<port>} of the proxy. */
    public String hostPort() {
        return "127.0.0.1:" + port();
    }

    /** The proxy as a Redis address, {@code redis://127.0.0.1:<port>}. */
    public String redisAddress() {
        return "redis://" + hostPort();
    }

    /**
     * The next chunk (on any connection) containing {@code marker} is held until
     * {@link #letGo()} (or {@link #close()}); {@link #awaitHeld} tells when it is.
     */
    public void hold(String marker) {
        held = new CountDownLatch(1);
        letGo = new CountDownLatch(1);
        stall(marker, Long.MAX_VALUE);
    }

    /**
     * The reply to the next chunk containing {@code marker} is held until {@link #letGo()}: the
     * request reaches the server (which applies it) but the next server-to-client chunk of its
     * connection, and all after it, wait — an answer still on its way back. {@link #awaitHeld}
     * tells when the reply is held.
     */
    public void holdReply(String marker) {
        dropHeld = false;
        held = new CountDownLatch(1);
        letGo = new CountDownLatch(1);
        this.replyMarker = marker.getBytes(StandardCharsets.UTF_8);
        replyHoldsLeft.set(1);
    }

    /**
     * The next server-to-client chunk (on any connection) containing {@code marker} is held until
     * {@link #letGo()}, and every later one of its connection behind it: a pub/sub message, say, that
     * comes late while other connections flow. {@link #awaitHeld} tells when it is held.
     */
    public void holdIncoming(String marker) {
        held = new CountDownLatch(1);
        letGo = new CountDownLatch(1);
        this.incomingMarker = marker.getBytes(StandardCharsets.UTF_8);
        incomingHoldsLeft.set(1);
    }

    /**
     * The next server-to-client chunk (on any connection) containing {@code marker} is thrown away
     * and its connection closed: a wake-up, an event or an answer lost with its connection, after
     * the server acted on what the client sent. {@link #cuts()} counts it.
     */
    public void cutIncoming(String marker) {
        this.incomingCutMarker = marker.getBytes(StandardCharsets.UTF_8);
        incomingCutsLeft.set(1);
    }

    /**
     * Forgets the one-shot faults armed and not yet struck ({@link #cutReply}, {@link #cutIncoming},
     * {@link #holdReply}, {@link #holdIncoming}, {@link #stall}, {@link #drop}); one already struck
     * goes on (a held answer stays held until {@link #letGo()}).
     */
    public void disarm() {
        cutsLeft.set(0);
        incomingCutsLeft.set(0);
        replyHoldsLeft.set(0);
        incomingHoldsLeft.set(0);
        stallsLeft.set(0);
        dropsLeft.set(0);
    }

    /**
     * Counts, from now on, the client-to-server chunks (on any connection) that contain
     * {@code marker}; {@link #counted()} and {@link #sinceLastCounted()} read the count.
     */
    public void count(String marker) {
        counted.set(0);
        this.countedMarker = marker.getBytes(StandardCharsets.UTF_8);
    }

    /** How many chunks containing the marker of {@link #count(String)} went to the server. */
    public int counted() {
        return counted.get();
    }

    /** How long ago the last chunk counted by {@link #count(String)} went to the server (long if none did). */
    public Duration sinceLastCounted() {
        return counted.get() == 0 ? Duration.ofDays(1) : Duration.ofNanos(System.nanoTime() - lastCountedNanos);
    }

    /** Waits up to {@code timeout} until a chunk is held by {@link #hold(String)}; true if it is. */
    public boolean awaitHeld(Duration timeout) throws InterruptedException {
        return held.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Ends a hold by throwing the held chunk away and closing its connection: an answer that was
     * late and then never came (the client sees the connection break, and may resend).
     */
    public void dropHeld() {
        dropHeld = true;
        letGo.countDown();
    }

    /** Forwards the chunk held by {@link #hold(String)} (its reply then comes back late). */
    public void letGo() {
        letGo.countDown();
    }

    /** The next chunk (on any connection) containing {@code marker} is held {@code millis} before it is sent on. */
    public void stall(String marker, long millis) {
        this.marker = marker.getBytes(StandardCharsets.UTF_8);
        this.stallMillis = millis;
        stallsLeft.set(1);
    }

    /**
     * The first client-to-server chunk of every connection accepted from now on (a TLS
     * {@code ClientHello}, a Redis {@code HELLO}) is held {@code millis} before it is sent on: the
     * connection opens at once, but its set-up (TLS and Redis handshakes) finishes that much later,
     * as on a slow link or a cold, busy client. 0 turns it off.
     */
    public void stallConnectionStarts(long millis) {
        this.startStallMillis = millis;
    }

    /**
     * The next chunk containing {@code marker} is thrown away and its connection closed: the
     * command never reaches the server, and the client sees the connection reset.
     */
    public void drop(String marker) {
        this.dropMarker = marker.getBytes(StandardCharsets.UTF_8);
        dropsLeft.set(1);
    }

    /**
     * The next chunk (on any connection) containing {@code marker} reaches the server, which
     * applies it; its reply is then thrown away and the connection closed: a request applied,
     * then the connection broken before the answer. {@link #cuts()} counts the replies cut.
     */
    public void cutReply(String marker) {
        this.cutMarker = marker.getBytes(StandardCharsets.UTF_8);
        cutsLeft.set(1);
    }

    /** How many replies {@link #cutReply} and messages {@link #cutIncoming} threw away. */
    public int cuts() {
        return cuts.get();
    }

    /**
     * Every connection stops carrying bytes either way, as if the client process had stopped
     * (nothing it sends arrives, nothing the server sends is read), until {@link #resume()}: then
     * what queued up flows on in order, stale answers and events included. New connections are
     * accepted but carry nothing meanwhile.
     */
    public void silence() {
        if (flowing.getCount() == 0) {
            flowing = new CountDownLatch(1);
        }
    }

    /** Ends a {@link #silence()}. */
    public void resume() {
        flowing.countDown();
    }

    /** How many chunks were dropped. */
    public int drops() {
        return drops.get();
    }

    /** How many stalled chunks have been forwarded since the proxy started. */
    public int stallsDone() {
        return stallsDone.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(target, 5000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            sockets.add(client);
            sockets.add(server);
            AtomicBoolean holdNextReply = new AtomicBoolean();
            AtomicBoolean cutNextReply = new AtomicBoolean();
            pump(client, server, true, holdNextReply, cutNextReply, startStallMillis);
            pump(server, client, false, holdNextReply, cutNextReply, 0);
        }
    }

    /**
     * @param holdNextReply set upstream when a request's reply is to be held, taken downstream
     * @param cutNextReply  set upstream when a request's reply is to be cut, taken downstream
     * @param firstStall    how long the first chunk waits before it is sent on (0: not at all)
     */
    private void pump(Socket from, Socket to, boolean upstream, AtomicBoolean holdNextReply,
                      AtomicBoolean cutNextReply, long firstStall) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                boolean first = true;
                while ((n = in.read(buffer)) >= 0) {
                    if (first && firstStall > 0) {
                        Thread.sleep(firstStall);
                    }
                    first = false;
                    flowing.await();
                    if (upstream && countedMarker != null && ByteMarkers.contains(buffer, n, countedMarker)) {
                        lastCountedNanos = System.nanoTime();
                        counted.incrementAndGet();
                    }
                    if (!upstream && incomingCutsLeft.get() > 0 && ByteMarkers.contains(buffer, n, incomingCutMarker)
                            && incomingCutsLeft.getAndUpdate(c -> Math.max(0, c - 1)) > 0) {
                        cuts.incrementAndGet();
                        break; // the message is lost with its connection
                    }
                    if (!upstream && cutNextReply.compareAndSet(true, false)) {
                        cuts.incrementAndGet();
                        break; // the reply is lost with its connection
                    }
                    if (upstream && cutsLeft.get() > 0 && ByteMarkers.contains(buffer, n, cutMarker)
                            && cutsLeft.getAndUpdate(c -> Math.max(0, c - 1)) > 0) {
                        cutNextReply.set(true); // before the request leaves: its reply cannot pass first
                    }
                    if (upstream && dropsLeft.get() > 0 && ByteMarkers.contains(buffer, n, dropMarker)
                            && dropsLeft.getAndUpdate(s -> Math.max(0, s - 1)) > 0) {
                        drops.incrementAndGet();
                        break;
                    }
                    boolean stalled = upstream && stallsLeft.get() > 0 && ByteMarkers.contains(buffer, n, marker)
                            && stallsLeft.getAndUpdate(s -> Math.max(0, s - 1)) > 0;
                    if (upstream && replyHoldsLeft.get() > 0 && ByteMarkers.contains(buffer, n, replyMarker)
                            && replyHoldsLeft.getAndUpdate(s -> Math.max(0, s - 1)) > 0) {
                        holdNextReply.set(true); // before the request leaves: its reply cannot pass first
                    }
                    if (!upstream && incomingHoldsLeft.get() > 0 && ByteMarkers.contains(buffer, n, incomingMarker)
                            && incomingHoldsLeft.getAndUpdate(s -> Math.max(0, s - 1)) > 0) {
                        holdHere();
                    }
                    if (!upstream && holdNextReply.compareAndSet(true, false)) {
                        holdHere();
                        if (dropHeld) {
                            cuts.incrementAndGet();
                            break; // the late answer never comes: the connection breaks instead
                        }
                    }
                    if (stalled) {
                        if (stallMillis == Long.MAX_VALUE) {
                            holdHere();
                        } else {
                            Thread.sleep(stallMillis);
                        }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    if (stalled) {
                        stallsDone.incrementAndGet();
                    }
                }
            } catch (IOException | InterruptedException e) {
                // closed by either side or by close()
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "stalling-proxy-" + port() + (upstream ? "-up" : "-down"));
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * On a pump: tells {@link #awaitHeld} that the chunk is held, and holds it until {@link #letGo()}.
     * The release is this hold's own, read before the test thread is told: woken, that thread may let
     * go and arm the next hold (a new latch) before this pump runs on, which must not keep this chunk
     * until the next hold's letGo.
     */
    private void holdHere() throws InterruptedException {
        CountDownLatch release = letGo;
        held.countDown();
        afterHeld.run();
        release.await();
    }

    private static void closeQuietly(java.io.Closeable socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        letGo.countDown();
        flowing.countDown();
        closeQuietly(listener);
        sockets.forEach(StallingProxy::closeQuietly);
    }
}
