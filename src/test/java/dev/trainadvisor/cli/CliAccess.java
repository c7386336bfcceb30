package dev.trainadvisor.cli;

/** The command line run in-process with its output captured (CliTest's), for the tests of other packages. */
public final class CliAccess {
    private CliAccess() {}

    public record Result(int code, String out, String err) {}

    public static Result run(String... args) {
        CliTest.Result r = CliTest.run(args);
        return new Result(r.code(), r.out(), r.err());
    }
}
