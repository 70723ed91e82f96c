/// What the engine needs of a playback device, behind a seam the tests can replace (as
/// swift-system puts its system calls behind one): ALSA everywhere (`.alsa`), a scripted device
/// in the lifecycle tests, which blocks, fails or stalls where ALSA would need a broken sound
/// server to.
///
/// Opening and closing run on noti-play's non-real-time threads and may block, allocate and
/// throw, so they are closures. The render thread's calls are C function pointers taking a raw
/// handle (`PCMRenderDevice`): calling through one takes no lock, allocates nothing and touches
/// no reference count, which a protocol existential (witness tables, boxed values) or a closure
/// with captured context does not promise. A generic engine would promise it too, but would make
/// `PlaybackEngine` generic for every caller for the sake of the tests.
package struct PCMBackend: Sendable {
    /// Opens `device` for playback and negotiates `request` (blocking, on a non-real-time
    /// thread). Returns the handle the other calls take and what the device agreed to.
    package var open: @Sendable (_ device: String, _ request: PCMRequest) throws(ALSAError)
        -> (handle: UnsafeMutableRawPointer, format: NegotiatedFormat)
    /// Closes what `open` returned: once, after the render thread has ended.
    package var close: @Sendable (_ handle: UnsafeMutableRawPointer) -> Void
    package var render: PCMRenderCalls

    package init(
        open: @escaping @Sendable (_ device: String, _ request: PCMRequest) throws(ALSAError)
            -> (handle: UnsafeMutableRawPointer, format: NegotiatedFormat),
        close: @escaping @Sendable (_ handle: UnsafeMutableRawPointer) -> Void,
        render: PCMRenderCalls
    ) {
        self.open = open
        self.close = close
        self.render = render
    }
}

/// The render thread's calls into a device, each on the handle `PCMBackend.open` returned.
package struct PCMRenderCalls: Sendable {
    /// Writes `count` interleaved frames, blocking while the buffer is full. Returns the frames
    /// written, or a negative errno: -EPIPE an underrun, -EAGAIN try again.
    package var write: @convention(c) (_ handle: UnsafeMutableRawPointer, _ frames: UnsafeRawPointer, _ count: Int) -> Int
    /// Blocks until the device has room for a period or `milliseconds` pass. Errors are left for
    /// the next write to report.
    package var waitForRoom: @convention(c) (_ handle: UnsafeMutableRawPointer, _ milliseconds: Int32) -> Void
    /// Makes the device ready again after the write error `code` (an underrun, a suspend).
    /// Returns 0, or the error when it cannot be recovered.
    package var recover: @convention(c) (_ handle: UnsafeMutableRawPointer, _ code: Int32) -> Int32
    /// Makes a drained or stopped device ready to start again on the next write.
    package var prepare: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Void
    /// Blocks until everything written has been played.
    package var drain: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Void
    /// Stops at once, discarding what has not been played.
    package var drop: @convention(c) (_ handle: UnsafeMutableRawPointer) -> Void

    package init(
        write: @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer, Int) -> Int,
        waitForRoom: @convention(c) (UnsafeMutableRawPointer, Int32) -> Void,
        recover: @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32,
        prepare: @convention(c) (UnsafeMutableRawPointer) -> Void,
        drain: @convention(c) (UnsafeMutableRawPointer) -> Void,
        drop: @convention(c) (UnsafeMutableRawPointer) -> Void
    ) {
        self.write = write
        self.waitForRoom = waitForRoom
        self.recover = recover
        self.prepare = prepare
        self.drain = drain
        self.drop = drop
    }
}

/// An open device as the render thread holds it: a handle and function pointers, plain values
/// copied onto its stack.
struct PCMRenderDevice {
    let handle: UnsafeMutableRawPointer
    let calls: PCMRenderCalls

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
}

extension PCMBackend {
    /// ALSA through `PCMDevice`: the handle is the `snd_pcm_t`.
    package static let alsa = PCMBackend(
        open: { name, request throws(ALSAError) in
            // A configuration refused closes the device (its deinit); one agreed to is handed over.
            let device = try PCMDevice(name: name)
            let format = try device.configure(request)
            return (UnsafeMutableRawPointer(device.takeHandle()), format)
        },
        close: { handle in PCMDevice.close(OpaquePointer(handle)) },
        render: PCMRenderCalls(
            write: { pcm, frames, count in PCMDevice.write(OpaquePointer(pcm), frames, count: count) },
            waitForRoom: { pcm, milliseconds in PCMDevice.waitForRoom(OpaquePointer(pcm), milliseconds: milliseconds) },
            recover: { pcm, code in PCMDevice.recover(OpaquePointer(pcm), code) },
            prepare: { pcm in PCMDevice.prepare(OpaquePointer(pcm)) },
            drain: { pcm in PCMDevice.drain(OpaquePointer(pcm)) },
            drop: { pcm in PCMDevice.drop(OpaquePointer(pcm)) }))
}
