/**
 * train-advisor's API for Java callers: {@link dev.trainadvisor.api.TrainAdvisor} (the entry point), {@link
 * dev.trainadvisor.api.Run} (a validated run, built in code or read from a run file or a training log), {@link
 * dev.trainadvisor.api.Advice} (what the advice concludes, read-only, and its reports) and {@link
 * dev.trainadvisor.api.InvalidInputException}. Its signatures name only its own types and Java's (ApiSignatureTest);
 * every other package of train-advisor is internal. docs/library.md is the guide.
 */
package dev.trainadvisor.api;
