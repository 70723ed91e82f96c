import NotiPlayDecoder

/// The bytes libFuzzer hands a target, as the decoder's input. Unless they already start with
/// one of `magics`, the first is forced onto the front, so that every mutation exercises that
/// container's parser rather than the "not a sound file" refusal.
public func fuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int, magics: [String]) -> [UInt8] {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let codes = magics.map { Array($0.utf8) }
    if !codes.contains(where: { bytes.starts(with: $0) }) {
        for (index, byte) in codes[0].enumerated() where index < bytes.count { bytes[index] = byte }
    }
    return bytes
}

/// Parses `bytes` and decodes every frame, alternating Float32 and Int16 reads of odd sizes
/// (so packets are split across reads and decoded again in the other type), then rewinds and
/// decodes once more with readAll. A DecodingError is a fine outcome; a crash, an ASan report,
/// a hang or more frames than the header announced are not.
public func decodeEverything(_ bytes: [UInt8]) -> Int {
    guard let decoder = try? SoundDecoder(bytes: bytes) else { return 0 }
    let d = decoder.description
    precondition(d.channelCount >= 1 && d.frameCount >= 0 && d.bytesPerPacket >= 1 && d.framesPerPacket >= 1)
    precondition(d.dataOffset >= 0 && d.dataOffset + d.dataByteCount <= bytes.count)
    let sizes = [1, 7, 63, 65, 1000]
    var floats = [Float](repeating: 0, count: 1000 * d.channelCount)
    var shorts = [Int16](repeating: 0, count: 1000 * d.channelCount)
    var total = 0
    var turn = 0
    do {
        while true {
            let frames = sizes[turn % sizes.count]
            let samples = frames * d.channelCount
            let n: Int
            if turn % 2 == 0 {
                n = try floats.withUnsafeMutableBufferPointer { all in
                    try decoder.read(into: UnsafeMutableBufferPointer(rebasing: all[..<samples]))
                }
                // Integer, G.711 and IMA codecs stay within ±1; only float PCM may carry anything.
                if !isFloatPCM(d.encoding) {
                    for value in floats[..<(n * d.channelCount)] {
                        precondition(value >= -1 && value <= 1, "sample \(value) out of range for \(d.encoding)")
                    }
                }
            } else {
                n = try shorts.withUnsafeMutableBufferPointer { all in
                    try decoder.read(into: UnsafeMutableBufferPointer(rebasing: all[..<samples]))
                }
            }
            precondition(n <= frames)
            if n == 0 { break }
            total += n
            turn += 1
        }
        precondition(total == d.frameCount, "decoded \(total) frames of \(d.frameCount)")
        decoder.rewind()
        let again = try decoder.readAll()
        precondition(again.count == d.frameCount * d.channelCount)
    } catch {
        // A read can fail only with an I/O error, which memory never gives.
        preconditionFailure("read failed after a successful parse: \(error)")
    }
    return total
}

func isFloatPCM(_ encoding: Encoding) -> Bool {
    if case .linearPCM(let format) = encoding { return format.isFloat }
    return false
}
