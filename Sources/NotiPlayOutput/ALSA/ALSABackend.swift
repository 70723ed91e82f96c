import CALSA
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
        let stream = UnsafeMutablePointer<ALSAStream>.allocate(capacity: 1)
        stream.initialize(to: ALSAStream(pcm: device.takeHandle()))
        return PCMStream(handle: UnsafeMutableRawPointer(stream), format: format, calls: alsaCalls)
    }

    private static let alsaCalls = PCMStreamCalls(
        write: { stream, frames, count in ALSAStream.write(stream.assumingMemoryBound(to: ALSAStream.self), frames, count: count) },
        waitForRoom: { stream, milliseconds in
            PCMDevice.waitForRoom(stream.assumingMemoryBound(to: ALSAStream.self).pointee.pcm, milliseconds: milliseconds)
        },
        prepare: { stream in PCMDevice.prepare(stream.assumingMemoryBound(to: ALSAStream.self).pointee.pcm) },
        drain: { stream in PCMDevice.drain(stream.assumingMemoryBound(to: ALSAStream.self).pointee.pcm) },
        drop: { stream in PCMDevice.drop(stream.assumingMemoryBound(to: ALSAStream.self).pointee.pcm) },
        close: { raw in
            let stream = raw.assumingMemoryBound(to: ALSAStream.self)
            PCMDevice.close(stream.pointee.pcm)
            stream.deinitialize(count: 1)
            stream.deallocate()
        })
}

/// An open ALSA stream as the render thread holds it: the PCM and how often it failed in a row.
struct ALSAStream {
    let pcm: OpaquePointer
    /// Recoveries since a write last took a frame.
    var recoveriesWithoutSound = 0

    /// Recoveries in a row, none followed by a frame taken, after which the device is lost: a
    /// PCM whose server went away (pipewire-alsa: every prepare succeeds and every write fails
    /// again at once) would otherwise be retried at full speed for ever. Underruns on a loaded
    /// machine recover and take frames between them, so they never count up to it.
    static let recoveryLimit = 8

    /// Writes and, where the write failed, recovers (an underrun, a suspend): the neutral
    /// results of `PCMStreamCalls.write`.
    @inline(__always)
    static func write(_ stream: UnsafeMutablePointer<ALSAStream>, _ frames: UnsafeRawPointer, count: Int) -> Int {
        let result = PCMDevice.write(stream.pointee.pcm, frames, count: count)
        if result > 0 { stream.pointee.recoveriesWithoutSound = 0 }
        if result >= 0 { return result }
        let code = Int32(truncatingIfNeeded: result)
        stream.pointee.recoveriesWithoutSound += 1
        guard stream.pointee.recoveriesWithoutSound <= recoveryLimit else { return -Int(ENOTRECOVERABLE) }
        let recovered = PCMDevice.recover(stream.pointee.pcm, code)
        // -EPIPE that is not an xrun is a pipe whose reader left (the file plugin): lost, and
        // not to be read as an underrun (the render thread tells a broken pipe by SIGPIPE).
        if recovered < 0 { return recovered == -EPIPE ? -Int(EIO) : Int(recovered) }
        return code == -EPIPE ? PCMStreamCalls.underrun : 0
    }
}
