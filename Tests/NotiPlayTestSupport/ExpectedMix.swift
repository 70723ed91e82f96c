import Foundation

/// The mix a device should have been given, built from the sounds (each at its volume and its
/// place in the stream), and how far what it was given is from it.
public enum ExpectedMix {
    /// `sound` (interleaved, `channels` channels) at `volume`, placed `offset` frames into `mix`
    /// (interleaved alike) and added to it; what falls past the end of `mix` is left out.
    public static func add(_ sound: [Float], volume: Float, at offset: Int, into mix: inout [Float], channels: Int = 2) {
        for (index, sample) in sound.enumerated() where channels * offset + index < mix.count {
            mix[channels * offset + index] += sample * volume
        }
    }

    /// RMS of a − b over the shorter of the two, in dB relative to full scale.
    public static func differenceDB(_ a: [Float], _ b: [Float]) -> Double {
        let n = min(a.count, b.count)
        let sum = (0..<n).reduce(0.0) { $0 + Double(a[$1] - b[$1]) * Double(a[$1] - b[$1]) }
        return 10 * log10(sum / Double(max(1, n)))
    }
}
