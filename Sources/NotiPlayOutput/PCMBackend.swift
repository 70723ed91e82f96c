/// What the engine needs of a playback device, behind a seam the tests can replace (as
/// swift-system puts its system calls behind one): ALSA (`.alsa`), ALSA or a PulseAudio server
/// reached directly (`.alsaWithDirectPulse`, the command's), a scripted device in the lifecycle
/// tests, which blocks, fails or stalls where ALSA would need a broken sound server to.
///
/// Opening runs on noti-play's non-real-time threads and may block, allocate and throw, so it
/// is a closure. The stream's calls are C function pointers taking a raw
/// handle (`PCMRenderDevice`): calling through one takes no lock, allocates nothing and touches
/// no reference count, which a protocol existential (witness tables, boxed values) or a closure
/// with captured context does not promise. A generic engine would promise it too, but would make
/// `PlaybackEngine` generic for every caller for the sake of the tests.
package struct PCMBackend: Sendable {
    /// Opens `device` for playback and negotiates `request` (blocking, on a non-real-time
    /// thread). Returns the stream: its handle, what the device agreed to, and the calls that
    /// play and close it (a backend may choose among several kinds of device by name).
    package var open: @Sendable (_ device: String, _ request: PCMRequest) throws(ALSAError) -> PCMStream

    package init(open: @escaping @Sendable (_ device: String, _ request: PCMRequest) throws(ALSAError) -> PCMStream) {
        self.open = open
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
    /// written, or a negative errno: -EPIPE an underrun, -EAGAIN try again.
    package var write: @convention(c) (_ handle: UnsafeMutableRawPointer, _ frames: UnsafeRawPointer, _ count: Int) -> Int
    /// Blocks until the device has room for a period, `milliseconds` pass, or `interrupt` is
    /// called. Errors are left for the next write to report.
    package var waitForRoom: @convention(c) (_ handle: UnsafeMutableRawPointer, _ milliseconds: Int32) -> Void
    /// Makes the device ready again after the write error `code` (an underrun, a suspend).
    /// Returns 0, or the error when it cannot be recovered.
    package var recover: @convention(c) (_ handle: UnsafeMutableRawPointer, _ code: Int32) -> Int32
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
    /// Closes the stream: once, after the render thread has ended, on a non-real-time thread.
    package var close: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Void

    package init(
        write: @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer, Int) -> Int,
        waitForRoom: @convention(c) (UnsafeMutableRawPointer, Int32) -> Void,
        recover: @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32,
        prepare: @convention(c) (UnsafeMutableRawPointer) -> Void,
        drain: @convention(c) (UnsafeMutableRawPointer) -> Void,
        drop: @convention(c) (UnsafeMutableRawPointer) -> Void,
        takeBack: @convention(c) (UnsafeMutableRawPointer, Int) -> Int = { _, _ in -1 },
        interrupt: @convention(c) (UnsafeMutableRawPointer, Bool) -> Void = { _, _ in },
        close: @convention(c) (UnsafeMutableRawPointer) -> Void
    ) {
        self.write = write
        self.waitForRoom = waitForRoom
        self.recover = recover
        self.prepare = prepare
        self.drain = drain
        self.drop = drop
        self.takeBack = takeBack
        self.interrupt = interrupt
        self.close = close
    }
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
    func recover(_ code: Int32) -> Int32 { calls.recover(handle, code) }
    @inline(__always)
    func prepare() { calls.prepare(handle) }
    @inline(__always)
    func drain() { calls.drain(handle) }
    @inline(__always)
    func drop() { calls.drop(handle) }
    @inline(__always)
    func takeBack(fadeFrames: Int) -> Int { calls.takeBack(handle, fadeFrames) }
}

extension PCMBackend {
    /// ALSA through `PCMDevice`: the handle is the `snd_pcm_t`.
    package static let alsa = PCMBackend { name, request throws(ALSAError) in try openALSA(name, request) }

    static func openALSA(_ name: String, _ request: PCMRequest) throws(ALSAError) -> PCMStream {
        // A configuration refused closes the device (its deinit); one agreed to is handed over.
        let device = try PCMDevice(name: name)
        let format = try device.configure(request)
        return PCMStream(handle: UnsafeMutableRawPointer(device.takeHandle()), format: format, calls: alsaCalls)
    }

    private static let alsaCalls = PCMStreamCalls(
        write: { pcm, frames, count in PCMDevice.write(OpaquePointer(pcm), frames, count: count) },
        waitForRoom: { pcm, milliseconds in PCMDevice.waitForRoom(OpaquePointer(pcm), milliseconds: milliseconds) },
        recover: { pcm, code in PCMDevice.recover(OpaquePointer(pcm), code) },
        prepare: { pcm in PCMDevice.prepare(OpaquePointer(pcm)) },
        drain: { pcm in PCMDevice.drain(OpaquePointer(pcm)) },
        drop: { pcm in PCMDevice.drop(OpaquePointer(pcm)) },
        close: { pcm in PCMDevice.close(OpaquePointer(pcm)) })
}
