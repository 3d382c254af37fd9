package dev.mortise.lock.architecture;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waits that pin a virtual thread's carrier on JDK 21 to 23: calls of {@code Object.wait} (a
 * thread waiting inside a monitor), {@code Thread.join} (which waits inside the joined thread's
 * monitor there) and {@code TimeUnit}'s {@code timedWait}/{@code timedJoin} (the same, timed), found in a module's compiled classes by their constant pool. A
 * user's thread may be virtual, so the paths it runs wait with {@code java.util.concurrent}
 * (docs/virtual-threads.md). What this cannot see: a monitor held across other blocking calls
 * (I/O, a future's get); those are listed and fixed by reading the code.
 *
 * <p>Stateless; thread-safe.
 */
public final class MonitorWaits {

    private static final int MAGIC = 0xCAFEBABE;
    private static final Set<String> PINNING = Set.of("java/lang/Object.wait", "java/lang/Thread.join",
            "java/util/concurrent/TimeUnit.timedWait", "java/util/concurrent/TimeUnit.timedJoin");

    private MonitorWaits() {
    }

    /**
     * Fails naming every class of {@code anchor}'s module (the directory or jar it was loaded
     * from) that calls {@code Object.wait} or {@code Thread.join}, except those in
     * {@code allowed} (binary name to why: e.g. it runs only on a thread of Mortise's own).
     */
    public static void assertNone(Class<?> anchor, Map<String, String> allowed) {
        List<String> found = new ArrayList<>();
        for (String caller : callers(location(anchor))) {
            if (!allowed.containsKey(caller.substring(0, caller.indexOf(' ')))) {
                found.add(caller);
            }
        }
        assertThat(found).as("waits that pin a virtual thread's carrier on JDK 21-23 (use java.util.concurrent "
                + "locks, conditions or latches instead, docs/virtual-threads.md)").isEmpty();
    }

    /** Every {@code <binary class name> calls <owner>.<method>} in the class files under {@code base}. */
    static List<String> callers(Path base) {
        List<String> callers = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(base)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".class")).toList()) {
                String relative = base.relativize(file).toString().replace('\\', '/');
                String binary = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
                try (InputStream in = Files.newInputStream(file)) {
                    for (String method : calledMethods(in)) {
                        if (PINNING.contains(method)) {
                            callers.add(binary + " calls " + method.replace('/', '.'));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes in " + base, e);
        }
        return callers;
    }

    /** The methods (as {@code owner/Class.name}) that a class file's constant pool refers to. */
    static Set<String> calledMethods(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        if (in.readInt() != MAGIC) {
            throw new IOException("not a class file (bad magic number)");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] first = new int[count];
        int[] second = new int[count];
        int[] tags = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            tags[i] = tag;
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7, 8, 16, 19, 20 -> first[i] = in.readUnsignedShort();
                case 15 -> in.skipNBytes(3);
                case 9, 10, 11, 12 -> {
                    first[i] = in.readUnsignedShort();
                    second[i] = in.readUnsignedShort();
                }
                case 3, 4, 17, 18 -> in.skipNBytes(4);
                case 5, 6 -> {
                    in.skipNBytes(8);
                    i++;
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        Set<String> methods = new TreeSet<>();
        for (int i = 1; i < count; i++) {
            if (tags[i] == 10 || tags[i] == 11) {
                String owner = utf8[first[first[i]]];
                String name = utf8[first[second[i]]];
                methods.add(owner + "." + name);
            }
        }
        return methods;
    }

    private static Path location(Class<?> anchor) {
        try {
            return Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cannot locate the classes of " + anchor, e);
        }
    }
}
