import CALSA
import CALSASupport
#if canImport(Glibc)
import Glibc
#endif

/// ALSA through `PCMDevice`: ALSA-only systems, named ALSA devices, and ALSA's `default`
/// where no sound server is found.
extension PCMBackend {
    package static let alsa = PCMBackend(
        kind: .alsa, serves: { device in !device.hasPrefix("pipewire:") && !device.hasPrefix("pulse:") },
        devices: { PlaybackDevices.list() }
    ) { name, request throws(DeviceError) in
        // A configuration refused closes the device (its deinit); one agreed to is handed over.
        let device = try PCMDevice(name: name)
        let format = try device.configure(request)
        let interrupt = noti_alsa_interrupt_fd()
        guard interrupt >= 0 else { throw DeviceError(alsaDevice: name, "cannot open", code: interrupt) }
        let stream = UnsafeMutablePointer<ALSAStream>.allocate(capacity: 1)
        stream.initialize(to: ALSAStream(pcm: device.takeHandle(), interrupt: interrupt, format: format))
        return PCMStream(handle: UnsafeMutableRawPointer(stream), format: format, calls: alsaCalls)
    }

    private static let alsaCalls = PCMStreamCalls(
        write: { stream, frames, count in ALSAStream.write(stream.assumingMemoryBound(to: ALSAStream.self), frames, count: count) },
        waitForRoom: { stream, milliseconds in
            ALSAStream.waitForRoom(stream.assumingMemoryBound(to: ALSAStream.self), milliseconds: milliseconds)
        },
        prepare: { stream in PCMDevice.prepare(stream.assumingMemoryBound(to: ALSAStream.self).pointee.pcm) },
        drain: { stream in
            let stream = stream.assumingMemoryBound(to: ALSAStream.self).pointee
            PCMDevice.playOut(stream.pcm, interrupt: stream.interrupt, rate: stream.rate, stepMilliseconds: stream.waitMilliseconds)
        },
        drop: { stream in PCMDevice.drop(stream.assumingMemoryBound(to: ALSAStream.self).pointee.pcm) },
        // A stop is heard within the device's buffer, which is kept short: only closing ends the waits.
        interrupt: { stream, closing in
            if closing { noti_alsa_interrupt(stream.assumingMemoryBound(to: ALSAStream.self).pointee.interrupt) }
        },
        close: { raw in
            let stream = raw.assumingMemoryBound(to: ALSAStream.self)
            PCMDevice.close(stream.pointee.pcm)
            Glibc.close(stream.pointee.interrupt)
            stream.deinitialize(count: 1)
            stream.deallocate()
        })
}

/// An open ALSA stream as the render thread holds it: the PCM, what ends its waits, and how
/// often it failed in a row.
struct ALSAStream {
    let pcm: OpaquePointer
    /// Readable for good once the engine closes (`interrupt(closing: true)`): every wait ends.
    let interrupt: Int32
    let rate: UInt32
    /// The frames of room the render thread waits for: a period (the PCM's avail_min).
    let periodFrames: Int
    /// The longest the render thread waits on the device's wake-up before it looks at the
    /// device's pointer itself: two periods and some slack. A wake-up lost costs one such wait;
    /// a device that never takes another frame costs one wake-up a wait, not a spin.
    let waitMilliseconds: Int32
    /// Recoveries since a write last took a frame.
    var recoveriesWithoutSound = 0

    init(pcm: OpaquePointer, interrupt: Int32, format: NegotiatedFormat) {
        self.pcm = pcm
        self.interrupt = interrupt
        rate = UInt32(format.sampleRate)
        periodFrames = format.periodFrames
        waitMilliseconds = Int32(min(1000, 2 * format.periodFrames * 1000 / max(1, format.sampleRate) + 10))
    }

    /// Recoveries in a row, none followed by a frame taken, after which the device is lost: a
    /// PCM whose server went away (pipewire-alsa: every prepare succeeds and every write fails
    /// again at once) would otherwise be retried at full speed for ever. Underruns on a loaded
    /// machine recover and take frames between them, so they never count up to it.
    static let recoveryLimit = 8

    /// Writes, waiting for room where there is none, and, where the write failed, recovers (an
    /// underrun, a suspend): the neutral results of `PCMStreamCalls.write`. Each wait is bounded,
    /// and the device is looked at again after it (the write itself reads its pointer): the
    /// write returns only with frames taken, an error, or when the engine closes.
    @inline(__always)
    static func write(_ stream: UnsafeMutablePointer<ALSAStream>, _ frames: UnsafeRawPointer, count: Int) -> Int {
        let pcm = stream.pointee.pcm
        var result = PCMDevice.write(pcm, frames, count: count)
        while result == -Int(EAGAIN) {
            let waited = PCMDevice.wait(pcm, interrupt: stream.pointee.interrupt, periodFrames: stream.pointee.periodFrames, milliseconds: stream.pointee.waitMilliseconds)
            if waited == Int32(NOTI_ALSA_INTERRUPTED.rawValue) { return PCMStreamCalls.interrupted }
            result = waited < 0 ? Int(waited) : PCMDevice.write(pcm, frames, count: count)
        }
        if result > 0 { stream.pointee.recoveriesWithoutSound = 0 }
        if result >= 0 { return result }
        let code = Int32(truncatingIfNeeded: result)
        stream.pointee.recoveriesWithoutSound += 1
        guard stream.pointee.recoveriesWithoutSound <= recoveryLimit else { return -Int(ENOTRECOVERABLE) }
        let recovered = PCMDevice.recover(pcm, code)
        if recovered == -EAGAIN {
            // Still suspended: not a failure of its own. Look again after a wait (or end, closing).
            stream.pointee.recoveriesWithoutSound -= 1
            var interrupt = pollfd(fd: stream.pointee.interrupt, events: Int16(POLLIN), revents: 0)
            return poll(&interrupt, 1, stream.pointee.waitMilliseconds) > 0 ? PCMStreamCalls.interrupted : 0
        }
        // -EPIPE that is not an xrun is a pipe whose reader left (the file plugin): lost, and
        // not to be read as an underrun (the render thread tells a broken pipe by SIGPIPE).
        if recovered < 0 { return recovered == -EPIPE ? -Int(EIO) : Int(recovered) }
        return code == -EPIPE ? PCMStreamCalls.underrun : 0
    }

    /// Waits until the device has room for a period, `milliseconds` pass, or the engine closes.
    /// Where the device's wake-up does not come within a wait, its pointer is read: room that
    /// came without a wake-up ends the wait. Errors are left for the next write.
    @inline(__always)
    static func waitForRoom(_ stream: UnsafeMutablePointer<ALSAStream>, milliseconds: Int32) {
        let pcm = stream.pointee.pcm
        var left = milliseconds
        while left > 0 {
            let step = min(left, stream.pointee.waitMilliseconds)
            if PCMDevice.wait(pcm, interrupt: stream.pointee.interrupt, periodFrames: stream.pointee.periodFrames, milliseconds: step) != Int32(NOTI_ALSA_TIMED_OUT.rawValue) { return }
            let room = PCMDevice.room(pcm)
            if room < 0 || room >= stream.pointee.periodFrames { return }
            left -= step
        }
    }
}
