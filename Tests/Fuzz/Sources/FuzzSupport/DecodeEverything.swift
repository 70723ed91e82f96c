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
                // Integer, G.711 and IMA codecs stay within ±1; float PCM may carry any number,
                // but never NaN or infinity (those decode as silence).
                for value in floats[..<(n * d.channelCount)] {
                    precondition(value.isFinite, "non-finite sample \(value) from \(d.encoding)")
                    precondition(isFloatPCM(d.encoding) || (value >= -1 && value <= 1), "sample \(value) out of range for \(d.encoding)")
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
    checkZeroPadding(bytes, d)
    checkNonFiniteSamples(bytes, d)
    return total
}

/// The same file followed by zeros (`truncate -s`): the zeros are no chunks, so the sound it
/// describes is the same, or longer where its data runs to the end of the file. (It may fail
/// to parse where the file was cut inside a chunk header that the zeros complete.)
/// One exception: which three bytes of a 32-bit word hold a 24-bit sample is read from the
/// samples (Word24), and a file cut inside a word has that word completed by the zeros: new
/// evidence where the file's own samples said nothing (silence, or words that fit both).
func checkZeroPadding(_ bytes: [UInt8], _ d: StreamDescription) {
    guard let padded = try? SoundDecoder(bytes: bytes + [UInt8](repeating: 0, count: 64 * 1024)) else { return }
    let p = padded.description
    precondition(p.container == d.container && layoutAside(p.encoding) == layoutAside(d.encoding) && p.channelCount == d.channelCount
                 && p.sampleRate == d.sampleRate, "zeros after the file changed its format")
    precondition(p.frameCount >= d.frameCount, "zeros after the file shortened the sound: \(p.frameCount) of \(d.frameCount) frames")
}

/// `encoding` with a 24-in-32 layout left undecided.
func layoutAside(_ encoding: Encoding) -> Encoding {
    guard case .linearPCM(var pcm) = encoding, pcm.alignment24 != nil else { return encoding }
    pcm.alignment24 = .high
    return .linearPCM(pcm)
}

/// Float PCM with NaN, +Inf and -Inf written over every seventh sound sample: those decode as
/// 0 into Float and Int16, and are counted; no non-finite value comes out.
func checkNonFiniteSamples(_ bytes: [UInt8], _ d: StreamDescription) {
    guard case .linearPCM(let format) = d.encoding, format.isFloat, d.frameCount > 0 else { return }
    let width = format.bytesPerSample
    let first = d.primingFrames * d.channelCount
    let end = (d.primingFrames + d.frameCount) * d.channelCount
    var damaged = bytes
    var written: [Int] = []
    for (n, index) in stride(from: first, to: end, by: 7).enumerated() {
        // NaN, +Inf, -Inf as Float64 and as Float32.
        let value: UInt64 = width == 8
            ? [0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000][n % 3]
            : [0x7FC0_0000, 0x7F80_0000, 0xFF80_0000][n % 3]
        let at = d.dataOffset + index * width
        for b in 0..<width {
            let shift = format.isBigEndian ? (width - 1 - b) * 8 : b * 8
            damaged[at + b] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
        }
        written.append(index - first)
    }
    do {
        let decoder = try SoundDecoder(bytes: damaged)
        let floats = try decoder.readAll()
        precondition(floats.allSatisfy { $0.isFinite }, "a non-finite sample came out of \(d.encoding)")
        for index in written { precondition(floats[index] == 0, "sample \(index) written as NaN or infinity is \(floats[index])") }
        precondition(decoder.nonFiniteSampleCount >= written.count, "\(decoder.nonFiniteSampleCount) non-finite samples counted, \(written.count) written")
        decoder.rewind()
        var shorts = [Int16](repeating: 1, count: 5 * d.channelCount)
        var offset = 0
        while case let n = try shorts.withUnsafeMutableBufferPointer({ try decoder.read(into: $0) }), n > 0 {
            for index in written where index >= offset && index < offset + n * d.channelCount {
                precondition(shorts[index - offset] == 0, "sample \(index) written as NaN or infinity is \(shorts[index - offset]) as Int16")
            }
            offset += n * d.channelCount
        }
        precondition(decoder.nonFiniteSampleCount >= written.count)
    } catch {
        preconditionFailure("writing NaN into the samples made the file unreadable: \(error)")
    }
}

func isFloatPCM(_ encoding: Encoding) -> Bool {
    if case .linearPCM(let format) = encoding { return format.isFloat }
    return false
}
