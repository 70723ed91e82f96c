import Foundation
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// Frames given as they are, NaN and infinities included: stands in for any decoder (libsndfile's
/// among them) that hands the engine what a hostile file holds. `onRead` runs at every read.
final class ArrayFrameSource: FrameSource, @unchecked Sendable {
    let sampleRate: Double = 44100
    let channelCount: Int
    private let samples: [Float]
    private var position = 0
    private let chunkFrames: Int
    private let delivered = Locked(0)
    var onRead: () -> Void = {}

    /// Frames handed to the engine so far (read from any thread).
    var framesDelivered: Int { delivered.withLock { $0 } }

    init(channels: Int, _ samples: [Float], chunkFrames: Int = 1024) {
        channelCount = channels
        self.samples = samples
        self.chunkFrames = chunkFrames
    }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        onRead()
        let count = min(buffer.count / channelCount, chunkFrames) * channelCount
        let taken = min(count, samples.count - position)
        for i in 0..<taken { buffer[i] = samples[position + i] }
        position += taken
        delivered.withLock { $0 = position / channelCount }
        return taken / channelCount
    }
}

/// The engine in this process, on ALSA's `file` plugin in front of `null` (declared by ALSA's own
/// alsa.conf, so no ALSA_CONFIG_PATH is needed): every byte it hands to the PCM lands in a file.
@Suite struct EngineTapTests {
    let folder = TemporaryDirectory("engine-tap")

    /// Plays `source` to its end on a `channels`-channel device taking only `format`; returns
    /// what reached the PCM, the outcome and the engine (closed).
    func play(
        _ source: ArrayFrameSource, volume: Float = 1, deviceChannels: Int, format: DeviceSampleFormat, name: String
    ) throws -> (bytes: [UInt8], outcome: VoiceOutcome?, engine: PlaybackEngine) {
        let capture = folder.file("\(name).raw")
        let engine = try PlaybackEngine(
            device: "file:FILE=\(capture),FORMAT=raw",
            request: PCMRequest(sampleRate: 44100, channelCount: deviceChannels, formats: [format]),
            drainWhenIdle: true)
        #expect(engine.format.sampleFormat == format && engine.format.channelCount == deviceChannels)
        let outcome = Locked<VoiceOutcome?>(nil)
        try engine.play(source, volume: volume) { result in outcome.withLock { $0 = result } }
        engine.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: capture)))
        return (bytes, outcome.withLock { $0 }, engine)
    }

    /// The bytes `values` (within -1...1) take in `format`, as the device receives them.
    func deviceBytes(_ values: [Float], _ format: DeviceSampleFormat) -> [UInt8] {
        switch format {
        case .float32:
            return values.withUnsafeBytes(Array.init)
        case .int32:
            let integers = values.map { $0 == 1 ? Int32.max : Int32(Double($0) * 2_147_483_648) }
            return integers.withUnsafeBytes(Array.init)
        case .int16:
            let integers = values.map { $0 == 1 ? Int16.max : Int16(Double($0) * 32768) }
            return integers.withUnsafeBytes(Array.init)
        }
    }

    /// ALSA's file plugin writing into a FIFO that this test reads: the device takes sound only
    /// as fast as the test lets it, so voices can be made to overlap and progress watched.
    final class FIFODevice: @unchecked Sendable {
        let name: String
        private let readEnd: Int32

        init(in folder: TemporaryDirectory, _ label: String) throws {
            let path = folder.file("\(label).fifo")
            try #require(mkfifo(path, 0o600) == 0)
            // Opened first and without blocking, so the plugin's open for writing finds a reader.
            readEnd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            try #require(readEnd >= 0)
            name = "file:FILE=\(path),FORMAT=raw"
        }

        deinit { close(readEnd) }

        /// Reads everything until the writer closes (the engine closed the device), on another thread.
        func readToEnd() -> () -> [UInt8] {
            let flags = fcntl(readEnd, F_GETFL)
            _ = fcntl(readEnd, F_SETFL, flags & ~O_NONBLOCK)
            let result = Locked<[UInt8]?>(nil)
            let fd = readEnd
            Thread.detachNewThread {
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = read(fd, &chunk, chunk.count)
                    if count > 0 { bytes += chunk[0..<count] } else if count == 0 || errno != EINTR { break }
                }
                result.withLock { $0 = bytes }
            }
            return {
                let deadline = Date().addingTimeInterval(10)
                while result.withLock({ $0 == nil }) && Date() < deadline { usleep(1000) }
                return result.withLock { $0 } ?? []
            }
        }
    }

    // MARK: Non-finite samples

    static let huge: Float = 3e38  // finite; two of them sum to +Inf

    /// NaN is silence and ±Inf full scale on every device format; finite samples, huge ones
    /// included, are clipped as always. (NaN trapped on S16 and S32, and reached a FLOAT device.)
    @Test(arguments: DeviceSampleFormat.allCases)
    func nanIsSilenceAndInfinityFullScaleOnTheDevice(format: DeviceSampleFormat) throws {
        let samples: [Float] = [0.25, .nan, .infinity, -.infinity, Self.huge, -Self.huge, -0.5, -.nan, .signalingNaN]
        let played = try play(ArrayFrameSource(channels: 1, samples), deviceChannels: 1, format: format, name: "nan-\(format)")
        #expect(played.outcome == .finished)
        #expect(played.bytes == deviceBytes([0.25, 0, 1, -1, 1, -1, -0.5, 0, 0], format))
    }

    /// Infinity at volume 0 is silence, as every other sample (Inf × 0 is NaN).
    @Test(arguments: DeviceSampleFormat.allCases)
    func infinityAtVolumeZeroIsSilence(format: DeviceSampleFormat) throws {
        let samples: [Float] = [.infinity, -.infinity, .nan, 0.5]
        let played = try play(
            ArrayFrameSource(channels: 1, samples), volume: 0, deviceChannels: 1, format: format, name: "zero-\(format)")
        #expect(played.outcome == .finished)
        #expect(played.bytes == deviceBytes([0, 0, 0, 0], format))
    }

    /// A stereo sound on a mono device is summed: huge samples overflow to ±Inf (full scale), and
    /// Inf + (−Inf) is NaN (silence).
    @Test(arguments: DeviceSampleFormat.allCases)
    func aDownmixThatOverflowsIsClippedAndNeverNaN(format: DeviceSampleFormat) throws {
        let frames: [Float] = [
            Self.huge, Self.huge,
            -Self.huge, -Self.huge,
            .infinity, -.infinity,
            .nan, 0.5,
            0.5, 0.25,
        ]
        let played = try play(ArrayFrameSource(channels: 2, frames), deviceChannels: 1, format: format, name: "downmix-\(format)")
        #expect(played.outcome == .finished)
        #expect(played.bytes == deviceBytes([1, -1, 0, 0, 0.375], format))
    }

    /// A voice's NaN, or its infinity at volume 0, does not silence the other voices: the first
    /// voice (constant 0.5) plays on unchanged while the second (all NaN or Inf × 0) plays over it.
    /// The device is a FIFO the test does not read until both voices play, so they overlap.
    @Test(arguments: [(Float.nan, Float(1)), (Float.infinity, Float(0)), (-Float.infinity, Float(0))])
    func aVoiceOfNaNLeavesTheOtherVoicesUntouched(hostile: Float, volume: Float) throws {
        let device = try FIFODevice(in: folder, "overlap")
        let engine = try PlaybackEngine(
            device: device.name, request: PCMRequest(sampleRate: 44100, channelCount: 1, formats: [.float32]),
            drainWhenIdle: true)
        let frames = 88200  // 2 s: far more than the pipe and ALSA's buffer hold
        let outcomes = Locked<[VoiceOutcome]>([])
        let steady = ArrayFrameSource(channels: 1, [Float](repeating: 0.5, count: frames))
        try engine.play(steady) { outcome in outcomes.withLock { $0.append(outcome) } }
        // The second voice is mixed over the first only where the first has frames ready (a voice
        // whose decoder is behind gets no silence inserted): wait until the render thread is
        // blocked on the full pipe and the first voice's ring is full (its source no longer read).
        var last = -1
        while steady.framesDelivered != last {
            last = steady.framesDelivered
            usleep(200_000)
        }
        let hostileVoice = ArrayFrameSource(channels: 1, [Float](repeating: hostile, count: 4410))
        try engine.play(hostileVoice, volume: volume) { outcome in outcomes.withLock { $0.append(outcome) } }
        let deadline = Date().addingTimeInterval(10)
        while hostileVoice.framesDelivered < 4410 && Date() < deadline { usleep(1000) }
        let captured = device.readToEnd()
        engine.finish()
        let bytes = captured()
        #expect(outcomes.withLock { $0 } == [.finished, .finished])
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(samples.count == frames)
        let wrong = samples.indices.filter { samples[$0] != 0.5 }
        #expect(wrong.isEmpty, "\(wrong.count) samples are not 0.5, from \(wrong.first ?? 0): \(wrong.prefix(3).map { samples[$0] })")
    }

    // MARK: Progress

    /// `framesWritten` counts what the device took: it stands still while the device (a FIFO the
    /// test does not read) takes nothing, grows as the test reads, and ends at the sound's length.
    @Test func framesWrittenGrowsAsTheDeviceTakesSoundAndEndsAtTheSoundsLength() throws {
        let device = try FIFODevice(in: folder, "progress")
        let engine = try PlaybackEngine(
            device: device.name, request: PCMRequest(sampleRate: 44100, channelCount: 2, formats: [.int16]),
            drainWhenIdle: true)
        #expect(engine.framesWritten == 0)
        let frames = 44100  // 1 s of stereo S16: 176 KB, far more than the pipe and ALSA's buffer hold
        let source = ArrayFrameSource(channels: 2, [Float](repeating: 0.25, count: 2 * frames))
        let outcome = Locked<VoiceOutcome?>(nil)
        try engine.play(source) { result in outcome.withLock { $0 = result } }
        // Until the pipe is full and the render thread blocks on it.
        var stalled = -1
        while engine.framesWritten != stalled {
            stalled = engine.framesWritten
            usleep(200_000)
        }
        #expect(stalled > 0 && stalled < frames, "\(stalled) frames written to a full pipe")
        let captured = device.readToEnd()
        engine.finish()
        let bytes = captured()
        #expect(outcome.withLock { $0 } == .finished)
        #expect(bytes.count == frames * 4)
        #expect(engine.framesWritten == frames)
    }

    /// On a device without a clock, every frame of a short sound counts once.
    @Test func framesWrittenEqualsTheFramesPlayed() throws {
        let source = ArrayFrameSource(channels: 1, [Float](repeating: 0.5, count: 12345))
        let played = try play(source, deviceChannels: 1, format: .float32, name: "count")
        #expect(played.outcome == .finished)
        #expect(played.bytes.count == 12345 * 4)
        #expect(played.engine.framesWritten == 12345)
    }

    // MARK: A device whose reader leaves

    /// Whether SIGPIPE would end this process (its default action), as it would end a host daemon's.
    static func sigpipeEndsTheProcess() -> Bool {
        var disposition = sigaction()
        return sigaction(SIGPIPE, nil, &disposition) == 0 && disposition.__sigaction_handler.sa_handler == nil
    }

    /// ALSA's file plugin writing into `true`, which reads nothing and exits: the write raises
    /// SIGPIPE, which killed the host process. Now the voice fails with one line, the engine
    /// reports the device failure, and SIGPIPE's disposition is left as the host set it.
    @Test func aDeviceWhoseReaderLeftFailsTheVoiceAndSparesTheProcess() throws {
        try #require(Self.sigpipeEndsTheProcess(), "SIGPIPE is not at its default: this test could not fail")
        let device = "file:\"|true\""
        let engine = try PlaybackEngine(
            device: device, request: PCMRequest(sampleRate: 44100, channelCount: 1, formats: [.float32]),
            drainWhenIdle: true)
        let outcome = Locked<VoiceOutcome?>(nil)
        // 1 s of FLOAT (176 KB): more than the pipe holds, so a write finds the reader gone.
        try engine.play(ArrayFrameSource(channels: 1, [Float](repeating: 0.25, count: 44100))) { result in
            outcome.withLock { $0 = result }
        }
        engine.finish()
        let message = "audio device '\(device)' (ALSA): its output was closed: Broken pipe"
        #expect(outcome.withLock { $0 } == .failed(.device(try #require(engine.deviceFailure))))
        #expect(engine.deviceFailure?.description == message)
        #expect(engine.framesWritten < 44100)
        #expect(Self.sigpipeEndsTheProcess())
    }
}
