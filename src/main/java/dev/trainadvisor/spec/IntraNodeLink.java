package dev.trainadvisor.spec;

/**
 * The link between GPUs of one node.
 *
 * @param kind what joins the GPUs
 * @param busbwGbps all-reduce bus bandwidth (nccl-tests definition) in GB/s: the catalogue's
 *                  measured value for a typical 8-GPU node, or the run's own measurement
 * @param busbwMeasured true when the run file gave {@code busbw_gbps}
 */
public record IntraNodeLink(String key, LinkKind kind, double unidirectionalGbps, double busbwGbps,
                            double alphaUs, boolean busbwMeasured, String source) {

    public boolean isNvlink() { return kind.direct(); }

    public IntraNodeLink withMeasuredBusbw(double gbps) {
        return new IntraNodeLink(key, kind, unidirectionalGbps, gbps, alphaUs, true, source);
    }
}
