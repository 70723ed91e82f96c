/// Two ways to expand WAV IMA ADPCM (tag 0x0011) blocks, written here from the IMA/DVI
/// description so the tests can tell which one a reference decoder uses:
/// - `shiftAndAdd`: diff = step>>3, plus step, step>>1, step>>2 for nibble bits 2, 1, 0 (the IMA
///   reference; libsndfile, SoX);
/// - `multiply`: diff = ((2·magnitude + 1)·step) >> 3 (ffmpeg's adpcm_ima_wav). It differs from
///   the reference in the low bits, and the difference carries to the end of the block.
public enum IMAForm: Sendable {
    case shiftAndAdd, multiply

    static let steps: [Int] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66,
        73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408,
        449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066,
        2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630,
        9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794,
        32767,
    ]
    static let indexChange = [-1, -1, -1, -1, 2, 4, 6, 8]

    func difference(_ nibble: Int, step: Int) -> Int {
        switch self {
        case .multiply: return ((2 * (nibble & 7) + 1) * step) >> 3
        case .shiftAndAdd:
            var diff = step >> 3
            if nibble & 4 != 0 { diff += step }
            if nibble & 2 != 0 { diff += step >> 1 }
            if nibble & 1 != 0 { diff += step >> 2 }
            return diff
        }
    }

    /// Decodes whole and short blocks of `data` to interleaved samples, full scale ±1.0.
    public func decodeWAV(_ data: [UInt8], blockAlign: Int, channels: Int) -> [Float] {
        var out: [Float] = []
        var blockStart = 0
        while blockStart + 4 * channels <= data.count {
            let block = Array(data[blockStart..<min(blockStart + blockAlign, data.count)])
            let frames = 1 + (block.count - 4 * channels) / (4 * channels) * 8
            var samples = [[Int]](repeating: [], count: channels)
            for c in 0..<channels {
                var predictor = Int(Int16(bitPattern: UInt16(block[4 * c]) | UInt16(block[4 * c + 1]) << 8))
                var index = min(max(Int(block[4 * c + 2]), 0), 88)
                samples[c].append(predictor)
                // After the headers, 4 bytes per channel in turn, 8 samples each, low nibble first.
                var group = 4 * channels + 4 * c
                while samples[c].count < frames {
                    for byte in block[group..<group + 4] {
                        for nibble in [Int(byte & 0x0F), Int(byte >> 4)] {
                            let diff = difference(nibble, step: IMAForm.steps[index])
                            predictor = min(max(nibble & 8 != 0 ? predictor - diff : predictor + diff, -32768), 32767)
                            index = min(max(index + IMAForm.indexChange[nibble & 7], 0), 88)
                            samples[c].append(predictor)
                        }
                    }
                    group += 4 * channels
                }
            }
            for f in 0..<frames {
                for c in 0..<channels { out.append(Float(samples[c][f]) / 32768) }
            }
            blockStart += blockAlign
        }
        return out
    }
}

/// Just enough of RIFF WAVE to find a tool's IMA ADPCM blocks: block align and the `data` body.
public enum RIFFChunks {
    public static func imaBlocks(_ bytes: [UInt8]) -> (blockAlign: Int, channels: Int, data: [UInt8])? {
        func le32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func le16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        var offset = 12
        var format: (blockAlign: Int, channels: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = le32(offset + 4)
            let body = offset + 8
            if id == "fmt " { format = (le16(body + 12), le16(body + 2)) }
            if id == "data", let format {
                // A streamed file's size is 0xFFFFFFFF: the data runs to the end.
                let end = size == 0xFFFF_FFFF ? bytes.count : min(bytes.count, body + size)
                return (format.blockAlign, format.channels, Array(bytes[body..<end]))
            }
            offset = body + size + (size & 1)
        }
        return nil
    }
}
