package dev.trainadvisor.facts;

import dev.trainadvisor.perf.LinkScope;

/**
 * A derived fact (rules/communication.drl inserts it logically): the collectives bound by one link leave this much of
 * the step exposed.
 */
public record Bottleneck(LinkScope scope, String link, double exposedSeconds) {}
