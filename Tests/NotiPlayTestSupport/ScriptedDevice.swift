import NotiPlayOutput
#if canImport(Glibc)
import Glibc
#endif

/// A playback device that does what the test says, reached through the engine's `PCMBackend`
/// seam instead of ALSA: it opens, blocks in the open or fails it; it takes frames (recording
/// them, at the pace of its clock or as fast as they come), fails writes, or stalls inside one.
/// Blocked opens and writes wait for `release()`, which every test calls at its end (a `defer`)
/// so that no thread is left behind.
///
/// Each open makes a stream: its own format, frames and close. Scripts are read when an open or
/// a write starts, so a test changes them between sounds.
public final class ScriptedDevice: @unchecked Sendable {  // Every var is guarded by `condition`.
    public enum Opening: Sendable {
        case opens
        /// Blocks until `release()`, then opens.
        case blocks
        /// Fails as ALSA's open would with `code` (a negative errno: -EBUSY, -ENOENT).
        case fails(code: Int32)
    }

    public enum Writing: Sendable {
        case takes
        /// Takes `frames` frames of each stream, then returns `code` (a negative errno: -EIO, the
        /// stream lost; `PCMStreamCalls`' own results mean what they mean there).
        case failsAfter(frames: Int, code: Int32)
        /// Takes `frames` frames of each stream, then blocks inside the write until `release()`
        /// (and takes the frames then).
        case stallsAfter(frames: Int)
    }

    /// What a test waits for.
    public struct Counts: Sendable, Equatable {
        public var openAttempts: Int
        public var opens: Int
        public var closes: Int
        /// Threads inside an open or a write that waits for `release()`.
        public var blockedOpens: Int
        public var blockedWrites: Int

        public init(openAttempts: Int = 0, opens: Int = 0, closes: Int = 0, blockedOpens: Int = 0, blockedWrites: Int = 0) {
            self.openAttempts = openAttempts
            self.opens = opens
            self.closes = closes
            self.blockedOpens = blockedOpens
            self.blockedWrites = blockedWrites
        }
    }

    /// Takes frames no faster than a device playing them at the stream's rate (false: as fast
    /// as they come, a device without a clock).
    public let paced: Bool
    /// Like a `hw:` device: the one rate it plays whatever it is asked (nil: the rate asked for),
    /// and, when exclusive, one open stream at a time (a second open fails with -EBUSY).
    public let rate: Int?
    public let exclusive: Bool
    private let condition = Condition()
    private var openingScript: Opening
    private var writingScript: Writing
    private var released = false
    private var tally = Counts()
    private var streams: [StreamRecord] = []

    private struct StreamRecord {
        let format: NegotiatedFormat
        var bytes: [UInt8] = []
        var frames = 0
        /// The clock of a paced stream: when its first frame played (nil: stopped).
        var startedAt: UInt64?
        /// Frames written since `startedAt`.
        var framesSinceStart = 0
    }

    public init(opening: Opening = .opens, writing: Writing = .takes, paced: Bool = false, rate: Int? = nil, exclusive: Bool = false) {
        openingScript = opening
        writingScript = writing
        self.paced = paced
        self.rate = rate
        self.exclusive = exclusive
    }

    /// The seam for `PlaybackEngine(backend:…)` and the player's configuration.
    package var backend: PCMBackend {
        PCMBackend { [self] name, request throws(DeviceError) in
            let (handle, format) = try open(name, request)
            return PCMStream(handle: handle, format: format, calls: Self.streamCalls)
        }
    }

    public var opening: Opening {
        get { condition.withLock { openingScript } }
        set { condition.withLock { openingScript = newValue } }
    }

    public var writing: Writing {
        get { condition.withLock { writingScript } }
        set { condition.withLock { writingScript = newValue } }
    }

    public var counts: Counts { condition.withLock { tally } }

    /// Lets every blocked open and write go, and blocks none from now on.
    public func release() {
        condition.withLock {
            released = true
            condition.broadcast()
        }
    }

    /// Waits until `predicate` holds for the counts, at most `seconds`; false if it never did.
    @discardableResult
    public func wait(seconds: Double = 10, until predicate: (Counts) -> Bool) -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        return condition.withLock {
            while !predicate(tally) {
                if !condition.wait(until: deadline) { return predicate(tally) }
            }
            return true
        }
    }

    /// What stream `index` (0 for the first open) agreed to.
    public func format(ofStream index: Int) -> NegotiatedFormat? {
        condition.withLock { streams.indices.contains(index) ? streams[index].format : nil }
    }

    /// The samples written to stream `index`, which must take FLOAT.
    public func samples(ofStream index: Int) -> [Float] {
        condition.withLock {
            guard streams.indices.contains(index) else { return [] }
            precondition(streams[index].format.sampleFormat == .float32, "only FLOAT streams are read back as samples")
            return streams[index].bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
    }

    // MARK: The backend's calls

    /// What the engine's handle points to: one open stream (retained until closed).
    private final class Stream {
        let device: ScriptedDevice
        let index: Int
        init(device: ScriptedDevice, index: Int) {
            self.device = device
            self.index = index
        }

        /// The stream behind a handle: test code, so a reference count on the render thread is fine here.
        static func of(_ handle: UnsafeMutableRawPointer) -> Stream { Unmanaged<Stream>.fromOpaque(handle).takeUnretainedValue() }
    }

    private static let streamCalls = PCMStreamCalls(
        write: { handle, frames, count in
            let stream = Stream.of(handle)
            return stream.device.write(stream.index, frames, count: count)
        },
        waitForRoom: { handle, milliseconds in
            let stream = Stream.of(handle)
            stream.device.waitForRoom(stream.index, milliseconds: milliseconds)
        },
        prepare: { handle in
            let stream = Stream.of(handle)
            stream.device.stopClock(stream.index)
        },
        drain: { handle in
            let stream = Stream.of(handle)
            stream.device.drain(stream.index)
        },
        drop: { handle in
            let stream = Stream.of(handle)
            stream.device.stopClock(stream.index)
        },
        close: { handle in
            let stream = Unmanaged<Stream>.fromOpaque(handle).takeRetainedValue()
            stream.device.streamClosed()
        })

    private func open(_ name: String, _ request: PCMRequest) throws(DeviceError) -> (handle: UnsafeMutableRawPointer, format: NegotiatedFormat) {
        try condition.withLock { () throws(DeviceError) -> (handle: UnsafeMutableRawPointer, format: NegotiatedFormat) in
            tally.openAttempts += 1
            condition.broadcast()
            let script = openingScript
            if case .blocks = script { waitForRelease(\.blockedOpens) }
            if case .fails(let code) = script { throw DeviceError(alsaDevice: name, "cannot open", code: code) }
            if exclusive && tally.opens > tally.closes { throw DeviceError(alsaDevice: name, "cannot open", code: -EBUSY) }
            let rate = self.rate ?? request.sampleRate
            if rate != request.sampleRate && !request.acceptsNearestRate {
                throw DeviceError(alsaDevice: name, "cannot play \(request.sampleRate) Hz", code: -EINVAL)
            }
            // Rounds the period up to a power of two, as hardware does: what the engine uses is
            // what the device chose, not what it asked for.
            var period = 16
            while period < rate * request.periodMicroseconds / 1_000_000 { period *= 2 }
            let format = NegotiatedFormat(
                device: name, sampleRate: rate, channelCount: request.channelCount,
                sampleFormat: request.formats.first ?? .float32, periodFrames: period,
                bufferFrames: period * max(2, request.periodsPerBuffer))
            streams.append(StreamRecord(format: format))
            tally.opens += 1
            condition.broadcast()
            return (Unmanaged.passRetained(Stream(device: self, index: streams.count - 1)).toOpaque(), format)
        }
    }

    private func streamClosed() {
        condition.withLock {
            tally.closes += 1
            condition.broadcast()
        }
    }

    private func write(_ index: Int, _ frames: UnsafeRawPointer, count: Int) -> Int {
        condition.withLock {
            var taken = count
            switch writingScript {
            case .takes:
                break
            case .failsAfter(let limit, let code):
                guard streams[index].frames < limit else { return Int(code) }
                taken = min(count, limit - streams[index].frames)
            case .stallsAfter(let limit):
                if streams[index].frames >= limit { waitForRelease(\.blockedWrites) }
                else { taken = min(count, limit - streams[index].frames) }
            }
            if paced { waitForRoom(index, frames: taken, until: .max) }
            let format = streams[index].format
            streams[index].bytes += UnsafeRawBufferPointer(start: frames, count: taken * format.bytesPerFrame)
            streams[index].frames += taken
            if paced {
                if streams[index].startedAt == nil { streams[index].startedAt = monotonicNanoseconds() }
                streams[index].framesSinceStart += taken
            }
            condition.broadcast()
            return taken
        }
    }

    private func waitForRoom(_ index: Int, milliseconds: Int32) {
        guard paced else { return }
        condition.withLock {
            waitForRoom(index, frames: streams[index].format.periodFrames,
                        until: monotonicNanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000)
        }
    }

    /// Waits (the lock held) until the stream's buffer has room for `frames` by its clock, or `deadline`.
    private func waitForRoom(_ index: Int, frames: Int, until deadline: UInt64) {
        while let start = streams[index].startedAt {
            let format = streams[index].format
            let played = Int((monotonicNanoseconds() - start) * UInt64(format.sampleRate) / 1_000_000_000)
            if played >= streams[index].framesSinceStart {
                streams[index].startedAt = nil  // it ran dry: the clock starts again with the next frame
                return
            }
            let needed = streams[index].framesSinceStart + frames - format.bufferFrames
            if played >= needed { return }
            let due = start + UInt64(needed) * 1_000_000_000 / UInt64(format.sampleRate)
            if !condition.wait(until: min(due, deadline)) && due > deadline { return }
        }
    }

    /// Blocks until everything written has played by the stream's clock; then it stops.
    private func drain(_ index: Int) {
        condition.withLock {
            if let start = streams[index].startedAt {
                let end = start + UInt64(streams[index].framesSinceStart) * 1_000_000_000 / UInt64(streams[index].format.sampleRate)
                while condition.wait(until: end) {}
            }
            streams[index].startedAt = nil
        }
    }

    private func stopClock(_ index: Int) {
        condition.withLock { streams[index].startedAt = nil }
    }

    /// Waits (the lock held) for `release()`, counted in `counter` meanwhile.
    private func waitForRelease(_ counter: WritableKeyPath<Counts, Int>) {
        tally[keyPath: counter] += 1
        condition.broadcast()
        while !released { condition.wait() }
        tally[keyPath: counter] -= 1
        condition.broadcast()
    }
}
