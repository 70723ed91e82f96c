/// Decodes a WAV, AIFF/AIFC or CAF sound to interleaved Float32 (or Int16) frames, a bounded chunk
/// at a time: memory use does not depend on the file's length.
///
/// ```swift
/// let decoder = try SoundDecoder(path: "Sounds/default.caf")
/// var frames = [Float](repeating: 0, count: 4096 * decoder.description.channelCount)
/// while case let n = try frames.withUnsafeMutableBufferPointer({ try decoder.read(into: $0) }), n > 0 {
///     // use n frames
/// }
/// ```
public final class SoundDecoder {
    /// What the stream holds: container, encoding, rate, channels, exact frame count.
    public let description: StreamDescription

    private let source: any ByteSource
    private let codec: PacketCodec
    private let layout: PacketLayout
    /// Packets fetched from the source per read: about 64 KiB, at least one packet.
    private let packetsPerChunk: Int

    /// The next packet to fetch from the source.
    private var nextPacket = 0
    /// Priming frames still to discard.
    private var framesToSkip: Int
    /// Sound frames still to deliver.
    public private(set) var framesRemaining: Int
    /// Float samples delivered so far (since the start or the last `rewind()`) that were NaN or
    /// infinite in the file and were delivered as 0, silence. Non-zero means the file is damaged.
    public private(set) var nonFiniteSampleCount = 0

    /// One packet decoded but only partly delivered (the caller's buffer was smaller than a
    /// packet, or the packet straddles priming or the end of the sound).
    private let scratch: UnsafeMutableRawPointer
    private var scratchKind: ObjectIdentifier?
    private var scratchPacket = -1
    private var scratchStart = 0
    private var scratchEnd = 0

    static let chunkBytes = 64 * 1024

    /// Opens and parses the file at `path`. Only the header is read here.
    public convenience init(path: String) throws(DecodingError) {
        try self.init(source: try FileByteSource(path: path))
    }

    /// Decodes a file already opened (and checked) by ``RegularFile``.
    public convenience init(file: RegularFile) throws(DecodingError) {
        try self.init(source: FileByteSource(file: file))
    }

    /// Decodes from bytes in memory (a daemon may be handed a sound rather than a path).
    public convenience init(bytes: [UInt8]) throws(DecodingError) {
        try self.init(source: MemoryByteSource(bytes))
    }

    public init(source: any ByteSource) throws(DecodingError) {
        self.source = source
        let description = try SoundDecoder.parse(source)
        self.description = description
        self.codec = PacketCodec(description.encoding)
        self.layout = PacketLayout(bytesPerPacket: description.bytesPerPacket, framesPerPacket: description.framesPerPacket)
        self.packetsPerChunk = max(1, SoundDecoder.chunkBytes / description.bytesPerPacket)
        self.framesToSkip = description.primingFrames
        self.framesRemaining = description.frameCount
        // Largest packet: a WAV IMA block of 65535 bytes is 131,057 samples, so under 512 KiB.
        let scratchBytes = description.framesPerPacket * description.channelCount * MemoryLayout<Float>.size
        self.scratch = .allocate(byteCount: scratchBytes, alignment: 16)
    }

    deinit { scratch.deallocate() }

    /// Identifies the container by its first bytes and parses its header.
    static func parse(_ source: any ByteSource) throws(DecodingError) -> StreamDescription {
        let magic = try source.bytes(at: 0, count: 4)
        guard magic.count == 4 else {
            throw .init(.unknownContainer, source.byteCount == 0 ? "file is empty" : "file is too short to be a sound file (\(source.byteCount) bytes)")
        }
        switch String(decoding: magic, as: UTF8.self) {
        case "RIFF", "RIFX", "RF64": return try WAV.parse(source)
        case "FORM": return try AIFF.parse(source)
        case "caff": return try CAF.parse(source)
        default: throw .init(.unknownContainer, "not a WAV, AIFF or CAF file")
        }
    }

    /// Decodes up to `buffer.count / channelCount` frames into `buffer`, interleaved.
    /// Returns the frames written: 0 at the end of the sound, or when `buffer` holds less than
    /// one frame (give it at least `channelCount` samples).
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(DecodingError) -> Int {
        try read(generic: buffer)
    }

    /// Decodes into 16-bit integers, saving the caller a conversion for 16-bit and compressed sources.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(DecodingError) -> Int {
        try read(generic: buffer)
    }

    /// Starts again from the first frame (a ringtone loops this way).
    public func rewind() {
        nextPacket = 0
        framesToSkip = description.primingFrames
        framesRemaining = description.frameCount
        nonFiniteSampleCount = 0
        scratchStart = 0
        scratchEnd = 0
    }

    /// Decodes the rest of the sound into one array. Its size follows the data actually present
    /// in the file, never a header's claim.
    public func readAll() throws(DecodingError) -> [Float] {
        let channels = description.channelCount
        var samples = [Float](repeating: 0, count: framesRemaining * channels)
        var filled = 0
        while framesRemaining > 0 {
            let n = try samples.withUnsafeMutableBufferPointer { (all) throws(DecodingError) -> Int in
                try read(into: UnsafeMutableBufferPointer(rebasing: all[(filled * channels)...]))
            }
            if n == 0 { break }
            filled += n
        }
        samples.removeLast(samples.count - filled * channels)
        return samples
    }

    /// A read that meets an error returns the frames it decoded before it; the next read meets
    /// the error again (nothing past it was consumed) and throws it.
    private func read<S: DecodedSample>(generic buffer: UnsafeMutableBufferPointer<S>) throws(DecodingError) -> Int {
        var written = 0
        do {
            try read(generic: buffer, written: &written)
        } catch {
            if written > 0 { return written }
            throw error
        }
        return written
    }

    private func read<S: DecodedSample>(generic buffer: UnsafeMutableBufferPointer<S>, written: inout Int) throws(DecodingError) {
        let channels = description.channelCount
        let capacity = buffer.count / channels
        guard let out = buffer.baseAddress else { return }
        while written < capacity && framesRemaining > 0 {
            if scratchStart < scratchEnd {
                written += try deliverFromScratch(S.self, into: out + written * channels, capacity: capacity - written)
                continue
            }
            // Whole packets straight into the caller's buffer when every frame of them is sound.
            let fit = min((capacity - written) / layout.framesPerPacket, framesRemaining / layout.framesPerPacket)
            if framesToSkip == 0 && fit > 0 {
                let packets = min(fit, packetsPerChunk)
                let decoded = try fetch(packets: packets) { bytes in
                    codec.decode(bytes, layout: layout, channelCount: channels, into: out + written * channels)
                }
                if decoded.frames == 0 { framesRemaining = 0; break }  // the file shrank under us
                written += decoded.frames
                framesRemaining -= decoded.frames
                nonFiniteSampleCount += decoded.silencedSamples
                continue
            }
            // Otherwise one packet through the scratch buffer.
            let decoded = try fetch(packets: 1) { bytes in
                codec.decode(bytes, layout: layout, channelCount: channels, into: scratch.assumingMemoryBound(to: S.self))
            }
            if decoded.frames == 0 { framesRemaining = 0; break }
            scratchKind = ObjectIdentifier(S.self)
            scratchPacket = nextPacket - 1
            let skipped = min(framesToSkip, decoded.frames)
            framesToSkip -= skipped
            scratchStart = skipped
            scratchEnd = skipped + min(decoded.frames - skipped, framesRemaining)
            // Float PCM packets are one frame: a packet here is either all priming (skipped,
            // not sound) or delivered.
            if scratchEnd > scratchStart { nonFiniteSampleCount += decoded.silencedSamples }
        }
    }

    /// Copies frames of the partly delivered packet, decoding it again first if the caller now
    /// asks for the other sample type.
    private func deliverFromScratch<S: DecodedSample>(
        _: S.Type, into out: UnsafeMutablePointer<S>, capacity: Int
    ) throws(DecodingError) -> Int {
        let channels = description.channelCount
        if scratchKind != ObjectIdentifier(S.self) {
            let offset = description.dataOffset + scratchPacket * layout.bytesPerPacket
            let end = description.dataOffset + description.dataByteCount
            let decoded = try source.withBytes(at: offset, count: min(layout.bytesPerPacket, end - offset)) { bytes in
                codec.decode(bytes, layout: layout, channelCount: channels, into: scratch.assumingMemoryBound(to: S.self))
            }
            // The same bytes read again: a file changed since may no longer fit its layout.
            if decoded.contradictingFrame != nil { throw codec.contradiction(atFrame: scratchPacket * layout.framesPerPacket) }
            scratchKind = ObjectIdentifier(S.self)
        }
        let count = min(scratchEnd - scratchStart, capacity)
        let from = scratch.assumingMemoryBound(to: S.self) + scratchStart * channels
        out.update(from: from, count: count * channels)
        scratchStart += count
        framesRemaining -= count
        return count
    }

    /// Reads up to `packets` packets from the data and hands their bytes to `decode`.
    private func fetch(
        packets: Int, _ decode: (UnsafeRawBufferPointer) -> PacketCodec.Decoded
    ) throws(DecodingError) -> PacketCodec.Decoded {
        let offset = nextPacket * layout.bytesPerPacket
        let byteCount = min(packets * layout.bytesPerPacket, description.dataByteCount - offset)
        guard byteCount > 0 else { return PacketCodec.Decoded(frames: 0) }
        let decoded = try source.withBytes(at: description.dataOffset + offset, count: byteCount, decode)
        // A sample that contradicts the layout chosen when the file was opened ends the sound
        // with an error, never with garbage: the whole packets before it are delivered, and the
        // fetch that starts at its packet throws.
        if let frame = decoded.contradictingFrame {
            let wholePackets = frame / layout.framesPerPacket
            guard wholePackets > 0 else { throw codec.contradiction(atFrame: nextPacket * layout.framesPerPacket + frame) }
            nextPacket += wholePackets
            return PacketCodec.Decoded(frames: wholePackets * layout.framesPerPacket, silencedSamples: decoded.silencedSamples)
        }
        nextPacket += (byteCount + layout.bytesPerPacket - 1) / layout.bytesPerPacket
        return decoded
    }
}
