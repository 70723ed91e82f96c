import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One way to play: a backend in the style of cubeb's `cubeb_ops` or miniaudio's backend
/// callbacks. The engine speaks the neutral vocabulary of this file (`PCMStream`'s calls and
/// their results, `NegotiatedFormat`, `DeviceError`); each backend keeps its server's quirks in
/// its own folder (ALSA/, Pulse/, PipeWire/), and `PCMBackend.table` chooses among them. Tests put
/// a scripted device behind the same seam (as swift-system puts its system calls behind one),
/// which blocks, fails or stalls where a real device would need a broken sound server to.
///
/// Opening runs on noti-play's non-real-time threads and may block, allocate and throw, so it
/// is a closure. The stream's calls are C function pointers taking a raw
/// handle (`PCMRenderDevice`): calling through one takes no lock, allocates nothing and touches
/// no reference count, which a protocol existential (witness tables, boxed values) or a closure
/// with captured context does not promise. A generic engine would promise it too, but would make
/// `PlaybackEngine` generic for every caller for the sake of the tests.
package struct PCMBackend: Sendable {
    package var kind: AudioBackend
    /// Whether this backend can play `device` at all, cheaply and without connecting: the name
    /// is its own (`pipewire:…`, `pulse:…`, an ALSA PCM), or for `default` its server's socket is
    /// there. The table tries only the backends that say yes.
    package var serves: @Sendable (_ device: String) -> Bool
    /// Opens `device` for playback and negotiates `request` (blocking, on a non-real-time
    /// thread). Returns the stream: its handle, what the device agreed to, and the calls that
    /// play and close it.
    package var open: @Sendable (_ device: String, _ request: PCMRequest) throws(DeviceError) -> PCMStream
    /// The devices it plays, by the names `open` takes (`--list-devices`); may connect to a server.
    /// None where its server is not there; throws where the server is there but did not answer.
    package var devices: @Sendable () throws(DeviceError) -> [PlaybackDevice]
    /// The backend an open of `device` under way is trying now (else the one it would try
    /// first; else `kind`): what a message names when the open has not returned in time.
    package var trying: @Sendable (_ device: String) -> AudioBackend

    package init(
        kind: AudioBackend = .alsa, serves: @escaping @Sendable (_ device: String) -> Bool = { _ in true },
        devices: @escaping @Sendable () throws(DeviceError) -> [PlaybackDevice] = { [] },
        trying: (@Sendable (_ device: String) -> AudioBackend)? = nil,
        open: @escaping @Sendable (_ device: String, _ request: PCMRequest) throws(DeviceError) -> PCMStream
    ) {
        self.kind = kind
        self.serves = serves
        self.devices = devices
        self.trying = trying ?? { _ in kind }
        self.open = open
    }
}

/// The queue asked of a sound server that can take back what it queued (PulseAudio, PipeWire
/// through noti-play's own ring): deep, so the render thread wakes seldom, where one sound plays
/// and nothing waits behind it (the command).
package struct ServerQueue: Sendable {
    package var microseconds: Int
    package var requestMicroseconds: Int

    package init(microseconds: Int, requestMicroseconds: Int) {
        self.microseconds = microseconds
        self.requestMicroseconds = requestMicroseconds
    }
}

extension PCMBackend {
    /// The backends in the order they are tried for `default`: the desktop's sound server
    /// natively (PipeWire, then PulseAudio), then ALSA. An ALSA device name (`hw:0`, `plughw:…`,
    /// a PCM of asound.conf) is ALSA's alone; `pipewire:SINK` and `pulse:SINK` name a server's sink.
    package static func standardTable(serverQueue: ServerQueue? = nil) -> [PCMBackend] {
        [.pipeWire(serverQueue: serverQueue), .pulse(serverQueue: serverQueue), .alsa]
    }

    /// Every device of every backend in `table`, `default` first: `--list-devices`; and the
    /// servers that did not answer (their devices are missing, the others' are listed).
    package static func devices(of table: [PCMBackend]) -> (devices: [PlaybackDevice], unanswered: [DeviceError]) {
        var all: [PlaybackDevice] = []
        var unanswered: [DeviceError] = []
        for backend in table {
            let devices: [PlaybackDevice]
            do throws(DeviceError) { devices = try backend.devices() } catch {
                unanswered.append(error)
                continue
            }
            for device in devices where !(device.name == "default" && all.contains { $0.name == "default" }) {
                all.append(device)
            }
        }
        return (all, unanswered)
    }

    /// One backend that opens a device with the first of `table` that serves it: `choice` alone
    /// when one is chosen, else each in order that says it serves the device. A server that is
    /// not there after all (its socket refuses, it is not the server the backend speaks to)
    /// passes the device on to the next; any other failure is the device's.
    package static func choosing(_ choice: AudioBackend?, from table: [PCMBackend]) -> PCMBackend {
        let kind = choice ?? table.first?.kind ?? .alsa
        @Sendable func candidates(_ device: String) -> [PCMBackend] {
            table.filter { backend in
                if let choice { return backend.kind == choice }
                return backend.serves(device)
            }
        }
        // Which backend each open under way is in: a PipeWire socket that refused at once and an
        // ALSA device that then blocks is ALSA's timeout, not PipeWire's.
        let tried = OpensUnderWay()
        return PCMBackend(kind: kind, trying: { device in tried.backends.withLock { $0[device] } ?? candidates(device).first?.kind ?? kind }) {
            device, request throws(DeviceError) in
            let candidates = candidates(device)
            var lastFailure: DeviceError?
            defer { tried.backends.withLock { $0[device] = nil } }
            for backend in candidates {
                tried.backends.withLock { $0[device] = backend.kind }
                do throws(DeviceError) {
                    return try backend.open(device, request)
                } catch {
                    guard choice == nil, backend.kind != .alsa, serverIsNotThere(error.code) else { throw error }
                    lastFailure = error
                }
            }
            throw lastFailure ?? DeviceError(
                device: device, backend: choice ?? .alsa, "cannot open", code: -ENOENT,
                reason: choice.map { "\($0) does not play this device" } ?? "no backend plays this device")
        }
    }

    /// The backend each device's open is trying, by device name.
    private final class OpensUnderWay: Sendable {
        let backends = Mutex<[String: AudioBackend]>([:])
    }

    /// Failures that mean "no such server here", not "this device failed".
    private static func serverIsNotThere(_ code: Int32) -> Bool {
        [ECONNREFUSED, ENOENT, EPROTONOSUPPORT, ECONNRESET, EHOSTDOWN, EHOSTUNREACH].contains(-code)
    }
}

/// An open playback stream, as `PCMBackend.open` hands it to the engine.
// Unchecked: the handle is used by one thread at a time (the opener, the render thread, then
// whoever closes), each handing it on through a thread's start or join.
package struct PCMStream: @unchecked Sendable {
    package var handle: UnsafeMutableRawPointer
    package var format: NegotiatedFormat
    package var calls: PCMStreamCalls

    package init(handle: UnsafeMutableRawPointer, format: NegotiatedFormat, calls: PCMStreamCalls) {
        self.handle = handle
        self.format = format
        self.calls = calls
    }
}

/// The calls on an open stream, each on the handle `PCMBackend.open` returned. All but `close`
/// and `interrupt` are the render thread's.
package struct PCMStreamCalls: Sendable {
    /// Writes `count` interleaved frames, blocking while the buffer is full. Returns the frames
    /// written, `PCMStreamCalls.interrupted`, `PCMStreamCalls.underrun`, or any other negative
    /// errno: the stream is lost (its server went away, its device vanished) and the render thread
    /// ends. Recovering from what can be recovered is the backend's own business (ALSA's
    /// prepare after an xrun), bounded so that a device that fails again at once is declared lost
    /// rather than retried at full speed.
    package var write: @convention(c) (_ handle: UnsafeMutableRawPointer, _ frames: UnsafeRawPointer, _ count: Int) -> Int
    /// Blocks until the device has room for a period, `milliseconds` pass, or `interrupt` is
    /// called. Errors are left for the next write to report.
    package var waitForRoom: @convention(c) (_ handle: UnsafeMutableRawPointer, _ milliseconds: Int32) -> Void
    /// Makes a drained or stopped device ready to start again on the next write.
    package var prepare: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Void
    /// Blocks until everything written has been played (or `interrupt` is called).
    package var drain: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Void
    /// Stops at once, discarding what has not been played.
    package var drop: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Void
    /// Replaces what the device holds but has not played with its next `fadeFrames` frames
    /// faded to silence, so that a stop is heard within the fade rather than after the whole
    /// buffer. Returns the frames of the fade, or -1 where nothing can be taken back (ALSA: a
    /// device buffer is kept short instead, and the mixer's own fade follows it).
    package var takeBack: @convention(c) (_ handle: UnsafeMutableRawPointer, _ fadeFrames: Int) -> Int
    /// Ends a wait for room under way (`waitForRoom`, a `write`'s, which then returns -EAGAIN)
    /// early, so that the render thread sees a stop now. `closing`: the engine is closing, and
    /// every wait from now on ends at once, a `drain` too (a stop must not: the drain is what
    /// lets its fade be heard). Any thread, while the stream is open; it never blocks.
    package var interrupt: @convention(c) (_ handle: UnsafeMutableRawPointer, _ closing: Bool) -> Void
    /// 0 while the stream can play, else the negated errno it was lost with, where the backend
    /// learns that without a write (a server's connection, watched by a thread of its own): an
    /// idle stream whose server went away is not given the next sound. Any thread, while the
    /// stream is open; it never blocks.
    package var lost: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Int32
    /// Closes the stream: once, after the render thread has ended, on a non-real-time thread.
    package var close: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Void

    package init(
        write: @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer, Int) -> Int,
        waitForRoom: @convention(c) (UnsafeMutableRawPointer, Int32) -> Void,
        prepare: @convention(c) (UnsafeMutableRawPointer) -> Void,
        drain: @convention(c) (UnsafeMutableRawPointer) -> Void,
        drop: @convention(c) (UnsafeMutableRawPointer) -> Void,
        takeBack: @convention(c) (UnsafeMutableRawPointer, Int) -> Int = { _, _ in -1 },
        interrupt: @convention(c) (UnsafeMutableRawPointer, Bool) -> Void = { _, _ in },
        lost: @convention(c) (UnsafeMutableRawPointer) -> Int32 = { _ in 0 },
        close: @convention(c) (UnsafeMutableRawPointer) -> Void
    ) {
        self.write = write
        self.waitForRoom = waitForRoom
        self.prepare = prepare
        self.drain = drain
        self.drop = drop
        self.takeBack = takeBack
        self.interrupt = interrupt
        self.lost = lost
        self.close = close
    }
}

extension PCMStreamCalls {
    /// `write`'s result when `interrupt` ended its wait for room: nothing was written.
    package static let interrupted = -Int(EAGAIN)
    /// `write`'s result when the device ran dry and has been made ready again: nothing was
    /// written, write on (counted as an underrun).
    package static let underrun = -Int(EPIPE)
}

/// An open device as the render thread holds it: a handle and function pointers, plain values
/// copied onto its stack.
struct PCMRenderDevice {
    let handle: UnsafeMutableRawPointer
    let calls: PCMStreamCalls

    @inline(__always)
    func write(_ frames: UnsafeRawPointer, count: Int) -> Int { calls.write(handle, frames, count) }
    @inline(__always)
    func waitForRoom(milliseconds: Int32) { calls.waitForRoom(handle, milliseconds) }
    @inline(__always)
    func prepare() { calls.prepare(handle) }
    @inline(__always)
    func drain() { calls.drain(handle) }
    @inline(__always)
    func drop() { calls.drop(handle) }
    @inline(__always)
    func takeBack(fadeFrames: Int) -> Int { calls.takeBack(handle, fadeFrames) }
}

