import NotiPlayDecoder

/// Encodes interleaved Float32 frames (full scale ±1.0) into a WAV, AIFF/AIFC or CAF file or
/// into memory, a bounded chunk at a time.
///
/// ```swift
/// let writer = try SoundWriter(path: "alert.caf", format: SoundFormat(
///     container: .caf, encoding: .appleIMA4, sampleRate: 44100, channelCount: 2))
/// try frames.withUnsafeBufferPointer { try writer.write($0) }
/// try writer.finish()
/// ```
/// The header goes out first with zero counts; `finish()` encodes the last, zero-padded packet
/// and rewrites the header with the true counts. A file appears under its name only when
/// `finish()` succeeds; a writer released unfinished, or one that failed, leaves nothing behind.
public final class SoundWriter {
    public let format: SoundFormat
    /// Frames accepted so far: the true length the header will state.
    public private(set) var frameCount = 0

    private let sink: any ByteSink
    private let container: any ContainerWriter.Type
    private var encoder: any PacketEncoder
    private let headerSize: Int
    private var packetCount = 0
    private var dataByteCount = 0
    private var state = State.open

    private enum State { case open, finished, failed }

    /// Frames waiting to be encoded: whole packets, about 4096 frames.
    private let staging: UnsafeMutableBufferPointer<Float>
    private var stagedFrames = 0
    private let stagingFrames: Int
    private let encoded: UnsafeMutableRawBufferPointer

    /// Writes to `path`, through a temporary file next to it that `finish()` renames into place.
    public convenience init(path: String, format: SoundFormat) throws(EncodingError) {
        try self.init(path: Array(path.utf8), format: format)
    }

    /// Writes to the file whose path is these bytes (a name need not be UTF-8), without a NUL.
    /// Replacing a file keeps its permission bits, and its owner and group where allowed.
    public convenience init(path: [UInt8], format: SoundFormat) throws(EncodingError) {
        try format.validate()
        try self.init(format: format, sink: try FileSink(path: path))
    }

    /// Writes into memory; `encodedBytes` holds the file after `finish()`.
    public convenience init(format: SoundFormat) throws(EncodingError) {
        try format.validate()
        try self.init(format: format, sink: MemorySink())
    }

    private init(format: SoundFormat, sink: any ByteSink) throws(EncodingError) {
        self.format = format
        self.sink = sink
        container = format.container.writer
        encoder = format.makePacketEncoder()
        let packets = max(1, 4096 / encoder.framesPerPacket)
        stagingFrames = packets * encoder.framesPerPacket
        staging = .allocate(capacity: stagingFrames * format.channelCount)
        encoded = .allocate(byteCount: packets * encoder.bytesPerPacket, alignment: 16)
        let header = container.header(HeaderInfo(
            format: format, bytesPerPacket: encoder.bytesPerPacket, framesPerPacket: encoder.framesPerPacket,
            frameCount: 0, packetCount: 0, dataByteCount: 0))
        headerSize = header.count
        do throws(EncodingError) {
            try sink.append(header)
        } catch {
            state = .failed
            sink.discard()
            throw error
        }
    }

    deinit {
        if state != .finished { sink.discard() }
        staging.deallocate()
        encoded.deallocate()
    }

    /// The whole file, for a writer made with `init(format:)`, once `finish()` has run.
    public var encodedBytes: [UInt8] {
        state == .finished ? (sink as? MemorySink)?.bytes ?? [] : []
    }

    /// Encodes a whole file in memory in one call.
    public static func encode(_ samples: [Float], format: SoundFormat) throws(EncodingError) -> [UInt8] {
        let writer = try SoundWriter(format: format)
        let result = samples.withUnsafeBufferPointer { buffer in
            Result { () throws(EncodingError) in try writer.write(buffer) }
        }
        try result.get()
        try writer.finish()
        return writer.encodedBytes
    }

    private var headerInfo: HeaderInfo {
        HeaderInfo(
            format: format, bytesPerPacket: encoder.bytesPerPacket, framesPerPacket: encoder.framesPerPacket,
            frameCount: frameCount, packetCount: packetCount, dataByteCount: dataByteCount)
    }

    /// Appends interleaved frames; `samples.count` must be a whole number of frames.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(EncodingError) {
        try checkOpen()
        let channels = format.channelCount
        guard samples.count % channels == 0 else {
            throw .init(.invalidUse, "\(samples.count) samples are not a whole number of \(channels)-channel frames")
        }
        guard let base = samples.baseAddress else { return }
        var offset = 0
        while offset < samples.count {
            let frames = min(stagingFrames - stagedFrames, (samples.count - offset) / channels)
            (staging.baseAddress! + stagedFrames * channels).update(from: base + offset, count: frames * channels)
            stagedFrames += frames
            frameCount += frames
            offset += frames * channels
            if stagedFrames == stagingFrames { try flush() }
        }
    }

    /// Encodes what is staged, padding a partial last packet with silence, and rewrites the
    /// header with the true counts. The file then appears under its name.
    public func finish() throws(EncodingError) {
        try checkOpen()
        do throws(EncodingError) {
            let partial = stagedFrames % encoder.framesPerPacket
            if partial > 0 {
                let padding = encoder.framesPerPacket - partial
                (staging.baseAddress! + stagedFrames * format.channelCount).initialize(repeating: 0, count: padding * format.channelCount)
                stagedFrames += padding
            }
            try flush()
            if container.padsOddData && dataByteCount % 2 == 1 {
                try sink.append([0])
            }
            try sink.overwrite(at: 0, container.header(headerInfo))
            try sink.commit()
            state = .finished
        } catch {
            fail()
            throw error
        }
    }

    /// Abandons the output (a file is removed).
    public func cancel() {
        if state == .open { fail() }
    }

    private func checkOpen() throws(EncodingError) {
        switch state {
        case .open: return
        case .finished: throw .init(.invalidUse, "the sound is already finished")
        case .failed: throw .init(.invalidUse, "an earlier write failed")
        }
    }

    private func fail() {
        state = .failed
        sink.discard()
    }

    /// Encodes the staged whole packets and appends them.
    private func flush() throws(EncodingError) {
        let packets = stagedFrames / encoder.framesPerPacket
        guard packets > 0 else { return }
        let byteCount = packets * encoder.bytesPerPacket
        var next = headerInfo
        next.packetCount += packets
        next.dataByteCount += byteCount
        guard container.fits(next, headerSize: headerSize) else {
            fail()
            throw .init(.tooLarge, "the sound is too long for \(format.container.rawValue)'s 32-bit sizes; use -f caff")
        }
        encoder.encode(staging.baseAddress!, packetCount: packets, into: encoded.baseAddress!)
        do throws(EncodingError) {
            try sink.append(UnsafeRawBufferPointer(rebasing: encoded[..<byteCount]))
        } catch {
            fail()
            throw error
        }
        packetCount += packets
        dataByteCount += byteCount
        stagedFrames = 0
    }
}
