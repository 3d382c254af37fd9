package dev.mortise.lock.tck.server;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A private PostgreSQL cluster (Debian package {@code postgresql}): {@code initdb} into
 * its own directory, {@code postgres} on a free loopback port, trust authentication for
 * user {@code postgres}, durability settings off for speed unless {@link #durable()} asks for
 * them. PostgreSQL refuses to run as root, so as root it runs as the {@code postgres} system
 * user.
 */
public final class PostgresServer extends ServerProcess {

    private final Path initdb = Binaries.require("initdb", "postgresql");
    private final Path postgres = Binaries.require("postgres", "postgresql");
    private final Path pgIsReady = Binaries.require("pg_isready", "postgresql");

    private boolean durable;

    public PostgresServer() {
        super("postgresql", FreePorts.next());
    }

    /**
     * Runs with PostgreSQL's durable defaults ({@code fsync}, {@code synchronous_commit},
     * {@code full_page_writes} on), so a kill -9 loses no acknowledged commit: for crash tests.
     * Call before start. Without it the server trades durability for speed.
     */
    public PostgresServer durable() {
        this.durable = true;
        return this;
    }

    /** {@code jdbc:postgresql://127.0.0.1:port/postgres}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    public String user() {
        return "postgres";
    }

    @Override
    protected void prepare() throws IOException, InterruptedException {
        if (RunAs.isRoot()) {
            run(List.of("chown", "-R", "postgres:postgres", dir.toString()), Duration.ofSeconds(30));
        }
        run(RunAs.postgres(List.of(initdb.toString(), "-D", dir.resolve("data").toString(), "-U", "postgres",
                "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C")), Duration.ofSeconds(120));
    }

    @Override
    protected List<String> command() {
        return RunAs.postgres(new ArrayList<>(List.of(postgres.toString(), "-D", dir.resolve("data").toString(),
                "-p", Integer.toString(port), "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=" + onOff(durable), "-c", "synchronous_commit=" + onOff(durable),
                "-c", "full_page_writes=" + onOff(durable),
                "-c", "max_connections=300", "-c", "shared_buffers=64MB")));
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }

    @Override
    protected boolean isReady() {
        return succeeds(List.of(pgIsReady.toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres",
                "-t", "1"));
    }

    /** Fast shutdown: SIGINT disconnects clients instead of waiting for them. */
    @Override
    protected String stopSignal() {
        return "INT";
    }
}
