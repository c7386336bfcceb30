package dev.trainadvisor.cli;

/** The exit codes as every command's --help lists them (picocli's exitCodeList: "code:meaning"). */
final class ExitCodes {
    private ExitCodes() {}

    static final String HEADING = "%nExit codes:%n";
    static final String OK = " 0:done";
    static final String FAIL_ON = " 1:a cause of the --fail-on severity or worse was found";
    static final String BAD_INPUT = " 2:bad input or usage: the message names the file, the field or the option, and what "
            + "was expected";
    static final String BATCH_BAD = " 2:bad usage, or a file of the folder could not be advised (the others are; the "
            + "report lists it)";
}
