package dev.mortise.lock.vthreads;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A JFR recording of every {@code jdk.VirtualThreadPinned} event (threshold 0, with stack
 * traces) while a run lasts, and what it found: all pins; those with one of Mortise's frames
 * ({@code dev.mortise.}) on the stack, by the innermost such frame; and of those, the pins in
 * Mortise's own code (the innermost frame outside the JDK is Mortise's, not a library's). Not thread-safe:
 * one run starts and reads it.
 */
final class PinnedEvents {

    static final String EVENT = "jdk.VirtualThreadPinned";

    private final Recording recording = new Recording();
    private int total;
    private int inMortiseCode;
    private final Map<String, Integer> onMortisePaths = new TreeMap<>();

    /** Starts recording (the JDK must know the event: 21 or later). */
    static PinnedEvents start() {
        PinnedEvents events = new PinnedEvents();
        events.recording.enable(EVENT).withThreshold(Duration.ZERO).withStackTrace();
        events.recording.start();
        return events;
    }

    /** Stops recording and reads the events. */
    void stop() throws IOException {
        recording.stop();
        Path file = Files.createTempFile("mortise-vthreads", ".jfr");
        try {
            recording.dump(file);
            for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                if (event.getEventType().getName().equals(EVENT)) {
                    count(event);
                }
            }
        } finally {
            recording.close();
            Files.deleteIfExists(file);
        }
    }

    private void count(RecordedEvent event) {
        total++;
        if (event.getStackTrace() == null) {
            return;
        }
        List<RecordedFrame> frames = event.getStackTrace().getFrames();
        for (RecordedFrame frame : frames) {
            String type = frame.getMethod().getType().getName();
            if (type.startsWith("dev.mortise.") && !type.startsWith("dev.mortise.lock.vthreads.")) {
                String where = type + "." + frame.getMethod().getName() + ":" + frame.getLineNumber();
                onMortisePaths.merge(where + " [" + field(event, "pinnedReason") + "; "
                        + field(event, "blockingOperation") + "; innermost " + describe(frames.get(0)) + "]", 1,
                        Integer::sum);
                if (innermostLibraryFrame(frames).startsWith("dev.mortise.")) {
                    inMortiseCode++;
                }
                return;
            }
        }
    }

    /**
     * The innermost frame outside the JDK ({@code java.}, {@code jdk.}, {@code sun.}): whose code
     * pinned, Mortise's or a library's it called (a JDBC driver, an embedded database, a client).
     */
    private static String innermostLibraryFrame(List<RecordedFrame> frames) {
        for (RecordedFrame frame : frames) {
            String type = frame.getMethod().getType().getName();
            if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
                return type;
            }
        }
        return "";
    }

    /** A field the JDK 24+ event has (why it pinned, what blocked), or "?" on a JDK without it. */
    private static String field(RecordedEvent event, String name) {
        return event.hasField(name) ? String.valueOf((Object) event.getValue(name)) : "?";
    }

    private static String describe(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
    }

    int total() {
        return total;
    }

    /** Pins whose innermost non-JDK frame is Mortise's own code (not a library it called). */
    int inMortiseCode() {
        return inMortiseCode;
    }

    int onMortisePaths() {
        return onMortisePaths.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Mortise's innermost frame of each pin on its paths, with how often it was seen. */
    Map<String, Integer> byFrame() {
        return onMortisePaths;
    }
}
