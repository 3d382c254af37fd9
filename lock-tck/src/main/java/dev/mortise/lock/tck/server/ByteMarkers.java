package dev.mortise.lock.tck.server;

/** Whether a chunk read off a wire holds a marker ({@link StallingProxy}'s faults strike on one). Stateless. */
final class ByteMarkers {

    private ByteMarkers() {
    }

    /** Whether {@code buffer}'s first {@code length} bytes contain {@code wanted}; false if it is null. */
    static boolean contains(byte[] buffer, int length, byte[] wanted) {
        if (wanted == null) {
            return false;
        }
        outer:
        for (int i = 0; i + wanted.length <= length; i++) {
            for (int j = 0; j < wanted.length; j++) {
                if (buffer[i + j] != wanted[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
