package dev.mortise.lock.tck.server;

/**
 * A test server's binary is not installed. Tests fail with this — never skip — and the
 * message says how to install it.
 */
public final class MissingServerException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public MissingServerException(String binary, String debianPackage) {
        super("Test server binary '" + binary + "' was not found on PATH or in the usual directories. Install it with "
                + "'sudo apt-get install -y " + debianPackage + "', or run ./scripts/test-all.sh, which installs every "
                + "server the tests need and then runs them.");
    }
}
