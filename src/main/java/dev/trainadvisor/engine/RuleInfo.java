package dev.trainadvisor.engine;

/** A rule's metadata: the diagnosis id it emits, a title, why it holds, and the file it lives in. */
public record RuleInfo(String name, String id, String title, String description, String file) {}
