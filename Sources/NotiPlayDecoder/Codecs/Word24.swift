/// 24-bit samples in 4-byte words: which three bytes hold the sample, read from the samples
/// themselves, and decoding that checks every word against the layout chosen.
///
/// The same header (a plain PCM `fmt ` of 24 bits with a block align of 4 bytes a channel, or
/// WAVE_FORMAT_EXTENSIBLE with 24 valid bits in 32) is written with either layout:
/// - high: the sample in the top three bytes, the low byte zero (the Microsoft specification;
///   ffmpeg's `pcm_s32le` from a 24-bit source);
/// - low: the sample in the low three bytes, the top byte a copy of its sign or zero (ALSA's
///   S24_LE: `arecord -f S24_LE` wrote it until December 2025, and hound writes it).
/// Read in the wrong layout, a −6 dBFS sine is a −42 dB buzz; so the data decides:
/// - a word whose low byte is not zero can only be low-aligned; a word whose top byte is
///   neither zero nor its sign can only be high-aligned; a word that is both is neither, and
///   the file is refused;
/// - words that fit both (zero, or quiet samples of 16-bit precision) decide nothing; zero
///   decodes as zero either way, the others are the only case left to the header's convention.
/// The decision reads a bounded part of the data when the file is opened (``decide``); every
/// word decoded later is checked against it, and one that contradicts it is an error from the
/// read that meets it, never silent garbage: the file mixes layouts, or changed under us.
enum Word24 {
    /// Whether `word` (in the file's byte order already undone) can be a sample in `alignment`.
    @inline(__always)
    static func fits(_ word: UInt32, _ alignment: Alignment24) -> Bool {
        switch alignment {
        case .high:
            return word & 0xFF == 0
        case .low:
            let top = word >> 24
            return top == 0 || (top == 0xFF && word & 0x80_0000 != 0)
        }
    }

    /// The decision reads up to `windowCount` windows of `windowBytes`: the start of the data
    /// first, then, while nothing is decided (a silent start), windows spread evenly to its end.
    /// 1 MiB at most, whatever the file's length; 64 KiB for a file whose start decides.
    static let windowBytes = 64 * 1024
    static let windowCount = 16

    /// What the samples read said.
    enum Evidence {
        /// Some fit one layout only.
        case samples
        /// All were zero (or there were none): either layout gives the same samples.
        case silence
        /// Some were not zero, and all fit both: the header's convention was taken.
        case neither
    }

    /// The layout of the 24-bit samples in `data` (offset and byte count in `source`), or the
    /// header's `convention` when the windows read hold only words that fit both.
    static func decide(
        _ source: any ByteSource, data: (offset: Int, size: Int), bigEndian: Bool, channelCount: Int,
        convention: Alignment24
    ) throws(DecodingError) -> (Alignment24, Evidence) {
        let wordCount = data.size / 4
        var onlyHigh: Int?  // the first word that fits the high layout only
        var onlyLow: Int?
        var sawSound = false
        for window in windows(wordCount: wordCount) {
            let misfit: Int? = try source.withBytes(at: data.offset + 4 * window.lowerBound, count: 4 * window.count) { bytes in
                for i in 0..<bytes.count / 4 {
                    let word = load(bytes.baseAddress!, i, bigEndian: bigEndian)
                    switch (fits(word, .high), fits(word, .low)) {
                    case (false, false): return window.lowerBound + i
                    case (true, false): onlyHigh = onlyHigh ?? window.lowerBound + i
                    case (false, true): onlyLow = onlyLow ?? window.lowerBound + i
                    case (true, true): sawSound = sawSound || word != 0
                    }
                }
                return nil
            }
            if let misfit {
                throw .malformed(
                    "24-bit samples in 4-byte words: the one at frame \(misfit / channelCount) fits neither layout (its low byte is not zero, and its top byte is neither zero nor its sign)")
            }
            if let high = onlyHigh, let low = onlyLow {
                throw .malformed(
                    "24-bit samples in 4-byte words: frame \(high / channelCount) holds one in the top three bytes, frame \(low / channelCount) one in the low three")
            }
            if onlyHigh != nil { return (.high, .samples) }
            if onlyLow != nil { return (.low, .samples) }
        }
        return (convention, sawSound ? .neither : .silence)
    }

    /// Word ranges to read: all of them when they fit in the windows, else the first window and
    /// the others spread evenly, the last ending with the data.
    static func windows(wordCount: Int) -> [Range<Int>] {
        let wordsPerWindow = windowBytes / 4
        guard wordCount > wordsPerWindow * windowCount else {
            return stride(from: 0, to: wordCount, by: wordsPerWindow).map { $0..<min($0 + wordsPerWindow, wordCount) }
        }
        let last = wordCount - wordsPerWindow
        return (0..<windowCount).map { k in
            let start = last / (windowCount - 1) * k + (k == windowCount - 1 ? last % (windowCount - 1) : 0)
            return start..<start + wordsPerWindow
        }
    }

    /// Decodes `sampleCount` words in `alignment`. Returns the index of the first word that does
    /// not fit it (the samples before it are written), or nil when all do.
    @inline(__always)
    static func decode<S: DecodedSample>(
        _ bytes: UnsafeRawBufferPointer, sampleCount: Int, bigEndian: Bool, alignment: Alignment24,
        into out: UnsafeMutablePointer<S>
    ) -> Int? {
        let base = bytes.baseAddress!
        switch alignment {
        case .high:
            for i in 0..<sampleCount {
                let word = load(base, i, bigEndian: bigEndian)
                guard fits(word, .high) else { return i }
                out[i] = S(sample32: Int32(bitPattern: word))
            }
        case .low:
            // The low three bytes moved to the top: bit 23, the sign, becomes bit 31.
            for i in 0..<sampleCount {
                let word = load(base, i, bigEndian: bigEndian)
                guard fits(word, .low) else { return i }
                out[i] = S(sample32: Int32(bitPattern: word << 8))
            }
        }
        return nil
    }

    /// The error a read throws for a word that contradicts the layout chosen.
    static func contradiction(atFrame frame: Int, _ alignment: Alignment24) -> DecodingError {
        .malformed(
            "the 24-bit sample at frame \(frame) is not \(alignment.phrase) as the samples read when the file was opened are: the file mixes layouts or changed while it was read")
    }

    @inline(__always)
    private static func load(_ base: UnsafeRawPointer, _ index: Int, bigEndian: Bool) -> UInt32 {
        let raw = base.loadUnaligned(fromByteOffset: 4 &* index, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }
}

extension Alignment24 {
    /// "in the top three bytes of 32-bit words (the low byte zero)", for messages and notes.
    var phrase: String {
        switch self {
        case .high: "in the top three bytes of 32-bit words (the low byte zero)"
        case .low: "in the low three bytes of 32-bit words (the top byte the sign or zero)"
        }
    }

    /// Who writes this layout, for notes.
    var writers: String {
        switch self {
        case .high: "as WAVE_FORMAT_EXTENSIBLE specifies"
        case .low: "as ALSA's S24_LE (arecord) has them"
        }
    }
}
