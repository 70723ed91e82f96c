/// IMA ADPCM payloads built from nibbles, so a test says which code produces which sample.
enum IMABytes {
    /// Two nibbles a byte, the first in the low half: the order both IMA forms decode in.
    static func pack(_ nibbles: [UInt8]) -> [UInt8] {
        precondition(nibbles.count % 2 == 0)
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] & 0x0F | nibbles[$0 + 1] << 4 }
    }

    /// One channel's part of a WAV IMA ADPCM block.
    struct Channel {
        var predictor: Int16
        var stepIndex: UInt8
        /// A multiple of 8 nibbles: whole 4-byte groups.
        var nibbles: [UInt8]
    }

    /// A WAV IMA ADPCM block: each channel's 4-byte header (little-endian predictor, step index,
    /// reserved), then 4-byte groups of 8 nibbles, channel after channel.
    static func wavBlock(_ channels: [Channel]) -> [UInt8] {
        var w = ByteWriter(.little)
        for c in channels {
            w.i16(c.predictor)
            w.u8(c.stepIndex)
            w.u8(0)
        }
        let groups = channels[0].nibbles.count / 8
        for g in 0..<groups {
            for c in channels {
                precondition(c.nibbles.count == groups * 8)
                w.raw(pack(Array(c.nibbles[(g * 8)..<(g * 8 + 8)])))
            }
        }
        return w.bytes
    }

    /// One channel's 34-byte Apple IMA4 packet: the big-endian header (predictor in the top nine
    /// bits, step index in the low seven), then 64 nibbles.
    static func ima4Packet(header: UInt16, nibbles: [UInt8]) -> [UInt8] {
        precondition(nibbles.count == 64)
        return ByteWriter.make(.big) { $0.u16(header) } + pack(nibbles)
    }
}

/// A fixed linear congruential sequence: the same "random" nibbles on every run.
struct Nibbles {
    private var state: UInt32

    init(seed: UInt32) { state = seed }

    /// The first `count` nibbles of the sequence for `seed`.
    static func take(_ count: Int, seed: UInt32) -> [UInt8] {
        var sequence = Nibbles(seed: seed)
        return sequence.next(count)
    }

    mutating func next(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(state >> 28)
        }
    }
}
