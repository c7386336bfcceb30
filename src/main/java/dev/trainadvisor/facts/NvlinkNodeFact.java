package dev.trainadvisor.facts;

/**
 * The catalogue's NVLink (SXM) node of the run's GPU generation: the same GPU where it is sold in such nodes, else the
 * smallest of its architecture with at least its memory (spec.Catalog#nvlinkSibling). Present wherever the catalogue
 * has one; rules/remedies.drl decides where moving to it answers the run.
 *
 * @param gpu  its GPU's catalogue key
 * @param link its NVLink generation ("NVLink3")
 */
public record NvlinkNodeFact(String gpu, String link) {}
