package dev.mortise.lock.bench.common;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Starts a child JVM with this JVM's classpath, for the ZooKeeper server and the handoff workers. */
public final class JavaProcess {

    private JavaProcess() {
    }

    public static ProcessBuilder builder(Class<?> main, List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Child JVMs log as quietly as the parent: server banners would drown the progress lines.
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        return new ProcessBuilder(command);
    }

    public static Process start(Class<?> main, List<String> jvmOptions, List<String> args) throws IOException {
        return builder(main, jvmOptions, args).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
